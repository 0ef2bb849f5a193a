package io.segscope.agent.http;

import java.util.Arrays;
import java.util.Locale;

/** Request latencies in microseconds, for percentiles. Thread-confined: merge per-thread instances. */
final class Latencies {
  private long[] micros = new long[1024];
  private int n;

  void add(long nanos) {
    if (n == micros.length) {
      micros = Arrays.copyOf(micros, n * 2);
    }
    micros[n++] = nanos / 1000;
  }

  void addAll(Latencies other) {
    for (int i = 0; i < other.n; i++) {
      if (n == micros.length) {
        micros = Arrays.copyOf(micros, n * 2);
      }
      micros[n++] = other.micros[i];
    }
  }

  int count() {
    return n;
  }

  /** The q-quantile in milliseconds (nearest rank), 0 when empty. */
  double millis(double q) {
    if (n == 0) {
      return 0;
    }
    long[] sorted = Arrays.copyOf(micros, n);
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(q * n) - 1;
    return sorted[Math.max(0, Math.min(n - 1, rank))] / 1000.0;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "n=%d p50=%.1fms p99=%.1fms max=%.1fms", n, millis(0.5), millis(0.99),
        millis(1.0));
  }
}

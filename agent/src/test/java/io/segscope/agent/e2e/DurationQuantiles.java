package io.segscope.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.probes.wire.DurationBuckets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The p50/p90/p99 comparison of issue 14: quantiles estimated from segscope's histograms against the
 * same quantiles computed exactly from every duration the {@link DurationOracle} measured.
 */
final class DurationQuantiles {
  static final double[] QUANTILES = {0.5, 0.9, 0.99};
  /** Native estimates agree with the exact quantiles within 10 %. */
  static final double TOLERANCE = 0.10;

  private DurationQuantiles() {}

  /** The durations (ns -> occurrences) of every key accepted by {@code keep}, merged. */
  static TreeMap<Long, Long> merged(DurationOracle.Durations d, Predicate<String> keep) {
    TreeMap<Long, Long> all = new TreeMap<>();
    d.byKey().forEach((k, v) -> {
      if (keep.test(k)) {
        v.forEach((ns, n) -> all.merge(ns, n, Long::sum));
      }
    });
    return all;
  }

  static long count(NavigableMap<Long, Long> durations) {
    return durations.values().stream().mapToLong(Long::longValue).sum();
  }

  static double meanNanos(NavigableMap<Long, Long> durations) {
    double sum = 0;
    for (Map.Entry<Long, Long> e : durations.entrySet()) {
      sum += e.getKey() * (double) e.getValue();
    }
    return sum / count(durations);
  }

  /**
   * The exact q-quantile in seconds: the smallest measured duration that at least q * n of the n
   * durations do not exceed (the ceil(q * n)-th smallest), i.e. the value in whose bucket
   * Prometheus' rank q * n falls.
   */
  static double exact(NavigableMap<Long, Long> durations, double q) {
    long n = count(durations);
    assertThat(n).as("oracle durations").isPositive();
    long rank = Math.max(1, (long) Math.ceil(q * n));
    long seen = 0;
    for (Map.Entry<Long, Long> e : durations.entrySet()) {
      seen += e.getValue();
      if (seen >= rank) {
        return e.getKey() / 1e9;
      }
    }
    throw new AssertionError("unreachable: rank " + rank + " of " + n);
  }

  /**
   * The oracle's own durations put in the native schema-3 buckets, as an exported histogram: what a
   * perfect measurement would give after bucketing, so the printed table separates the estimation
   * error of the buckets from the difference between the two measurements.
   */
  static ExportedHistogram bucketed(NavigableMap<Long, Long> durations) {
    TreeMap<Integer, Long> buckets = new TreeMap<>();
    long zero = 0;
    for (Map.Entry<Long, Long> e : durations.entrySet()) {
      int slot = DurationBuckets.slotOf(e.getKey());
      if (slot == 0) {
        zero += e.getValue();
      } else {
        buckets.merge(DurationBuckets.nativeIndex(slot), e.getValue(), Long::sum);
      }
    }
    return new ExportedHistogram(DurationBuckets.SCHEMA,
        DurationBuckets.zeroThresholdSeconds(), zero, buckets, new double[0], new long[0],
        count(durations), 0);
  }

  /**
   * Where each estimate falls among the exact durations: the share of them at or below it (an estimate
   * of p90 that ranks 0.905 is 0.5 % of the events from the exact p90, however far in nanoseconds).
   */
  static double[] ranks(NavigableMap<Long, Long> durations, double[] estimatesSeconds) {
    double n = count(durations);
    double[] r = new double[estimatesSeconds.length];
    for (int i = 0; i < r.length; i++) {
      long atOrBelow = 0;
      for (long v : durations.headMap((long) Math.floor(estimatesSeconds[i] * 1e9), true).values()) {
        atOrBelow += v;
      }
      r[i] = atOrBelow / n;
    }
    return r;
  }

  /**
   * The share of events the two histograms put in different native buckets (total variation distance):
   * 0 when segscope and the oracle timed every event into the same bucket.
   */
  static double bucketDisagreement(ExportedHistogram a, ExportedHistogram b) {
    TreeMap<Integer, Long> keys = new TreeMap<>(a.buckets());
    b.buckets().forEach((k, v) -> keys.merge(k, 0L, Long::sum));
    double diff = Math.abs(a.zeroCount() - b.zeroCount());
    for (Integer k : keys.keySet()) {
      diff += Math.abs(a.buckets().getOrDefault(k, 0L) - b.buckets().getOrDefault(k, 0L));
    }
    return diff / 2 / Math.max(1, a.count());
  }

  /** Each native estimate is within {@link #TOLERANCE} of the exact quantile. */
  static void assertNativeAgree(String what, double[] estimates, double[] exact) {
    List<String> off = new ArrayList<>();
    for (int i = 0; i < QUANTILES.length; i++) {
      double error = Math.abs(estimates[i] - exact[i]) / exact[i];
      if (!(error <= TOLERANCE)) {
        off.add(String.format(Locale.ROOT, "p%s %s vs exact %s (%.1f %%)", percent(QUANTILES[i]), ns(estimates[i]),
            ns(exact[i]), error * 100));
      }
    }
    assertThat(off).as("%s: native estimates more than %.0f %% from the exact quantiles", what, TOLERANCE * 100)
        .isEmpty();
  }

  /**
   * Each classic estimate lies in a classic bucket (lower, upper] that brackets the exact quantile,
   * the bounds widened by the {@link #TOLERANCE} the measurements may differ by.
   */
  static void assertClassicBracket(String what, double[] estimates, double[] exact, ExportedHistogram layout) {
    List<String> off = new ArrayList<>();
    for (int i = 0; i < QUANTILES.length; i++) {
      double[] bucket = layout.classicBucketOf(estimates[i]);
      boolean ok = Double.isFinite(estimates[i]) && exact[i] >= bucket[0] * (1 - TOLERANCE)
          && exact[i] <= bucket[1] * (1 + TOLERANCE);
      if (!ok) {
        off.add(String.format(Locale.ROOT, "p%s %s in (%s, %s] vs exact %s", percent(QUANTILES[i]), ns(estimates[i]),
            ns(bucket[0]), ns(bucket[1]), ns(exact[i])));
      }
    }
    assertThat(off).as("%s: classic estimates whose bucket does not bracket the exact quantile", what).isEmpty();
  }

  static String table(String what, double[] exact, Map<String, double[]> estimates) {
    StringBuilder b = new StringBuilder(what).append(":");
    for (int i = 0; i < QUANTILES.length; i++) {
      b.append(String.format(Locale.ROOT, "  p%s exact %s", percent(QUANTILES[i]), ns(exact[i])));
      for (Map.Entry<String, double[]> e : estimates.entrySet()) {
        double v = e.getValue()[i];
        b.append(String.format(Locale.ROOT, ", %s %s (%+.1f %%)", e.getKey(), ns(v), (v - exact[i]) / exact[i] * 100));
      }
      b.append(";");
    }
    return b.toString();
  }

  private static String percent(double q) {
    return Integer.toString((int) Math.round(q * 100));
  }

  private static String ns(double seconds) {
    return String.format(Locale.ROOT, "%.0f ns", seconds * 1e9);
  }
}

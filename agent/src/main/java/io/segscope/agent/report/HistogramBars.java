package io.segscope.agent.report;

import io.segscope.exporters.model.NativeHistogram;

/**
 * A histogram as bcc's tools print it, one line per power of two with a bar of stars, followed by its
 * p50/p90/p99. The probes count finer buckets (eight per power of two for durations); the lines add
 * them up, the quantiles use them all.
 */
public final class HistogramBars {
  private static final int WIDTH = 40;

  private HistogramBars() {}

  /**
   * @param unit the column title, e.g. "nsecs" or "segments"
   * @param scale display units per histogram unit (1e9 to show seconds as nanoseconds, 1 for counts)
   */
  public static String render(NativeHistogram h, String unit, double scale) {
    if (h.isEmpty()) {
      return "     (no observations)\n";
    }
    int perOctave = 1 << Math.max(0, h.schema());
    long[] counts = h.counts();
    // octave k holds buckets with upper bounds in (2^(k-1), 2^k]
    int firstOctave = Math.floorDiv(h.offset() + perOctave - 1, perOctave);
    int lastOctave = Math.floorDiv(h.offset() + counts.length - 1 + perOctave - 1, perOctave);
    long[] octaves = new long[lastOctave - firstOctave + 1];
    for (int i = 0; i < counts.length; i++) {
      int index = h.offset() + i;
      octaves[Math.floorDiv(index + perOctave - 1, perOctave) - firstOctave] += counts[i];
    }
    long max = h.zeroCount();
    for (long c : octaves) {
      max = Math.max(max, c);
    }
    StringBuilder b = new StringBuilder();
    b.append(String.format("     %-21s : count     distribution%n", unit));
    if (h.zeroCount() > 0) {
      b.append(row(0, h.zeroThreshold() * scale, h.zeroCount(), max));
    }
    for (int k = 0; k < octaves.length; k++) {
      double hi = Math.scalb(1.0, firstOctave + k) * scale;
      b.append(row(hi / 2, hi, octaves[k], max));
    }
    b.append(String.format("     p50 %s  p90 %s  p99 %s (%d observations)%n", number(h.quantile(0.5) * scale),
        number(h.quantile(0.9) * scale), number(h.quantile(0.99) * scale), h.count()));
    return b.toString();
  }

  private static String row(double lo, double hi, long c, long max) {
    int stars = (int) Math.round((double) c * WIDTH / Math.max(1, max));
    if (c > 0 && stars == 0) {
      stars = 1;
    }
    return String.format("%10s -> %-10s : %-9d |%-" + WIDTH + "s|%n", number(lo), number(hi), c, "*".repeat(stars));
  }

  /** Integers as integers, small fractions with three significant digits. */
  static String number(double v) {
    if (Double.isNaN(v)) {
      return "-";
    }
    if (v >= 100 || v == Math.rint(v)) {
      return String.format("%.0f", v);
    }
    return String.format("%.3g", v);
  }
}

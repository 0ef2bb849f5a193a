package io.segscope.agent.report;

import io.segscope.exporters.model.Log2Histogram;

/** A log2 histogram as bcc's tools print it: one line per slot range, a bar of stars. */
public final class Log2Bars {
  private static final int WIDTH = 40;

  private Log2Bars() {}

  /**
   * @param unit the column title, e.g. "nsecs" or "segments"
   */
  public static String render(Log2Histogram h, String unit) {
    StringBuilder b = new StringBuilder();
    int first = -1;
    int last = -1;
    long max = 0;
    for (int i = 0; i < h.slots(); i++) {
      long c = h.count(i);
      if (c > 0) {
        first = first < 0 ? i : first;
        last = i;
        max = Math.max(max, c);
      }
    }
    if (last < 0) {
      return "     (no observations)\n";
    }
    b.append(String.format("     %-19s : count     distribution%n", unit));
    for (int i = Math.max(first, 0); i <= last; i++) {
      long lo = Log2Histogram.slotLowerBound(i);
      long hi = Log2Histogram.slotUpperBound(i);
      long c = h.count(i);
      int stars = (int) Math.round((double) c * WIDTH / max);
      if (c > 0 && stars == 0) {
        stars = 1;
      }
      b.append(String.format("%10d -> %-10d : %-9d |%-" + WIDTH + "s|%n", lo, hi, c, "*".repeat(stars)));
    }
    return b.toString();
  }
}

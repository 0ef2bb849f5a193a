package io.segscope.bench.report;

import java.util.Locale;

/** Number formatting for the report. */
final class Fmt {
  private Fmt() {}

  static String num(double v, int decimals) {
    if (Double.isNaN(v)) {
      return "n/a";
    }
    if (Double.isInfinite(v)) {
      return v > 0 ? "∞" : "-∞";
    }
    return String.format(Locale.ROOT, "%,." + decimals + "f", v);
  }

  static String pct(double ratio, int decimals) {
    return num(100 * ratio, decimals) + " %";
  }

  static String mib(double bytes) {
    return num(bytes / (1024.0 * 1024.0), 1) + " MiB";
  }

  static String kib(double bytes) {
    return bytes >= 1024 * 1024 ? mib(bytes) : num(bytes / 1024.0, 1) + " KiB";
  }

  /** An integer count with thousands separators. */
  static String count(double v) {
    return num(v, 0);
  }
}

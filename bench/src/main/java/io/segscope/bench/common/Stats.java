package io.segscope.bench.common;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/** Order statistics of small samples, for the benchmark report. */
public final class Stats {
  private Stats() {}

  /**
   * Summary of a sample.
   *
   * @param n how many values
   * @param min smallest
   * @param p50 median (linear interpolation between the two middle values)
   * @param p99 99th percentile (linear interpolation, R type 7)
   * @param max largest
   * @param mean arithmetic mean
   */
  public record Summary(int n, double min, double p50, double p99, double max, double mean) {}

  /** The {@code q} quantile (0..1) with linear interpolation between closest ranks (R type 7). */
  public static double quantile(Collection<Double> values, double q) {
    if (values.isEmpty()) {
      throw new IllegalArgumentException("compute quantile: no values");
    }
    if (!(q >= 0 && q <= 1)) {
      throw new IllegalArgumentException("compute quantile: q must be in [0, 1], got " + q);
    }
    List<Double> s = new ArrayList<>(values);
    s.sort(null);
    double h = (s.size() - 1) * q;
    int lo = (int) Math.floor(h);
    int hi = (int) Math.ceil(h);
    return s.get(lo) + (h - lo) * (s.get(hi) - s.get(lo));
  }

  public static double median(Collection<Double> values) {
    return quantile(values, 0.5);
  }

  public static Summary summarize(Collection<Double> values) {
    if (values.isEmpty()) {
      throw new IllegalArgumentException("summarize: no values");
    }
    double sum = 0;
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    for (double v : values) {
      sum += v;
      min = Math.min(min, v);
      max = Math.max(max, v);
    }
    return new Summary(values.size(), min, median(values), quantile(values, 0.99), max, sum / values.size());
  }
}

package io.segscope.exporters;

import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.NativeHistogramBuckets;
import io.segscope.exporters.model.NativeHistogram;

/**
 * One histogram data point from a {@link NativeHistogram}, carrying both representations from the
 * same counts: the native buckets as counted (Prometheus protobuf scrapes with native histograms
 * enabled see them), and classic buckets at a fixed, coarser set of {@code le} bounds that are all
 * native bucket boundaries, so every classic count is an exact sum of native buckets (text formats and
 * classic queries keep working). Every series of a family has the same bounds, so
 * {@code histogram_quantile(…, sum by (le) (…))} across devices and hosts is exact.
 */
final class HistogramBuckets {
  /** Classic bounds for durations: every power of two from 2^-24 s (~60 ns) to 2^3 s (8 s). */
  static final double[] DURATION_BOUNDS = powers(-24, 3);
  /** Classic bounds for segments per super-packet: every power of two from 1 to 65536. */
  static final double[] SEGMENT_BOUNDS = powers(0, 16);

  private HistogramBuckets() {}

  private static double[] powers(int from, int to) {
    double[] b = new double[to - from + 1];
    for (int k = from; k <= to; k++) {
      b[k - from] = Math.scalb(1.0, k);
    }
    return b;
  }

  /** Per-bucket classic counts at {@code bounds} (then +Inf), exact aggregations of the native buckets. */
  static ClassicHistogramBuckets classic(NativeHistogram h, double[] bounds) {
    double[] upper = new double[bounds.length + 1];
    long[] counts = new long[bounds.length + 1];
    long previous = 0;
    for (int i = 0; i < bounds.length; i++) {
      long cumulative = h.cumulativeCount(bounds[i]);
      upper[i] = bounds[i];
      counts[i] = cumulative - previous;
      previous = cumulative;
    }
    upper[bounds.length] = Double.POSITIVE_INFINITY;
    counts[bounds.length] = h.count() - previous;
    return ClassicHistogramBuckets.of(upper, counts);
  }

  static HistogramDataPointSnapshot dataPoint(NativeHistogram h, double[] classicBounds, Labels labels) {
    long[] c = h.counts();
    int[] indexes = new int[c.length];
    for (int i = 0; i < c.length; i++) {
      indexes[i] = h.offset() + i;
    }
    return HistogramDataPointSnapshot.builder()
        .labels(labels)
        .classicHistogramBuckets(classic(h, classicBounds))
        .nativeSchema(h.schema())
        .nativeZeroThreshold(h.zeroThreshold())
        .nativeZeroCount(h.zeroCount())
        .nativeBucketsForPositiveValues(NativeHistogramBuckets.of(indexes, c))
        .nativeBucketsForNegativeValues(NativeHistogramBuckets.EMPTY)
        .sum(h.sum())
        .build();
  }
}

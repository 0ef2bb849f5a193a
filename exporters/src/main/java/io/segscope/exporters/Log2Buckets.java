package io.segscope.exporters;

import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.segscope.exporters.model.Log2Histogram;
import java.math.BigDecimal;

/**
 * Converts bcc log2 histograms to Prometheus classic histograms, exactly.
 *
 * <p>Slot {@code i} holds the integers {@code [2^(i-1), 2^i - 1]} (slot 0 holds 0), so "value
 * &lt;= 2^i - 1" is true for exactly the observations in slots 0..i. The bucket for slot {@code i}
 * therefore gets the upper bound {@code le = (2^i - 1) / scale} and the slot's own count:
 * client_java's {@link ClassicHistogramBuckets} takes per-bucket (not cumulative) counts, and the
 * writers emit the cumulative {@code _bucket} series.
 *
 * <p>Every series of a family has the <em>same</em> fixed set of bounds, so that
 * {@code histogram_quantile(0.9, sum by (le) (rate(..._bucket[5m])))} across devices and hosts is
 * exact and a bucket never appears mid-series. The range is per unit: nanoseconds export slots 10..34
 * ({@code le} 1.023 µs .. 17.18 s; slots 0..9 all fall in the first bucket, which is still exact
 * because buckets are cumulative), counts export slots 0..17 (every u16 segment count). Observations
 * above the last bound fall in {@code +Inf}.
 */
final class Log2Buckets {
  private Log2Buckets() {}

  /** The unit the probes measured in, and how it converts to the exported base unit. */
  enum SourceUnit {
    /** Nanoseconds, exported as seconds. */
    NANOSECONDS(9, 10, 34),
    /** Plain counts (segments), exported as they are. */
    ONE(0, 0, 17);

    private final double perBaseUnit;
    /** The first and last slot that get a bucket of their own (see the class comment). */
    final int firstSlot;
    final int lastSlot;
    private final double[] upperBounds = new double[Log2Histogram.MAX_SLOTS];

    /** @param decimalShift the base unit is 10^decimalShift source units */
    SourceUnit(int decimalShift, int firstSlot, int lastSlot) {
      this.firstSlot = firstSlot;
      this.lastSlot = lastSlot;
      this.perBaseUnit = Math.pow(10, decimalShift);
      for (int slot = 0; slot < upperBounds.length; slot++) {
        // Exact decimal arithmetic, then one rounding: each bound is the double nearest to
        // (2^slot - 1) / 10^shift, so 1023 ns renders as 1.023E-6 and slots above 53 (where
        // 2^slot - 1 itself is not a double) are not rounded twice.
        upperBounds[slot] =
            new BigDecimal(Log2Histogram.slotUpperBound(slot)).movePointLeft(decimalShift)
                .doubleValue();
      }
    }

    /** Converts a value (a sum) to the base unit; one correctly rounded division. */
    double toBase(double value) {
      return value / perBaseUnit;
    }
  }

  /** The {@code le} bound of slot {@code slot} in the base unit. */
  static double upperBound(int slot, SourceUnit unit) {
    Log2Histogram.slotUpperBound(slot); // validates the slot
    return unit.upperBounds[slot];
  }

  /** Classic buckets for a histogram: the unit's fixed bounds, then +Inf. */
  static ClassicHistogramBuckets buckets(Log2Histogram histogram, SourceUnit unit) {
    int n = unit.lastSlot - unit.firstSlot + 1;
    double[] upperBounds = new double[n + 1];
    long[] counts = new long[n + 1];
    for (int slot = 0; slot < histogram.slots(); slot++) {
      int bucket = slot <= unit.firstSlot ? 0 : slot > unit.lastSlot ? n : slot - unit.firstSlot;
      counts[bucket] += histogram.count(slot);
    }
    for (int b = 0; b < n; b++) {
      upperBounds[b] = upperBound(unit.firstSlot + b, unit);
    }
    upperBounds[n] = Double.POSITIVE_INFINITY;
    return ClassicHistogramBuckets.of(upperBounds, counts);
  }

  /** One histogram data point: the buckets above and the record's sum in the base unit. */
  static HistogramDataPointSnapshot dataPoint(
      Log2Histogram histogram, SourceUnit unit, Labels labels) {
    return HistogramDataPointSnapshot.builder()
        .labels(labels)
        .classicHistogramBuckets(buckets(histogram, unit))
        .sum(unit.toBase(histogram.sum()))
        .build();
  }
}

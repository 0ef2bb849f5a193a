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
 * writers emit the cumulative {@code _bucket} series. Buckets after the last non-empty slot are
 * dropped; the mandatory {@code +Inf} bucket gets 0 of its own (slot 63 ends at Long.MAX_VALUE, so
 * every observation has a finite bucket) and so cumulates to the total count.
 */
final class Log2Buckets {
  private Log2Buckets() {}

  /** The unit the probes measured in, and how it converts to the exported base unit. */
  enum SourceUnit {
    /** Nanoseconds, exported as seconds. */
    NANOSECONDS(9),
    /** Plain counts (segments), exported as they are. */
    ONE(0);

    private final double perBaseUnit;
    private final double[] upperBounds = new double[Log2Histogram.MAX_SLOTS];

    /** @param decimalShift the base unit is 10^decimalShift source units */
    SourceUnit(int decimalShift) {
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

  /** Classic buckets for a histogram: one per slot up to the last non-empty one, then +Inf. */
  static ClassicHistogramBuckets buckets(Log2Histogram histogram, SourceUnit unit) {
    int slots = histogram.slots();
    double[] upperBounds = new double[slots + 1];
    long[] counts = new long[slots + 1];
    for (int slot = 0; slot < slots; slot++) {
      upperBounds[slot] = upperBound(slot, unit);
      counts[slot] = histogram.count(slot);
    }
    upperBounds[slots] = Double.POSITIVE_INFINITY;
    counts[slots] = 0;
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

package io.segscope.agent.cost;

import io.segscope.exporters.model.NativeHistogram;
import io.segscope.probes.wire.DurationBuckets;
import java.util.Arrays;

/** The agent's two histogram layouts, as the probes count them: durations (seconds) and segments per skb. */
public final class Histograms {
  /** Durations: native schema 3 over seconds, zero bucket up to 2^(-217/8) s. */
  public static final NativeHistogram EMPTY_DURATION =
      NativeHistogram.empty(DurationBuckets.SCHEMA, DurationBuckets.zeroThresholdSeconds());
  /** Segments per super-packet: native schema 0, zero bucket for 0. */
  public static final NativeHistogram EMPTY_SEGMENTS = NativeHistogram.empty(0, 0);

  private Histograms() {}

  /** A duration histogram from the probes' slots (slot 0 the zero bucket) and the timed total in ns. */
  public static NativeHistogram duration(long[] slots, long timedNanos) {
    long[] counts = Arrays.copyOfRange(slots, 1, slots.length);
    return new NativeHistogram(DurationBuckets.SCHEMA, DurationBuckets.zeroThresholdSeconds(), slots[0],
        DurationBuckets.MIN_INDEX, counts, timedNanos / 1e9);
  }

  /** A segments-per-skb histogram from the probes' slots (slot 0 the zero bucket, slot i+1 = (2^(i-1), 2^i]). */
  public static NativeHistogram segments(long[] slots, long segmentSum) {
    long[] counts = Arrays.copyOfRange(slots, 1, slots.length);
    return new NativeHistogram(0, 0, slots[0], 0, counts, segmentSum);
  }

  /**
   * The half-width of the 95 % confidence interval of the mean of {@code sampled}'s observations, relative
   * to that mean, when they are {@code sampled.count()} of {@code population} events drawn alike (1.96
   * standard errors, with the finite-population correction; each observation taken at its bucket's
   * geometric middle, which is within 4.4 % of it at schema 3); 0 when every event was observed, NaN when
   * fewer than 2 were.
   */
  public static double meanRelativeError(NativeHistogram sampled, double population) {
    long n = sampled.count();
    if (n >= population) {
      return 0;
    }
    if (n < 2) {
      return Double.NaN;
    }
    double mean = sampled.sum() / n;
    if (!(mean > 0)) {
      return Double.NaN;
    }
    // the spread of the bucket middles about their own mean (mixing in the exact mean would add the
    // middles' offset from the exact values to the spread)
    long[] counts = sampled.counts();
    double zeroMiddle = sampled.zeroThreshold() / 2;
    double sum = sampled.zeroCount() * zeroMiddle;
    double squares = sampled.zeroCount() * zeroMiddle * zeroMiddle;
    for (int i = 0; i < counts.length; i++) {
      if (counts[i] > 0) {
        int index = sampled.offset() + i;
        double middle = Math.sqrt(sampled.upperBound(index - 1) * sampled.upperBound(index));
        sum += counts[i] * middle;
        squares += counts[i] * middle * middle;
      }
    }
    double variance = Math.max(0, (squares - sum * sum / n) / (n - 1));
    double correction = Math.sqrt(Math.max(0, 1 - n / population));
    return 1.96 * Math.sqrt(variance / n) * correction / mean;
  }
}

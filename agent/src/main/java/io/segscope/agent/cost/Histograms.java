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
}

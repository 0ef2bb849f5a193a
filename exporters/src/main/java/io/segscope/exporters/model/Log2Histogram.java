package io.segscope.exporters.model;

import java.util.Arrays;

/**
 * A histogram with bcc's log2 slots, as aggregated in the kernel.
 *
 * <p>Slot 0 holds the value 0; slot {@code i >= 1} holds the integers {@code [2^(i-1), 2^i - 1]}
 * (what bcc's {@code bpf_log2l(v) + 1} indexing produces). At most {@value #MAX_SLOTS} slots, so the
 * last slot ends at {@link Long#MAX_VALUE}. Values are in the unit the probe measured (nanoseconds,
 * segments, ...); the exporter scales them.
 *
 * <p>Trailing empty slots carry no information and are dropped on construction, so two histograms
 * with the same distribution are equal whatever array length the probe used. The array is copied in
 * and out; equality and hash code are by content.
 *
 * @param counts observations per slot (not cumulative), none negative
 * @param sum the sum of all observed values in the source unit, finite and not negative
 */
public record Log2Histogram(long[] counts, double sum) {
  /** The most slots a histogram can have: slot 63 ends at {@link Long#MAX_VALUE}. */
  public static final int MAX_SLOTS = 64;

  private static final Log2Histogram EMPTY = new Log2Histogram(new long[0], 0.0);

  public Log2Histogram {
    Checks.notNull(counts, "Log2Histogram.counts");
    if (counts.length > MAX_SLOTS) {
      throw new IllegalArgumentException(
          "Log2Histogram.counts must have at most " + MAX_SLOTS + " slots, got " + counts.length);
    }
    int used = 0;
    for (int slot = 0; slot < counts.length; slot++) {
      if (counts[slot] < 0) {
        throw new IllegalArgumentException(
            "Log2Histogram.counts[" + slot + "] must not be negative, got " + counts[slot]);
      }
      if (counts[slot] > 0) {
        used = slot + 1;
      }
    }
    if (!Double.isFinite(sum) || sum < 0) {
      throw new IllegalArgumentException(
          "Log2Histogram.sum must be finite and not negative, got " + sum);
    }
    counts = Arrays.copyOf(counts, used);
    total(counts); // rejects a total that overflows a long
  }

  /** A histogram without observations. */
  public static Log2Histogram empty() {
    return EMPTY;
  }

  /** The smallest value slot {@code slot} holds: 0 for slot 0, else {@code 2^(slot-1)}. */
  public static long slotLowerBound(int slot) {
    checkSlot(slot);
    return slot == 0 ? 0 : 1L << (slot - 1);
  }

  /** The largest value slot {@code slot} holds: 0 for slot 0, else {@code 2^slot - 1}. */
  public static long slotUpperBound(int slot) {
    checkSlot(slot);
    return slot == MAX_SLOTS - 1 ? Long.MAX_VALUE : (1L << slot) - 1;
  }

  /** The observations per slot; a copy, without trailing empty slots. */
  @Override
  public long[] counts() {
    return counts.clone();
  }

  /** The number of slots up to and including the last non-empty one. */
  public int slots() {
    return counts.length;
  }

  /** The observations in one slot (0 for a slot past the last non-empty one). */
  public long count(int slot) {
    checkSlot(slot);
    return slot < counts.length ? counts[slot] : 0;
  }

  /** The total number of observations. */
  public long count() {
    return total(counts);
  }

  /** True if nothing was observed. */
  public boolean isEmpty() {
    return counts.length == 0;
  }

  /** The slot-wise sum of two histograms (e.g. of two CPUs or two devices). */
  public Log2Histogram plus(Log2Histogram other) {
    Checks.notNull(other, "Log2Histogram.plus argument");
    long[] merged = Arrays.copyOf(counts, Math.max(counts.length, other.counts.length));
    for (int slot = 0; slot < other.counts.length; slot++) {
      try {
        merged[slot] = Math.addExact(merged[slot], other.counts[slot]);
      } catch (ArithmeticException e) {
        throw new ArithmeticException("add Log2Histogram: slot " + slot + " overflows a long");
      }
    }
    return new Log2Histogram(merged, sum + other.sum);
  }

  /**
   * Estimates the {@code q}-quantile in the source unit. The rank {@code q * count()} is located in
   * its slot and interpolated linearly between that slot's smallest and largest value, so the
   * estimate always lies inside the slot that holds the true quantile: {@code quantile(0)} is the
   * lower bound of the first non-empty slot, {@code quantile(1)} the upper bound of the last one.
   *
   * @param q in [0, 1]
   * @return the estimate, or {@link Double#NaN} if the histogram is empty
   */
  public double quantile(double q) {
    if (!(q >= 0 && q <= 1)) {
      throw new IllegalArgumentException("quantile q must be within [0, 1], got " + q);
    }
    if (isEmpty()) {
      return Double.NaN;
    }
    double rank = q * count();
    long before = 0;
    for (int slot = 0; slot < counts.length; slot++) {
      long inSlot = counts[slot];
      if (inSlot == 0) {
        continue;
      }
      if (before + inSlot >= rank) {
        double fraction = (rank - before) / inSlot;
        double low = slotLowerBound(slot);
        double high = slotUpperBound(slot);
        return low + (high - low) * Math.max(0.0, fraction);
      }
      before += inSlot;
    }
    return slotUpperBound(counts.length - 1); // unreachable: rank <= count()
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Log2Histogram other
        && Arrays.equals(counts, other.counts)
        && Double.compare(sum, other.sum) == 0;
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(counts) + Double.hashCode(sum);
  }

  @Override
  public String toString() {
    return "Log2Histogram[counts=" + Arrays.toString(counts) + ", sum=" + sum + "]";
  }

  private static long total(long[] counts) {
    long total = 0;
    for (long c : counts) {
      try {
        total = Math.addExact(total, c);
      } catch (ArithmeticException e) {
        throw new IllegalArgumentException("Log2Histogram total count must fit in a long");
      }
    }
    return total;
  }

  private static void checkSlot(int slot) {
    if (slot < 0 || slot >= MAX_SLOTS) {
      throw new IllegalArgumentException(
          "Log2Histogram slot must be within [0, " + (MAX_SLOTS - 1) + "], got " + slot);
    }
  }
}

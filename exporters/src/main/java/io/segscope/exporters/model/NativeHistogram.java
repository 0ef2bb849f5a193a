package io.segscope.exporters.model;

import java.util.Arrays;

/**
 * A histogram with Prometheus native (exponential) buckets: bucket {@code i} holds observations in
 * {@code (base^(i-1), base^i]} with {@code base = 2^(2^-schema)}, plus a zero bucket for observations
 * {@code <= zeroThreshold}. The probes count exactly these buckets in the kernel (integer thresholds,
 * see docs/metrics.md), so no re-bucketing happens anywhere: the native histogram is exported as
 * counted, and the classic one is an exact aggregation of it at boundaries it shares.
 *
 * @param schema the native schema (0: one bucket per power of two; 3: eight)
 * @param zeroThreshold the zero bucket's upper bound, in the histogram's unit
 * @param zeroCount observations in the zero bucket
 * @param offset the bucket index of {@code counts[0]}
 * @param counts observations per bucket, for indexes {@code offset .. offset + counts.length - 1}
 * @param sum the sum of all observations, in the histogram's unit
 */
public record NativeHistogram(int schema, double zeroThreshold, long zeroCount, int offset, long[] counts,
    double sum) {
  public NativeHistogram {
    if (schema < -4 || schema > 8) {
      throw new IllegalArgumentException("NativeHistogram.schema must be in [-4, 8], got " + schema);
    }
    if (!(zeroThreshold >= 0) || Double.isInfinite(zeroThreshold)) {
      throw new IllegalArgumentException("NativeHistogram.zeroThreshold must be finite and >= 0, got "
          + zeroThreshold);
    }
    Checks.notNegative(zeroCount, "NativeHistogram.zeroCount");
    counts = Checks.notNull(counts, "NativeHistogram.counts").clone();
    for (int i = 0; i < counts.length; i++) {
      Checks.notNegative(counts[i], "NativeHistogram.counts[" + i + "]");
    }
    if (!(sum >= 0) || Double.isInfinite(sum)) {
      throw new IllegalArgumentException("NativeHistogram.sum must be finite and >= 0, got " + sum);
    }
    // trim empty buckets at both ends, so equal histograms are equal records
    int lo = 0;
    while (lo < counts.length && counts[lo] == 0) {
      lo++;
    }
    int hi = counts.length;
    while (hi > lo && counts[hi - 1] == 0) {
      hi--;
    }
    if (lo > 0 || hi < counts.length) {
      offset = lo == hi ? 0 : offset + lo;
      counts = Arrays.copyOfRange(counts, lo, hi);
    }
  }

  /** An empty histogram of that schema and zero threshold. */
  public static NativeHistogram empty(int schema, double zeroThreshold) {
    return new NativeHistogram(schema, zeroThreshold, 0, 0, new long[0], 0);
  }

  /** The upper bound of bucket {@code index}: {@code 2^(index / 2^schema)}. */
  public double upperBound(int index) {
    return Math.pow(2, index * Math.pow(2, -schema));
  }

  /** The observations in bucket {@code index} (0 outside the stored range). */
  public long count(int index) {
    int i = index - offset;
    return i < 0 || i >= counts.length ? 0 : counts[i];
  }

  @Override
  public long[] counts() {
    return counts.clone();
  }

  /** The total number of observations, zero bucket included. */
  public long count() {
    long n = zeroCount;
    for (long c : counts) {
      n += c;
    }
    return n;
  }

  public boolean isEmpty() {
    return count() == 0;
  }

  /** Observations {@code <= bound}, exact when {@code bound} is a bucket boundary (or below the first bucket). */
  public long cumulativeCount(double bound) {
    long n = bound >= zeroThreshold ? zeroCount : 0;
    for (int i = 0; i < counts.length; i++) {
      if (upperBound(offset + i) <= bound * (1 + 1e-12)) {
        n += counts[i];
      }
    }
    return n;
  }

  /** Bucket-wise difference (for a window between two cumulative readings); negative counts become 0. */
  public NativeHistogram minus(NativeHistogram older) {
    requireSameLayout(older);
    int lo = Math.min(offset, older.offset);
    int hi = Math.max(offset + counts.length, older.offset + older.counts.length);
    long[] d = new long[Math.max(0, hi - lo)];
    for (int i = lo; i < hi; i++) {
      d[i - lo] = Math.max(0, count(i) - older.count(i));
    }
    return new NativeHistogram(schema, zeroThreshold, Math.max(0, zeroCount - older.zeroCount), lo, d,
        Math.max(0, sum - older.sum));
  }

  /** Bucket-wise sum (e.g. of two devices). */
  public NativeHistogram plus(NativeHistogram other) {
    requireSameLayout(other);
    if (other.isEmpty()) {
      return this;
    }
    if (isEmpty()) {
      return other;
    }
    int lo = Math.min(offset, other.offset);
    int hi = Math.max(offset + counts.length, other.offset + other.counts.length);
    long[] s = new long[hi - lo];
    for (int i = lo; i < hi; i++) {
      s[i - lo] = count(i) + other.count(i);
    }
    return new NativeHistogram(schema, zeroThreshold, zeroCount + other.zeroCount, lo, s, sum + other.sum);
  }

  private void requireSameLayout(NativeHistogram other) {
    if (other.schema != schema || other.zeroThreshold != zeroThreshold) {
      throw new IllegalArgumentException("combine native histograms: schema/zero threshold " + schema + "/"
          + zeroThreshold + " and " + other.schema + "/" + other.zeroThreshold + " differ");
    }
  }

  /**
   * The {@code q}-quantile, interpolated linearly inside its bucket as Prometheus'
   * {@code histogram_quantile} does for classic buckets; NaN when empty.
   */
  public double quantile(double q) {
    if (!(q >= 0 && q <= 1)) {
      throw new IllegalArgumentException("quantile " + q + ": must be in [0, 1]");
    }
    long total = count();
    if (total == 0) {
      return Double.NaN;
    }
    double rank = q * total;
    if (rank <= zeroCount) {
      return zeroCount == 0 ? 0 : zeroThreshold * (rank / zeroCount);
    }
    double seen = zeroCount;
    for (int i = 0; i < counts.length; i++) {
      if (counts[i] == 0) {
        continue;
      }
      if (seen + counts[i] >= rank) {
        double lower = Math.max(zeroThreshold, upperBound(offset + i - 1));
        double upper = upperBound(offset + i);
        return lower + (upper - lower) * ((rank - seen) / counts[i]);
      }
      seen += counts[i];
    }
    return upperBound(offset + counts.length - 1);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof NativeHistogram h && schema == h.schema && zeroThreshold == h.zeroThreshold
        && zeroCount == h.zeroCount && offset == h.offset && Arrays.equals(counts, h.counts) && sum == h.sum;
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(counts) * 31 + offset;
  }

  @Override
  public String toString() {
    return "NativeHistogram[schema=" + schema + ", zero=" + zeroCount + "@" + zeroThreshold + ", offset=" + offset
        + ", counts=" + Arrays.toString(counts) + ", sum=" + sum + "]";
  }
}

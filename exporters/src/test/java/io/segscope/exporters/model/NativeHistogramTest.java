package io.segscope.exporters.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class NativeHistogramTest {
  private static final double Z = Math.pow(2, -217 / 8.0);

  @Test
  void boundsFollowTheSchema() {
    NativeHistogram s3 = NativeHistogram.empty(3, Z);
    assertThat(s3.upperBound(0)).isEqualTo(1.0);
    assertThat(s3.upperBound(8)).isEqualTo(2.0);
    assertThat(s3.upperBound(-160)).isEqualTo(Math.scalb(1.0, -20));
    assertThat(s3.upperBound(1)).isCloseTo(Math.pow(2, 1 / 8.0), within(1e-15));
    NativeHistogram s0 = NativeHistogram.empty(0, 0);
    assertThat(s0.upperBound(4)).isEqualTo(16.0);
  }

  @Test
  void emptyEndsAreTrimmedSoEqualHistogramsAreEqual() {
    NativeHistogram a = new NativeHistogram(3, Z, 0, 10, new long[] {0, 0, 5, 1, 0}, 1);
    NativeHistogram b = new NativeHistogram(3, Z, 0, 12, new long[] {5, 1}, 1);
    assertThat(a).isEqualTo(b);
    assertThat(a.offset()).isEqualTo(12);
    assertThat(a.count(12)).isEqualTo(5);
    assertThat(a.count(99)).isZero();
  }

  @Test
  void minusAndPlusWorkBucketWise() {
    NativeHistogram older = new NativeHistogram(3, Z, 1, 0, new long[] {2, 3}, 5);
    NativeHistogram newer = new NativeHistogram(3, Z, 1, -1, new long[] {4, 2, 6}, 12);
    NativeHistogram d = newer.minus(older);
    assertThat(d.count(-1)).isEqualTo(4);
    assertThat(d.count(0)).isZero();
    assertThat(d.count(1)).isEqualTo(3);
    assertThat(d.zeroCount()).isZero();
    assertThat(d.sum()).isEqualTo(7);
    assertThat(older.plus(d).count(1)).isEqualTo(6);
    assertThatThrownBy(() -> older.minus(NativeHistogram.empty(0, 0))).hasMessageContaining("differ");
  }

  @Test
  void quantilesInterpolateInsideTheirBucket() {
    // 10 observations in bucket 8 = (2^(7/8), 2]: the median is half-way through it
    NativeHistogram h = new NativeHistogram(3, Z, 0, 8, new long[] {10}, 18);
    double lo = Math.pow(2, 7 / 8.0);
    assertThat(h.quantile(0.5)).isCloseTo(lo + (2 - lo) / 2, within(1e-12));
    assertThat(h.quantile(1)).isEqualTo(2.0);
    assertThat(NativeHistogram.empty(3, Z).quantile(0.5)).isNaN();
  }

  @Test
  void cumulativeCountIsExactAtBoundaries() {
    NativeHistogram h = new NativeHistogram(3, Z, 2, -1, new long[] {1, 1, 1}, 3);
    assertThat(h.cumulativeCount(Math.pow(2, -1 / 8.0))).isEqualTo(3); // zero + bucket -1
    assertThat(h.cumulativeCount(1.0)).isEqualTo(4);
    assertThat(h.cumulativeCount(0.5)).isEqualTo(2);
  }

  @Test
  void rejectsNonsense() {
    assertThatThrownBy(() -> new NativeHistogram(9, 0, 0, 0, new long[0], 0)).hasMessageContaining("schema");
    assertThatThrownBy(() -> new NativeHistogram(3, Z, 0, 0, new long[] {-1}, 0)).hasMessageContaining("counts[0]");
    assertThatThrownBy(() -> new NativeHistogram(3, Z, 0, 0, new long[0], Double.NaN)).hasMessageContaining("sum");
  }
}

package io.segscope.exporters;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.segscope.exporters.model.NativeHistogram;
import org.junit.jupiter.api.Test;

/** Both representations of a histogram come from the same counts, exactly. */
class HistogramBucketsTest {

  @Test
  void classicBoundsArePowersOfTwoThatAreNativeBoundaries() {
    assertThat(HistogramBuckets.DURATION_BOUNDS).hasSize(28).startsWith(Math.scalb(1.0, -24)).endsWith(8.0);
    assertThat(HistogramBuckets.SEGMENT_BOUNDS).hasSize(17).startsWith(1.0).endsWith(65536.0);
    NativeHistogram h = Fixtures.UPLINK_DURATION;
    for (double b : HistogramBuckets.DURATION_BOUNDS) {
      // 2^k is the upper bound of native index 8k in schema 3
      int index = (int) Math.round(Math.log(b) / Math.log(2) * 8);
      assertThat(h.upperBound(index)).isEqualTo(b);
    }
  }

  @Test
  void classicCountsAreExactSumsOfNativeBuckets() {
    // 3 in bucket -160 = (2^(-161/8), 2^-20]: le 2^-20 s; 5 in -152 (le 2^-19); 2 in -144 (le 2^-18)
    ClassicHistogramBuckets c = HistogramBuckets.classic(Fixtures.UPLINK_DURATION, HistogramBuckets.DURATION_BOUNDS);
    long cumulative = 0;
    for (int i = 0; i < c.size(); i++) {
      cumulative += c.getCount(i);
      double le = c.getUpperBound(i);
      long expected =
          le < Math.scalb(1.0, -20) ? 0 : le < Math.scalb(1.0, -19) ? 3 : le < Math.scalb(1.0, -18) ? 8 : 10;
      assertThat(cumulative).as("le=%s", le).isEqualTo(expected);
    }
    assertThat(c.getUpperBound(c.size() - 1)).isEqualTo(Double.POSITIVE_INFINITY);
  }

  @Test
  void aDurationAboveTheLastClassicBoundIsInInfOnly() {
    NativeHistogram h = new NativeHistogram(3, Fixtures.ZERO_THRESHOLD, 0, 40, new long[] {7}, 40.0); // ~32 s
    ClassicHistogramBuckets c = HistogramBuckets.classic(h, HistogramBuckets.DURATION_BOUNDS);
    for (int i = 0; i < c.size() - 1; i++) {
      assertThat(c.getCount(i)).isZero();
    }
    assertThat(c.getCount(c.size() - 1)).isEqualTo(7);
  }

  @Test
  void theZeroBucketCountsBelowEveryClassicBound() {
    NativeHistogram h = new NativeHistogram(3, Fixtures.ZERO_THRESHOLD, 4, 0, new long[0], 1e-9);
    ClassicHistogramBuckets c = HistogramBuckets.classic(h, HistogramBuckets.DURATION_BOUNDS);
    assertThat(c.getCount(0)).isEqualTo(4);
  }

  @Test
  void theDataPointCarriesTheNativeBucketsAsCounted() {
    HistogramDataPointSnapshot p = HistogramBuckets.dataPoint(Fixtures.UPLINK_DURATION,
        HistogramBuckets.DURATION_BOUNDS, Labels.of("device", "up0"));
    assertThat(p.getNativeSchema()).isEqualTo(3);
    assertThat(p.getNativeZeroThreshold()).isEqualTo(Fixtures.ZERO_THRESHOLD);
    assertThat(p.getNativeBucketsForPositiveValues().getBucketIndex(0)).isEqualTo(-160);
    assertThat(p.getNativeBucketsForPositiveValues().getCount(0)).isEqualTo(3);
    assertThat(p.getCount()).isEqualTo(10);
    assertThat(p.getSum()).isEqualTo(15.6e-6);
    assertThat(p.hasClassicHistogramData()).isTrue();
    assertThat(p.hasNativeHistogramData()).isTrue();
  }
}

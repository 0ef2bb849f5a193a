package io.segscope.exporters;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.snapshots.ClassicHistogramBucket;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.segscope.exporters.Log2Buckets.SourceUnit;
import io.segscope.exporters.model.Log2Histogram;
import java.util.List;
import org.junit.jupiter.api.Test;

class Log2BucketsTest {

  private static List<String> buckets(ClassicHistogramBuckets b) {
    return b.stream().map(x -> x.getUpperBound() + ":" + x.getCount()).toList();
  }

  @Test
  void slotUpperBoundsAreTwoToTheIMinusOne() {
    assertThat(Log2Buckets.upperBound(0, SourceUnit.ONE)).isEqualTo(0.0);
    assertThat(Log2Buckets.upperBound(1, SourceUnit.ONE)).isEqualTo(1.0);
    assertThat(Log2Buckets.upperBound(2, SourceUnit.ONE)).isEqualTo(3.0);
    assertThat(Log2Buckets.upperBound(10, SourceUnit.ONE)).isEqualTo(1023.0);
    assertThat(Log2Buckets.upperBound(63, SourceUnit.ONE)).isEqualTo((double) Long.MAX_VALUE);
  }

  @Test
  void nanosecondBoundsBecomeExactDecimalSeconds() {
    assertThat(Double.toString(Log2Buckets.upperBound(10, SourceUnit.NANOSECONDS)))
        .isEqualTo("1.023E-6");
    assertThat(Double.toString(Log2Buckets.upperBound(30, SourceUnit.NANOSECONDS)))
        .isEqualTo("1.073741823");
    for (int slot = 0; slot < 64; slot++) {
      double expected =
          new java.math.BigDecimal(Log2Histogram.slotUpperBound(slot))
              .movePointLeft(9)
              .doubleValue();
      assertThat(Log2Buckets.upperBound(slot, SourceUnit.NANOSECONDS))
          .as("slot %d is the double nearest to (2^%d - 1) ns in seconds", slot, slot)
          .isEqualTo(expected);
    }
  }

  @Test
  void perSlotCountsUpToTheLastNonEmptySlotThenEmptyInfBucket() {
    Log2Histogram h = new Log2Histogram(new long[] {1, 0, 4, 0, 6, 0, 0}, 0);
    assertThat(buckets(Log2Buckets.buckets(h, SourceUnit.ONE)))
        .containsExactly("0.0:1", "1.0:0", "3.0:4", "7.0:0", "15.0:6", "Infinity:0");
  }

  @Test
  void emptyHistogramHasOnlyTheInfBucket() {
    assertThat(buckets(Log2Buckets.buckets(Log2Histogram.empty(), SourceUnit.NANOSECONDS)))
        .containsExactly("Infinity:0");
  }

  @Test
  void topSlotStaysFiniteSoInfHoldsNothingOfItsOwn() {
    long[] counts = new long[64];
    counts[63] = 2;
    counts[53] = 1;
    ClassicHistogramBuckets b = Log2Buckets.buckets(new Log2Histogram(counts, 0), SourceUnit.ONE);
    assertThat(b.size()).isEqualTo(65);
    assertThat(b.getUpperBound(63)).isEqualTo(9.223372036854776E18);
    assertThat(b.getCount(63)).isEqualTo(2);
    assertThat(b.getUpperBound(64)).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(b.getCount(64)).isZero();
    assertThat(b.stream().mapToDouble(ClassicHistogramBucket::getUpperBound).distinct().count())
        .as("distinct upper bounds even where 2^i - 1 rounds to 2^i in a double")
        .isEqualTo(65);
  }

  @Test
  void dataPointCarriesCountAndScaledSum() {
    Log2Histogram h = new Log2Histogram(new long[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 5, 2}, 15600);
    HistogramDataPointSnapshot p =
        Log2Buckets.dataPoint(h, SourceUnit.NANOSECONDS, Labels.of("device", "eth0"));
    assertThat(p.getCount()).isEqualTo(10);
    assertThat(p.getSum()).isEqualTo(1.56e-5);
    assertThat((Object) p.getLabels()).isEqualTo(Labels.of("device", "eth0"));
    assertThat(p.hasNativeHistogramData()).isFalse();
    assertThat(p.getClassicBuckets().getUpperBound(12)).isEqualTo(4.095e-6);
    assertThat(p.getClassicBuckets().getCount(12)).isEqualTo(2);
  }

  @Test
  void exposedBucketsAreCumulativeWhereTheModelIsPerBucket() throws Exception {
    Log2Histogram h = new Log2Histogram(new long[] {0, 2, 3, 0, 5}, 53);
    io.prometheus.metrics.model.snapshots.HistogramSnapshot snapshot =
        new io.prometheus.metrics.model.snapshots.HistogramSnapshot(
            new io.prometheus.metrics.model.snapshots.MetricMetadata("h", "help"),
            List.of(Log2Buckets.dataPoint(h, SourceUnit.ONE, Labels.EMPTY)));
    String text =
        io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter.create()
            .toDebugString(io.prometheus.metrics.model.snapshots.MetricSnapshots.of(snapshot));
    assertThat(text)
        .contains(
            "h_bucket{le=\"0.0\"} 0\n",
            "h_bucket{le=\"1.0\"} 2\n",
            "h_bucket{le=\"3.0\"} 5\n",
            "h_bucket{le=\"7.0\"} 5\n",
            "h_bucket{le=\"15.0\"} 10\n",
            "h_bucket{le=\"+Inf\"} 10\n",
            "h_count 10\n",
            "h_sum 53.0\n");
  }
}

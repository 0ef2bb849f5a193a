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
  void countsGetOneBucketPerSlotOverTheFixedRange() {
    Log2Histogram h = new Log2Histogram(new long[] {1, 0, 4, 0, 6, 0, 0}, 0);
    List<String> b = buckets(Log2Buckets.buckets(h, SourceUnit.ONE));
    assertThat(b).hasSize(19).startsWith("0.0:1", "1.0:0", "3.0:4", "7.0:0", "15.0:6", "31.0:0")
        .endsWith("131071.0:0", "Infinity:0");
  }

  @Test
  void everyHistogramOfAUnitHasTheSameBoundsSoSeriesCanBeSummed() {
    List<Double> empty = Log2Buckets.buckets(Log2Histogram.empty(), SourceUnit.NANOSECONDS).stream()
        .map(ClassicHistogramBucket::getUpperBound).toList();
    long[] counts = new long[40];
    counts[20] = 7;
    List<Double> full = Log2Buckets.buckets(new Log2Histogram(counts, 1), SourceUnit.NANOSECONDS).stream()
        .map(ClassicHistogramBucket::getUpperBound).toList();
    assertThat(full).isEqualTo(empty).hasSize(26);
    assertThat(empty.get(0)).isEqualTo(1.023e-6);
    assertThat(empty.get(24)).isEqualTo(17.179869183);
    assertThat(buckets(Log2Buckets.buckets(Log2Histogram.empty(), SourceUnit.NANOSECONDS)))
        .allMatch(x -> x.endsWith(":0"));
  }

  @Test
  void slotsBelowTheRangeFoldIntoTheFirstBucketAndAboveItIntoInf() {
    long[] counts = new long[64];
    counts[0] = 1; // 0 ns
    counts[5] = 2; // 16..31 ns
    counts[10] = 3; // 512..1023 ns: the first bucket's own slot
    counts[11] = 4;
    counts[35] = 5; // 2^34 .. 2^35-1 ns: above the last finite bound
    counts[63] = 6;
    ClassicHistogramBuckets b = Log2Buckets.buckets(new Log2Histogram(counts, 0), SourceUnit.NANOSECONDS);
    assertThat(b.getCount(0)).as("slots 0..10 are all <= 1023 ns").isEqualTo(6);
    assertThat(b.getCount(1)).isEqualTo(4);
    assertThat(b.getUpperBound(b.size() - 1)).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(b.getCount(b.size() - 1)).as("slots 35 and 63 exceed 17.18 s").isEqualTo(11);
    assertThat(b.stream().mapToLong(ClassicHistogramBucket::getCount).sum()).isEqualTo(21);
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
    // slot 12 ([2048, 4095] ns) is bucket 2 of the nanosecond range (slots 10..34)
    assertThat(p.getClassicBuckets().getUpperBound(2)).isEqualTo(4.095e-6);
    assertThat(p.getClassicBuckets().getCount(2)).isEqualTo(2);
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

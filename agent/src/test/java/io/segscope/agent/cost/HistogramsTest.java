package io.segscope.agent.cost;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.exporters.model.NativeHistogram;
import io.segscope.probes.wire.DurationBuckets;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;

/**
 * The probes' duration slots become the native buckets they were counted for: a duration of v ns
 * counted in the kernel's slot for v lands, after {@link Histograms#duration}, in the native bucket
 * whose (2^((i-1)/8), 2^(i/8)] seconds holds v (decided exactly, with integers), or in the zero
 * bucket when v is at most its threshold. (That the kernel's slot for v is {@link
 * DurationBuckets#slotOf}: DurationSlotCompiledTest, with the compiled C.)
 */
class HistogramsTest {
  private static final BigInteger TEN_POW_72 = BigInteger.TEN.pow(72);

  /** v ns <= 2^(i/8) s, exactly: v^8 * 2^max(0,-i) <= 10^72 * 2^max(0,i). */
  private static boolean atMostBound(long v, int i) {
    return BigInteger.valueOf(v).pow(8).shiftLeft(Math.max(0, -i))
        .compareTo(TEN_POW_72.shiftLeft(Math.max(0, i))) <= 0;
  }

  @Test
  void aDurationCountedInItsSlotIsExportedInItsNativeBucket() {
    int checked = 0;
    for (int i = DurationBuckets.MIN_INDEX - 1; i <= DurationBuckets.MAX_INDEX; i++) {
      long t = DurationBuckets.upperBoundNanos(i);
      for (long v = Math.max(0, t - 1); v <= t + 1; v++) {
        long[] slots = new long[DurationBuckets.SLOTS];
        slots[DurationBuckets.slotOf(v)] = 1;
        NativeHistogram h = Histograms.duration(slots, v);
        assertThat(h.count()).isEqualTo(1);
        assertThat(h.sum()).isEqualTo(v / 1e9);
        if (h.zeroCount() == 1) {
          assertThat(atMostBound(v, DurationBuckets.MIN_INDEX - 1)).as("%d ns in the zero bucket", v).isTrue();
          assertThat(h.zeroThreshold()).isEqualTo(Math.pow(2, (DurationBuckets.MIN_INDEX - 1) / 8.0));
        } else {
          assertThat(h.counts()).as("%d ns: one bucket", v).containsExactly(1);
          int index = h.offset();
          if (atMostBound(v, DurationBuckets.MAX_INDEX)) {
            assertThat(atMostBound(v, index)).as("%d ns <= 2^(%d/8) s", v, index).isTrue();
            assertThat(atMostBound(v, index - 1)).as("%d ns > 2^(%d/8) s", v, index - 1).isFalse();
          } else { // above 2^8 s: clamped into the last bucket (docs/metrics.md)
            assertThat(index).as("%d ns, above the last bucket", v).isEqualTo(DurationBuckets.MAX_INDEX);
          }
        }
        checked++;
      }
    }
    assertThat(checked).isGreaterThan(800);
  }

  @Test
  void theZeroBucketThresholdIsTheLowestKeptBucketsLowerBound() {
    assertThat(Histograms.EMPTY_DURATION.schema()).isEqualTo(3);
    assertThat(Histograms.EMPTY_DURATION.zeroThreshold())
        .isEqualTo(Histograms.EMPTY_DURATION.upperBound(DurationBuckets.MIN_INDEX - 1));
  }

  /** Durations in the kernel's slots, as the probes count them. */
  private static NativeHistogram counted(long... nanos) {
    long[] slots = new long[DurationBuckets.SLOTS];
    long sum = 0;
    for (long v : nanos) {
      slots[DurationBuckets.slotOf(v)]++;
      sum += v;
    }
    return Histograms.duration(slots, sum);
  }

  @Test
  void theMeansErrorComesFromTheSamplesSpreadAndShrinksWithTheirNumber() {
    // 1,000 samples: half 8 us, half 12 us; mean 10 us, sd ~2 us: 1.96 * 2 / sqrt(1000) / 10 = 1.24 %,
    // within the 9 % bucket width of the exact figure
    long[] sample = new long[1000];
    for (int i = 0; i < sample.length; i++) {
      sample[i] = i % 2 == 0 ? 8000 : 12000;
    }
    double exact = 1.96 * (2000.0 * Math.sqrt(1000.0 / 999)) / Math.sqrt(1000) / 10000;
    double e = Histograms.meanRelativeError(counted(sample), 1e9);
    assertThat(e).isBetween(0.85 * exact, 1.15 * exact);
    // four times the samples, half the error
    long[] more = new long[4000];
    for (int i = 0; i < more.length; i++) {
      more[i] = sample[i % 1000];
    }
    assertThat(Histograms.meanRelativeError(counted(more), 1e9)).isCloseTo(e / 2,
        org.assertj.core.api.Assertions.within(e * 0.02));
    // all alike: no spread beyond the bucket's, so (almost) no error
    long[] same = new long[1000];
    java.util.Arrays.fill(same, 9000);
    assertThat(Histograms.meanRelativeError(counted(same), 1e9)).isLessThan(1e-9);
  }

  @Test
  void everyEventTimedHasNoSamplingErrorAndTooFewSamplesHaveNoneKnown() {
    assertThat(Histograms.meanRelativeError(counted(8000, 12000, 9000), 3)).isZero();
    // the finite-population correction: timing 3,999 of 4,000 leaves almost nothing unknown
    long[] sample = new long[3999];
    for (int i = 0; i < sample.length; i++) {
      sample[i] = i % 2 == 0 ? 8000 : 12000;
    }
    assertThat(Histograms.meanRelativeError(counted(sample), 4000))
        .isLessThan(0.02 * Histograms.meanRelativeError(counted(sample), 1e9));
    assertThat(Histograms.meanRelativeError(counted(8000), 100)).isNaN();
  }
}

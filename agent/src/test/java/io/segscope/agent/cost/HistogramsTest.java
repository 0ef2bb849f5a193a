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
}

package io.segscope.exporters.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class Log2HistogramTest {

  @Test
  void slotBoundsFollowBccLog2Slots() {
    assertThat(Log2Histogram.slotLowerBound(0)).isZero();
    assertThat(Log2Histogram.slotUpperBound(0)).isZero();
    assertThat(Log2Histogram.slotLowerBound(1)).isEqualTo(1);
    assertThat(Log2Histogram.slotUpperBound(1)).isEqualTo(1);
    assertThat(Log2Histogram.slotLowerBound(2)).isEqualTo(2);
    assertThat(Log2Histogram.slotUpperBound(2)).isEqualTo(3);
    assertThat(Log2Histogram.slotLowerBound(11)).isEqualTo(1024);
    assertThat(Log2Histogram.slotUpperBound(11)).isEqualTo(2047);
    assertThat(Log2Histogram.slotLowerBound(63)).isEqualTo(1L << 62);
    assertThat(Log2Histogram.slotUpperBound(63)).isEqualTo(Long.MAX_VALUE);
    for (int slot = 1; slot < 64; slot++) {
      assertThat(Log2Histogram.slotLowerBound(slot))
          .as("slot %d starts right after slot %d ends", slot, slot - 1)
          .isEqualTo(Log2Histogram.slotUpperBound(slot - 1) + 1);
    }
    assertThatThrownBy(() -> Log2Histogram.slotUpperBound(64))
        .hasMessageContaining("slot must be within [0, 63], got 64");
  }

  @Test
  void rejectsNegativeCountsNamingTheSlot() {
    assertThatThrownBy(() -> new Log2Histogram(new long[] {1, -2}, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Log2Histogram.counts[1] must not be negative, got -2");
  }

  @Test
  void rejectsMoreThan64Slots() {
    assertThatThrownBy(() -> new Log2Histogram(new long[65], 0))
        .hasMessage("Log2Histogram.counts must have at most 64 slots, got 65");
    assertThat(new Log2Histogram(new long[64], 0).isEmpty()).isTrue();
  }

  @Test
  void rejectsBadSumsAndNullCounts() {
    assertThatThrownBy(() -> new Log2Histogram(new long[] {1}, -1))
        .hasMessageContaining("sum must be finite and not negative, got -1.0");
    assertThatThrownBy(() -> new Log2Histogram(new long[] {1}, Double.NaN))
        .hasMessageContaining("got NaN");
    assertThatThrownBy(() -> new Log2Histogram(new long[] {1}, Double.POSITIVE_INFINITY))
        .hasMessageContaining("got Infinity");
    assertThatThrownBy(() -> new Log2Histogram(null, 0))
        .hasMessage("Log2Histogram.counts must not be null");
  }

  @Test
  void rejectsATotalThatOverflows() {
    assertThatThrownBy(() -> new Log2Histogram(new long[] {Long.MAX_VALUE, 1}, 0))
        .hasMessage("Log2Histogram total count must fit in a long");
  }

  @Test
  void copiesCountsInAndOut() {
    long[] counts = {1, 2, 3};
    Log2Histogram h = new Log2Histogram(counts, 10);
    counts[0] = 100;
    assertThat(h.counts()).containsExactly(1, 2, 3);
    h.counts()[1] = 100;
    assertThat(h.count(1)).isEqualTo(2);
  }

  @Test
  void equalityIsByContentIgnoringTrailingEmptySlots() {
    Log2Histogram a = new Log2Histogram(new long[] {0, 4, 0, 0}, 4);
    Log2Histogram b = new Log2Histogram(new long[] {0, 4}, 4);
    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(a.slots()).isEqualTo(2);
    assertThat(a).isNotEqualTo(new Log2Histogram(new long[] {0, 4}, 5));
    assertThat(a).isNotEqualTo(new Log2Histogram(new long[] {4}, 4));
    assertThat(new Log2Histogram(new long[3], 0)).isEqualTo(Log2Histogram.empty());
    assertThat(a.toString()).isEqualTo("Log2Histogram[counts=[0, 4], sum=4.0]");
  }

  @Test
  void countSumsAllSlots() {
    assertThat(new Log2Histogram(new long[] {1, 2, 0, 7}, 0).count()).isEqualTo(10);
    assertThat(Log2Histogram.empty().count()).isZero();
    assertThat(new Log2Histogram(new long[] {1, 2}, 0).count(40)).isZero();
  }

  @Test
  void plusAddsSlotsAndSums() {
    Log2Histogram a = new Log2Histogram(new long[] {1, 2}, 5);
    Log2Histogram b = new Log2Histogram(new long[] {0, 1, 0, 3}, 20);
    assertThat(a.plus(b)).isEqualTo(new Log2Histogram(new long[] {1, 3, 0, 3}, 25));
    assertThat(a.plus(Log2Histogram.empty())).isEqualTo(a);
    assertThatThrownBy(() -> new Log2Histogram(new long[] {Long.MAX_VALUE}, 0)
            .plus(new Log2Histogram(new long[] {1}, 0)))
        .isInstanceOf(ArithmeticException.class)
        .hasMessage("add Log2Histogram: slot 0 overflows a long");
  }

  @Test
  void quantileOfEmptyIsNaN() {
    assertThat(Log2Histogram.empty().quantile(0.5)).isNaN();
  }

  @Test
  void quantileRejectsQOutsideUnitInterval() {
    Log2Histogram h = new Log2Histogram(new long[] {1}, 0);
    assertThatThrownBy(() -> h.quantile(1.5)).hasMessage("quantile q must be within [0, 1], got 1.5");
    assertThatThrownBy(() -> h.quantile(-0.1)).hasMessageContaining("got -0.1");
    assertThatThrownBy(() -> h.quantile(Double.NaN)).hasMessageContaining("got NaN");
  }

  @Test
  void quantileInterpolatesLinearlyWithinTheSlot() {
    // 10 observations in slot 11 = [1024, 2047]
    Log2Histogram h = new Log2Histogram(new long[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10}, 15000);
    assertThat(h.quantile(0)).isEqualTo(1024);
    assertThat(h.quantile(0.5)).isCloseTo(1024 + 0.5 * 1023, within(1e-9));
    assertThat(h.quantile(0.9)).isCloseTo(1024 + 0.9 * 1023, within(1e-9));
    assertThat(h.quantile(1)).isEqualTo(2047);
  }

  @Test
  void quantileFindsTheSlotHoldingTheRank() {
    // slot 1 {1}: 2 obs, slot 3 [4, 7]: 6 obs, slot 5 [16, 31]: 2 obs
    Log2Histogram h = new Log2Histogram(new long[] {0, 2, 0, 6, 0, 2}, 0);
    assertThat(h.quantile(0.1)).isEqualTo(1); // rank 1 in slot 1, a single value
    assertThat(h.quantile(0.2)).isEqualTo(1); // rank 2 is the last in slot 1
    assertThat(h.quantile(0.5)).isCloseTo(4 + 3 * (3.0 / 6), within(1e-9)); // rank 5: 3rd of 6
    assertThat(h.quantile(0.8)).isEqualTo(7); // rank 8: end of slot 3
    assertThat(h.quantile(0.9)).isCloseTo(16 + 15 * 0.5, within(1e-9));
    assertThat(h.quantile(0.99)).isBetween(16.0, 31.0);
  }

  @Test
  void quantileOfZerosIsZero() {
    Log2Histogram h = new Log2Histogram(new long[] {5}, 0);
    assertThat(h.quantile(0)).isZero();
    assertThat(h.quantile(1)).isZero();
  }

  @Test
  void quantileStaysWithinTheSlotOfTheTrueValue() {
    // 1000 observations, one per value 1..1000, binned the way bcc does
    long[] counts = new long[64];
    double sum = 0;
    for (long v = 1; v <= 1000; v++) {
      counts[64 - Long.numberOfLeadingZeros(v)]++;
      sum += v;
    }
    Log2Histogram h = new Log2Histogram(counts, sum);
    for (double q : new double[] {0.01, 0.25, 0.5, 0.75, 0.9, 0.99}) {
      long truth = (long) Math.ceil(q * 1000);
      int slot = 64 - Long.numberOfLeadingZeros(truth);
      assertThat(h.quantile(q))
          .as("q=%s, true value %d in slot %d", q, truth, slot)
          .isBetween(
              (double) Log2Histogram.slotLowerBound(slot),
              (double) Log2Histogram.slotUpperBound(slot));
    }
  }
}

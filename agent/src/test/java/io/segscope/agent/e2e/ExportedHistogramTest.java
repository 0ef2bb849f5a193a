package io.segscope.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** {@link ExportedHistogram#since}: what was observed between two scrapes of one series (the guest test's delta). */
class ExportedHistogramTest {
  private static final double[] UPPER = {0.25, 0.5, 1, Double.POSITIVE_INFINITY};

  private static ExportedHistogram h(long zero, long[] cumulative, double sum, long... indexAndCount) {
    TreeMap<Integer, Long> b = new TreeMap<>();
    for (int i = 0; i < indexAndCount.length; i += 2) {
      b.put((int) indexAndCount[i], indexAndCount[i + 1]);
    }
    long count = zero + b.values().stream().mapToLong(Long::longValue).sum();
    return new ExportedHistogram(0, 0.125, zero, b, UPPER, cumulative, count, sum);
  }

  @Test
  void subtractsEveryNativeAndClassicCountAndDropsEmptiedBuckets() {
    ExportedHistogram before = h(1, new long[] {2, 3, 4, 4}, 1.5, -2, 1, -1, 1, 0, 1);
    ExportedHistogram after = h(1, new long[] {2, 6, 9, 9}, 5.0, -2, 1, -1, 4, 0, 3);
    ExportedHistogram d = after.since(before);
    assertThat(d.zeroCount()).isZero();
    assertThat(d.buckets()).containsExactly(Map.entry(-1, 3L), Map.entry(0, 2L));
    assertThat(d.classicCumulative()).containsExactly(0, 3, 5, 5);
    assertThat(d.count()).isEqualTo(5);
    assertThat(d.sum()).isEqualTo(3.5);
    // all five new observations lie in (0.25, 1]: the median is inside (0.25, 0.5]
    assertThat(d.nativeQuantile(0.5)).isBetween(0.25, 0.5);
  }

  @Test
  void aSeriesThatDidNotExistBeforeIsAllNew() {
    ExportedHistogram after = h(0, new long[] {0, 1, 1, 1}, 0.3, -1, 1);
    assertThat(after.since(null)).isSameAs(after);
  }

  @Test
  void aResetSeriesIsAnErrorNotANegativeCount() {
    ExportedHistogram before = h(0, new long[] {0, 2, 2, 2}, 0.6, -1, 2);
    ExportedHistogram after = h(0, new long[] {0, 1, 1, 1}, 0.3, -1, 1);
    assertThatThrownBy(() -> after.since(before)).isInstanceOf(AssertionError.class)
        .hasMessageContaining("went down");
  }
}

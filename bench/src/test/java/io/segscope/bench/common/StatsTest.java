package io.segscope.bench.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatsTest {
  @Test
  void medianInterpolatesBetweenTheTwoMiddleValues() {
    assertThat(Stats.median(List.of(4.0, 1.0, 3.0, 2.0))).isEqualTo(2.5);
    assertThat(Stats.median(List.of(5.0, 1.0, 3.0))).isEqualTo(3.0);
  }

  @Test
  void quantileFollowsRType7() {
    List<Double> v = new ArrayList<>();
    for (int i = 1; i <= 100; i++) {
      v.add((double) i);
    }
    // h = 99 * 0.99 = 98.01 → 99 + 0.01 * (100 - 99)
    assertThat(Stats.quantile(v, 0.99)).isCloseTo(99.01, within(1e-9));
    assertThat(Stats.quantile(v, 0)).isEqualTo(1.0);
    assertThat(Stats.quantile(v, 1)).isEqualTo(100.0);
  }

  @Test
  void summaryHasMinMaxMean() {
    Stats.Summary s = Stats.summarize(List.of(2.0, 8.0, 5.0));
    assertThat(s.n()).isEqualTo(3);
    assertThat(s.min()).isEqualTo(2.0);
    assertThat(s.max()).isEqualTo(8.0);
    assertThat(s.mean()).isEqualTo(5.0);
    assertThat(s.p50()).isEqualTo(5.0);
  }

  @Test
  void emptySamplesAndBadQuantilesAreRefused() {
    assertThatThrownBy(() -> Stats.median(List.of())).hasMessageContaining("no values");
    assertThatThrownBy(() -> Stats.quantile(List.of(1.0), 1.5)).hasMessageContaining("q must be in [0, 1]");
  }
}

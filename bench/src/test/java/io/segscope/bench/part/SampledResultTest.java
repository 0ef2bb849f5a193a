package io.segscope.bench.part;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class SampledResultTest {
  /** 100 segmentations: 50 at 8,000 ns, 40 at 10,000, 9 at 16,000, 1 at 40,000 (in 64 ns steps). */
  private static TreeMap<Long, Long> steps() {
    TreeMap<Long, Long> s = new TreeMap<>();
    s.put(8000 / 64L, 50L);
    s.put(10000 / 64L, 40L);
    s.put(16000 / 64L, 9L);
    s.put(40000 / 64L, 1L);
    return s;
  }

  private static SampledResult result(long skbs, long timed, double timedNanos, double[] q) {
    long sum = 50 * 8000L + 40 * 10000L + 9 * 16000L + 40000L;
    return new SampledResult(60, skbs, timed, timedNanos, 6, 0, q, 0.02, 100, sum, steps());
  }

  @Test
  void theEstimateIsTheExactCountTimesTheWindowsMean() {
    // 10 of 100 timed at a mean of 9,840 ns: 984,000 ns estimated; the exact sum is 984,000
    SampledResult r = result(100, 10, 98_400, new double[] {8000, 10000, 16000});
    assertThat(r.estimatedNanos()).isCloseTo(984_000, within(1e-6));
    assertThat(r.estimateError()).isCloseTo(0, within(1e-12));
    // a window that saw only the fast ones underestimates by 8,000 / 9,840
    assertThat(result(100, 10, 80_000, new double[3]).estimateError()).isCloseTo(1 - 8000.0 / 9840, within(1e-9));
    assertThat(result(100, 0, 0, new double[3]).estimatedNanos()).isNaN();
  }

  @Test
  void exactQuantilesAreTheOraclesStepsAndTheWorstErrorComparesAllThree() {
    SampledResult r = result(100, 10, 98_400, new double[] {7940, 9970, 17600});
    // rank 50 -> the 8,000 step, rank 90 -> 10,000, rank 99 -> 16,000 (step middles: +32 ns, minus the step's rest)
    assertThat(r.exactQuantileNanos(0.5)).isEqualTo(8000 / 64 * 64 + 32.0);
    assertThat(r.exactQuantileNanos(0.9)).isEqualTo(10000 / 64 * 64 + 32.0);
    assertThat(r.exactQuantileNanos(0.99)).isEqualTo(16000 / 64 * 64 + 32.0);
    assertThat(r.exactQuantileNanos(1.0)).isEqualTo(40000 / 64 * 64 + 32.0);
    double p99 = 16000 / 64 * 64 + 32.0;
    assertThat(r.worstQuantileError()).isCloseTo((17600 - p99) / p99, within(1e-12));
    assertThat(result(100, 10, 98_400, new double[] {Double.NaN, 1, 1}).worstQuantileError()).isNaN();
  }
}

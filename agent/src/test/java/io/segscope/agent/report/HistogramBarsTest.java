package io.segscope.agent.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.exporters.model.NativeHistogram;
import org.junit.jupiter.api.Test;

class HistogramBarsTest {
  private static final double Z = Math.pow(2, -217 / 8.0);

  @Test
  void printsOnePowerOfTwoPerLineWithBarsScaledToTheLargestAndTheQuantiles() {
    // schema 3 over seconds: 26 near 4 us (bucket -145), 17495 near 8 us (-137), 46 near 32 us (-121)
    long[] counts = new long[25];
    counts[0] = 26;
    counts[8] = 17495;
    counts[24] = 46;
    NativeHistogram h = new NativeHistogram(3, Z, 0, -145, counts, 0.15);
    String out = HistogramBars.render(h, "nsecs", 1e9);
    assertThat(out.lines()).containsExactly(
        "     nsecs                 : count     distribution",
        "      1907 -> 3815       : 26        |*                                       |",
        "      3815 -> 7629       : 17495     |****************************************|",
        "      7629 -> 15259      : 0         |                                        |",
        "     15259 -> 30518      : 46        |*                                       |",
        out.lines().toList().get(5));
    assertThat(out.lines().toList().get(5)).startsWith("     p50 ").contains("p90 ").contains("p99 ")
        .endsWith("(17567 observations)");
  }

  @Test
  void countsPrintAsIntegersAndTheZeroBucketFirst() {
    NativeHistogram h = new NativeHistogram(0, 0, 3, 6, new long[] {1}, 45);
    String out = HistogramBars.render(h, "segments", 1);
    assertThat(out).contains("         0 -> 0          : 3 ").contains("        32 -> 64         : 1 ");
  }

  @Test
  void emptyHistogramSaysSo() {
    assertThat(HistogramBars.render(NativeHistogram.empty(3, Z), "nsecs", 1e9)).contains("no observations");
  }
}

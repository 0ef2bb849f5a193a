package io.segscope.agent.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.exporters.model.Log2Histogram;
import org.junit.jupiter.api.Test;

class Log2BarsTest {

  @Test
  void printsOnlyTheOccupiedRangeWithBarsScaledToTheLargestSlot() {
    long[] slots = new long[40];
    slots[13] = 26; // [4096, 8191]
    slots[14] = 17495; // [8192, 16383]
    slots[16] = 46; // [32768, 65535]
    String out = Log2Bars.render(new Log2Histogram(slots, 1), "nsecs");
    assertThat(out.lines()).containsExactly(
        "     nsecs               : count     distribution",
        "      4096 -> 8191       : 26        |*                                       |",
        "      8192 -> 16383      : 17495     |****************************************|",
        "     16384 -> 32767      : 0         |                                        |",
        "     32768 -> 65535      : 46        |*                                       |");
  }

  @Test
  void slotZeroHoldsZero() {
    String out = Log2Bars.render(new Log2Histogram(new long[] {3, 1}, 1), "segments");
    assertThat(out).contains("         0 -> 0          : 3 ").contains("         1 -> 1          : 1 ");
  }

  @Test
  void emptyHistogramSaysSo() {
    assertThat(Log2Bars.render(Log2Histogram.empty(), "nsecs")).contains("no observations");
  }
}

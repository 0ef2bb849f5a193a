package io.segscope.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.bench.part.GuestCostResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GuestTargetsTest {
  @Test
  void kfreeSkbIsToleratedUnderItsKernelName() {
    assertThat(GuestTargets.beyondDrops(Map.of("tp_btf__kfree_s", 11L))).isZero();
    assertThat(GuestTargets.beyondDrops(Map.of("tp_btf__kfree_s", 11L, "tp_btf__net_dev", 2L))).isEqualTo(2);
  }

  @Test
  void theDefaultWindowsAverageOutsideAndInside() {
    GuestCostResult.SegmentationTime t = new GuestCostResult.SegmentationTime("fentry", 10, 100, 100_000);
    GuestCostResult.Stretch out = new GuestCostResult.Stretch(10, 100, 0, 0,
        List.of(new GuestCostResult.ProgramCost("kretfunc____skb", 100, 1_000)), Map.of(), false, 0, null);
    GuestCostResult.Stretch in = new GuestCostResult.Stretch(10, 100, 100, 100_000,
        List.of(new GuestCostResult.ProgramCost("kretfunc____skb", 100, 11_000)), Map.of(), true, 0, null);
    GuestCostResult.ModeCost m = new GuestCostResult.ModeCost("fentry", 1, out, in, Map.of(), 10, List.of(
        new GuestCostResult.PpsPair(0, true, 99, 100), new GuestCostResult.PpsPair(1, false, 101, 100),
        new GuestCostResult.PpsPair(2, true, 90, 100)), Map.of(), 0.1);
    assertThat(out.shareOf(t)).isEqualTo(0.01);
    assertThat(in.shareOf(t)).isEqualTo(0.11);
    assertThat(m.averageShare(t)).isCloseTo(0.9 * 0.01 + 0.1 * 0.11, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(m.ppsRatio()).isEqualTo(0.99);
    assertThat(out.runsPerSuperPacket()).isEqualTo(1.0);
    // a segmentation time taken next to the stretch is its yardstick: 2 µs there, 1 µs in the always run
    assertThat(out.withNear(new GuestCostResult.SegmentationTime("fentry", 10, 50, 100_000)).shareOf(t))
        .isEqualTo(0.005);
    assertThat(out.withNear(new GuestCostResult.SegmentationTime("fentry", 10, 0, 0)).shareOf(t)).isEqualTo(0.01);
  }
}

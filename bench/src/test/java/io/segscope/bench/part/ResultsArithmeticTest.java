package io.segscope.bench.part;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** What the report computes from the raw results. */
class ResultsArithmeticTest {
  @Test
  void kernelFiguresArePerSuperPacketOfTheWindow() {
    KernelResult k = new KernelResult("tracepoint", "tp_btf", 10, 6, List.of(
        new KernelResult.ProgramCost("tp_btf__consume_skb", "consume_skb", 6500, 650_000),
        new KernelResult.ProgramCost("tp_btf__net_dev_queue", "net_dev_queue", 11_400, 1_140_000),
        new KernelResult.ProgramCost("tp_btf__qdisc_dequeue", "qdisc_dequeue", 0, 0)),
        List.of(
            new KernelResult.EventRate("consume_skb", true, 6500, 6500 * 35),
            new KernelResult.EventRate("net_dev_start_xmit", false, 45_000, 45_000 * 36)),
        1000, 45_000, 1000, 8_800_000, List.of(), List.of("tp_btf__net_dev_queue", "tp_btf__qdisc_dequeue"));
    assertThat(k.totalRuns()).isEqualTo(17_900);
    assertThat(k.runsPerSuperPacket()).isEqualTo(17.9);
    assertThat(k.shareOfSegmentation()).isCloseTo(1_790_000 / 8_800_000.0, within(1e-12));
    assertThat(k.meanSegmentationNanos()).isEqualTo(8800);
    assertThat(k.firingsPerSuperPacket("consume_skb")).isEqualTo(6.5);
    assertThat(k.firingsPerSuperPacket("kfree_skb")).isNaN();
    assertThat(k.event("net_dev_start_xmit").nsPerRun()).isEqualTo(36);
    assertThat(k.programs().get(2).nsPerRun()).isNaN();
    assertThat(k.countingRunsPerSuperPacket()).as("outside the windows: consume_skb alone").isEqualTo(6.5);
    assertThat(k.countingShareOfSegmentation()).isCloseTo(650_000 / 8_800_000.0, within(1e-12));
    assertThat(k.shareAtDuty(0.1)).isCloseTo((650_000 + 114_000) / 8_800_000.0, within(1e-12));
  }

  private static OverheadResult.Run run(int pair, String s, boolean with, double gbps) {
    return new OverheadResult.Run(pair, s, with, gbps, with ? 50 : 40, 30);
  }

  private static OverheadResult.UdpRun udp(int pair, boolean with, long cpu) {
    return new OverheadResult.UdpRun(pair, with, 1000, 45_000, cpu, 1_000_000_000, with ? 1000 : 0,
        with ? 1000 : 0, with ? 8_000_000 : 0);
  }

  @Test
  void theFrozenAgentsShareIsPerPairAgainstNoAgent() {
    OverheadResult o = new OverheadResult(3, 3, List.of(),
        List.of(udp(0, true, 45_000 * 110), udp(0, false, 45_000 * 100), udp(1, false, 45_000 * 200),
            udp(1, true, 45_000 * 204)),
        List.of(), List.of(), null, List.of(udp(0, true, 45_000 * 101), udp(1, true, 45_000 * 203)));
    OverheadResult.Spread frozen = o.udpFrozenCostPerSegment();
    assertThat(frozen.n()).isEqualTo(2);
    assertThat(frozen.min()).isCloseTo(1, within(1e-9));
    assertThat(frozen.max()).isCloseTo(3, within(1e-9));
    assertThat(o.udpFrozenNanosPerSegment().median()).isCloseTo(152, within(1e-9));
    assertThat(new OverheadResult(3, 3, List.of(), List.of(), List.of()).udpFrozenCostPerSegment().n())
        .as("results of runs before the frozen rounds").isZero();
  }

  @Test
  void ratiosAndCostsArePerPair() {
    OverheadResult o = new OverheadResult(3, 3, List.of(run(0, "S1", true, 9), run(0, "S1", false, 10),
        run(1, "S1", false, 10), run(1, "S1", true, 10), run(2, "S1", true, 11), run(2, "S1", false, 10),
        run(0, "S0", true, 1), run(0, "S0", false, 100)),
        List.of(udp(0, true, 45_000 * 110), udp(0, false, 45_000 * 100), udp(1, false, 45_000 * 200),
            udp(1, true, 45_000 * 204)),
        List.of(new OverheadResult.Start(4, 4.1, 2.5), new OverheadResult.Start(6, 6.2, -1)));
    OverheadResult.Spread s1 = o.throughputRatio("S1");
    assertThat(s1.n()).isEqualTo(3);
    assertThat(s1.median()).isCloseTo(1.0, within(1e-12));
    assertThat(s1.min()).isCloseTo(0.9, within(1e-12));
    assertThat(s1.max()).isCloseTo(1.1, within(1e-12));
    assertThat(o.senderCpuRatio("S1").median()).isCloseTo(1.25, within(1e-12));
    assertThat(o.medianGbps("S1", true)).isEqualTo(10.0);
    assertThat(o.throughputRatio("S2").n()).isZero();
    // per pair: +10 and +4 ns per segment, not the difference of medians
    OverheadResult.Spread d = o.udpCostPerSegment();
    assertThat(d.n()).isEqualTo(2);
    assertThat(d.min()).isCloseTo(4, within(1e-9));
    assertThat(d.max()).isCloseTo(10, within(1e-9));
    assertThat(o.udpSegmentsPerSuperPacket()).isEqualTo(45);
    assertThat(o.udpSegmentationNanos().median()).isEqualTo(8000);
    assertThat(o.firstScrape().median()).isEqualTo(5);
  }

  @Test
  void aDeviceWithNothingOnEitherSideHasNoError() {
    AccuracyResult.DeviceCount none = new AccuracyResult.DeviceCount("s", "r", 1, "d", 0, 0, 0, 0, 0, 0, 0, 0);
    assertThat(none.counted()).isFalse();
    assertThat(none.worstError()).isZero();
    AccuracyResult.DeviceCount inventedByTheAgent = new AccuracyResult.DeviceCount("s", "r", 1, "d", 5, 0, 0, 0, 0,
        0, 0, 0);
    assertThat(inventedByTheAgent.worstError()).isEqualTo(1.0);
  }
}

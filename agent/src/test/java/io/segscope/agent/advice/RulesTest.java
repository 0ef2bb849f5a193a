package io.segscope.agent.advice;

import static io.segscope.agent.advice.LabInventories.RECEIVER;
import static io.segscope.agent.advice.LabInventories.SENDER;
import static io.segscope.agent.advice.LabInventories.SWITCH;
import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.cost.Histograms;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.model.XdpAttachment;
import io.segscope.agent.inventory.model.XdpMode;
import io.segscope.device.DeviceId;
import io.segscope.exporters.model.DeviceRef;
import io.segscope.exporters.model.NativeHistogram;
import io.segscope.exporters.model.XdpDeviceStats;
import io.segscope.probes.wire.DurationBuckets;
import io.segscope.vocabulary.Cause;
import io.segscope.vocabulary.GsoType;
import io.segscope.vocabulary.Site;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

class RulesTest {

  private static final AdviceContext.Thresholds T = AdviceContext.Thresholds.DEFAULT;

  static List<String> shells(Finding f) {
    return f.commands().stream().map(Command::shell).toList();
  }

  private static List<Finding> advise(Inventory inv, Collection<DeviceCost> costs) {
    return new Recommender().evaluate(costs, new AdviceContext(inv, T, true));
  }

  // ---- gso_size_mismatch (S1)

  @Test
  void s1UplinkWhoseLimitIsASettingBelowItsCapIsRaised() {
    // S1 as on 6.18: up0 is a veth (tso_max_size 524280) lowered to 16384; the sender uses 65536
    var costs = Costs.window(
        Costs.gso(SWITCH, 3, "up0", 32066, 2089457356L, Cause.GSO_MAX_SIZE, 8000, 0),
        Costs.gso(SENDER, 2, "snd0", 0, 0, Cause.OTHER, 0, 32066));
    List<Finding> f = advise(LabInventories.s1(16384, "lab-snd"), costs);
    assertThat(f).singleElement().satisfies(x -> {
      assertThat(x.rule()).isEqualTo("gso_size_mismatch");
      assertThat(AdviceContext.label(x.subject())).isEqualTo("lab-sw/up0");
      assertThat(x.devices()).extracting(AdviceContext::label).containsExactly("lab-sw/up0");
      // raised to the smaller of its cap (524280) and what the feeders use (65536); the sender keeps 64 KiB
      assertThat(shells(x)).containsExactly("ip -n lab-sw link set dev up0 gso_max_size 65536");
      assertThat(x.evidence()).containsEntry("limit_case", "setting").containsEntry("device_tso_max_size", 524280L);
      assertThat((String) x.evidence().get("limit_case_why")).contains("gso_max_size 16384 is below its tso_max_size "
          + "524280 and the feeders' 65536");
      assertThat(x.summary()).contains("a setting below what its driver takes: raise it");
      assertThat(x.risk()).contains("lab-sw/up0 hands larger super-packets on").doesNotContain("smaller super-packets");
      assertThat(x.cpuSavingCores()).isCloseTo(32066 * 8000 / 1e9 / 3, Assertions.within(1e-9));
    });
  }

  @Test
  void s1OverIpv6RaisesTheUplinkWithGsoMaxSizeAlone() {
    // IPv6 traffic only: gso_max_size 65536 raises the IPv4 limit with it (at or below 64 KiB), which is fine
    var costs = Costs.window(
        Costs.gso(SWITCH, 3, "up0", 32066, 2089457356L, Cause.GSO_MAX_SIZE, 8000, 0, GsoType.TCP6, Site.XMIT),
        Costs.gso(SENDER, 2, "snd0", 0, 0, Cause.OTHER, 0, 32066));
    Finding x = advise(LabInventories.s1(16384, "lab-snd"), costs).get(0);
    assertThat(shells(x)).containsExactly("ip -n lab-sw link set dev up0 gso_max_size 65536");
    assertThat(x.risk()).doesNotContain("iproute2 6.3");
  }

  @Test
  void s1UplinkAtItsCapAsksTheSenderVethToMatch() {
    var costs = Costs.window(
        Costs.gso(SWITCH, 3, "up0", 32066, 2089457356L, Cause.GSO_MAX_SIZE, 8000, 0),
        Costs.gso(SENDER, 2, "snd0", 0, 0, Cause.OTHER, 0, 32066));
    List<Finding> f = advise(LabInventories.capped(LabInventories.s1(16384, "lab-snd"), SWITCH, 3), costs);
    assertThat(f).singleElement().satisfies(x -> {
      assertThat(x.rule()).isEqualTo("gso_size_mismatch");
      assertThat(AdviceContext.label(x.subject())).isEqualTo("lab-sw/up0");
      assertThat(x.devices()).extracting(AdviceContext::label).containsExactly("lab-sw/up0", "lab-snd/snd0");
      assertThat(shells(x)).containsExactly("ip -n lab-snd link set dev snd0 gso_max_size 16384");
      // 32066 x 8 us over 3 s = 0.0855 cores, every skb timed
      assertThat(x.cpuSavingCores()).isCloseTo(32066 * 8000 / 1e9 / 3, Assertions.within(1e-9));
      assertThat(x.evidence()).containsEntry("cause_gso_max_size_share", 1.0).containsEntry("device_gso_max_size",
          16384L).containsEntry("limit_case", "cap");
      assertThat((String) x.evidence().get("limit_case_why")).startsWith("at its cap: gso_max_size 16384 (tso_max_size "
          + "16384)");
      assertThat(x.summary()).contains("its driver's cap: bring the feeders down to it");
      assertThat(x.confidence()).isEqualTo("high");
      assertThat(x.severity()).isEqualTo("warning");
    });
  }

  @Test
  void aSettingBelowACapBelowTheFeedersIsRaisedToTheCapAndTheFeedersComeDownToIt() {
    // up0 at 16384 with a driver taking 32768; the sender at 65536: both change, to 32768
    var inv = LabInventories.withLink(LabInventories.s1(16384, "lab-snd"), SWITCH, 3,
        l -> LabInventories.withSizes(l, 16384, 16384, 32768));
    var costs = Costs.window(
        Costs.gso(SWITCH, 3, "up0", 32066, 2089457356L, Cause.GSO_MAX_SIZE, 8000, 0),
        Costs.gso(SENDER, 2, "snd0", 0, 0, Cause.OTHER, 0, 32066));
    Finding x = advise(inv, costs).get(0);
    assertThat(shells(x)).containsExactly("ip -n lab-sw link set dev up0 gso_max_size 32768",
        "ip -n lab-snd link set dev snd0 gso_max_size 32768");
    assertThat(x.evidence()).containsEntry("limit_case", "setting_and_cap");
    assertThat(x.risk()).contains("hands larger super-packets on").contains("smaller super-packets");
  }

  @Test
  void aGsoSegmentLimitBelowItsCapIsRaisedAndOneAtItsCapLowersTheFeeders() {
    // up0's gso_max_segs 16 under a driver taking 65535: raise it to what the sender uses (65535)
    var costs = Costs.window(
        Costs.gso(SWITCH, 3, "up0", 32066, 2089457356L, Cause.GSO_MAX_SEGS, 8000, 0),
        Costs.gso(SENDER, 2, "snd0", 0, 0, Cause.OTHER, 0, 32066));
    var lowered = LabInventories.withLink(LabInventories.s1(65536, "lab-snd"), SWITCH, 3,
        l -> LabInventories.withSegs(l, 16, 65535));
    Finding x = advise(lowered, costs).get(0);
    assertThat(shells(x)).containsExactly("ip -n lab-sw link set dev up0 gso_max_segs 65535");
    assertThat(x.evidence()).containsEntry("limit_case", "setting");
    assertThat(x.summary()).contains("gso_max_segs (16)");
    // at its cap (tso_max_segs 16): the sender comes down to 16 segments
    var cap = LabInventories.withLink(LabInventories.s1(65536, "lab-snd"), SWITCH, 3,
        l -> LabInventories.withSegs(l, 16, 16));
    Finding y = advise(cap, costs).get(0);
    assertThat(shells(y)).containsExactly("ip -n lab-snd link set dev snd0 gso_max_segs 16");
    assertThat(y.evidence()).containsEntry("limit_case", "cap");
  }

  @Test
  void aBridgeIsNeverRaised() {
    var br = LabInventories.s1(16384, "lab-snd").devices().stream().filter(d -> d.name().equals("br0")).findFirst()
        .orElseThrow();
    GsoSizeMismatchRule.Raise r = GsoSizeMismatchRule.raise(br, GsoSizeMismatchRule.Limits.of(br.link()), List.of(),
        true, true, true, true);
    assertThat(r.sets()).isEmpty();
    assertThat(r.why()).contains("bridge takes the smallest limit of its ports");
  }

  @Test
  void anUnnamedContainerNamespaceGetsAnNsenterCommand() {
    var costs = Costs.window(Costs.gso(SWITCH, 3, "up0", 32066, 2089457356L, Cause.GSO_MAX_SIZE, 8000, 0));
    List<Finding> f = advise(LabInventories.capped(LabInventories.s1(16384, ""), SWITCH, 3), costs);
    // the PID may be reused by a process in another namespace: the guard checks the inode entered
    assertThat(f).singleElement().extracting(RulesTest::shells).asList()
        .containsExactly("nsenter --net=/proc/4242/ns/net -- sh -c '" + NetnsCommands.GUARD + "' segscope-netns-check "
            + SENDER + " ip link set dev snd0 gso_max_size 16384");
  }

  @Test
  void aLimitTheKernelWouldRejectGivesNoAdvice() {
    // gso_max_size 300 is below MAX_TCP_HEADER + 1: rtnetlink refuses it for the sender (up0 at its cap: 300)
    var costs = Costs.window(Costs.gso(SWITCH, 3, "up0", 32066, 2089457356L, Cause.GSO_MAX_SIZE, 8000, 0));
    assertThat(advise(LabInventories.capped(LabInventories.s1(300, "lab-snd"), SWITCH, 3), costs)).isEmpty();
  }

  @Test
  void tooLittleEvidenceGivesNoAdvice() {
    // 30 super-packets in 3 s = 10/s, under the 20/s threshold
    var costs = Costs.window(Costs.gso(SWITCH, 3, "up0", 30, 1_950_000, Cause.GSO_MAX_SIZE, 8000, 0));
    assertThat(advise(LabInventories.s1(16384, "lab-snd"), costs)).isEmpty();
  }

  @Test
  void anotherCauseIsNotASizeMismatch() {
    var costs = Costs.window(Costs.gso(SWITCH, 3, "up0", 32066, 2089457356L, Cause.CHECKSUM, 8000, 0));
    assertThat(advise(LabInventories.s1(16384, "lab-snd"), costs)).isEmpty();
  }

  @Test
  void healthyS0GivesNoAdviceAtAll() {
    var costs = Costs.window(
        Costs.gso(SWITCH, 3, "up0", 0, 0, Cause.OTHER, 0, 95000),
        Costs.gso(SENDER, 2, "snd0", 0, 0, Cause.OTHER, 0, 95000),
        Costs.gso(SWITCH, 2, "snd0-br", 0, 0, Cause.OTHER, 0, 95000));
    assertThat(advise(LabInventories.s1(65536, "lab-snd"), costs)).isEmpty();
  }

  // ---- offload_disabled (S2)

  @Test
  void s2LowerVethWithTsoOffGetsEthtoolTsoOn() {
    var costs = Costs.window(Costs.gso(SWITCH, 2, "low0", 22000, 1_430_000_000L, Cause.FEATURE_MISSING, 7000, 0));
    List<Finding> f = advise(LabInventories.s2(LabInventories.vethFeatures("tx-tcp-segmentation",
        "tx-tcp6-segmentation", "tx-tcp-ecn-segmentation", "tx-tcp-mangleid-segmentation")), costs);
    assertThat(f).singleElement().satisfies(x -> {
      assertThat(x.rule()).isEqualTo("offload_disabled");
      assertThat(shells(x)).containsExactly("ip netns exec lab-low ethtool -K low0 tso on");
      assertThat(x.cpuSavingCores()).isGreaterThan(0);
    });
  }

  @Test
  void tsoNeedsScatterGatherSoTheCommandTurnsItOnToo() {
    var costs = Costs.window(Costs.gso(SWITCH, 2, "low0", 22000, 1_430_000_000L, Cause.FEATURE_MISSING, 7000, 0));
    List<Finding> f = advise(LabInventories.s2(LabInventories.vethFeatures("tx-scatter-gather",
        "tx-tcp-segmentation", "tx-tcp6-segmentation")), costs);
    assertThat(f).singleElement().extracting(RulesTest::shells).asList()
        .containsExactly("ip netns exec lab-low ethtool -K low0 sg on tso on");
  }

  @Test
  void aFixedOffFeatureGivesNoAdvice() {
    var costs = Costs.window(Costs.gso(SWITCH, 2, "low0", 22000, 1_430_000_000L, Cause.FEATURE_MISSING, 7000, 0));
    assertThat(advise(LabInventories.s2(LabInventories.fixedOff("tx-tcp-segmentation", "tx-tcp6-segmentation")),
        costs)).isEmpty();
  }

  // ---- generic_xdp_copy (S3)

  private static XdpDeviceStats xdp(long copied, long passed, Optional<NativeHistogram> timing, String mode) {
    return new XdpDeviceStats(new DeviceRef(DeviceId.of(RECEIVER, 2), "", "rcv0"), mode, copied, passed, copied * 65000,
        passed * 1500, timing);
  }

  /**
   * Issue 28: on S3's veth, driver mode made the host worse (3 alternating rounds in AdviceEndToEndIT: 8.4 -> 5.1
   * Gbit/s, 0.79 -> 1.52 ns/B of host kernel CPU): the veth copies the same skbs natively and its peer loses its
   * software GSO features. The finding stays, with an explanation and no command.
   */
  @Test
  void s3GenericXdpCopiesOnAVethAreExplainedNotMovedToDriverMode() {
    var costs = Costs.windowWith(new XdpDeviceStats[] {xdp(108000, 0, Optional.empty(), "tracepoint")});
    List<Finding> f = advise(LabInventories.s3(LabInventories.generic(77), "veth"), costs);
    assertThat(f).singleElement().satisfies(x -> {
      assertThat(x.rule()).isEqualTo("generic_xdp_copy");
      assertThat(x.commands()).isEmpty();
      assertThat(x.explanation()).contains("does not help on a veth").contains("software GSO features")
          .contains("tc BPF").contains("xdp.frags");
      assertThat(x.evidence()).containsEntry("driver_mode_helps", false).containsEntry("xdp_program_id", 77);
      assertThat(x.cpuSavingCores()).isCloseTo(36000 * 600e-9, Assertions.within(1e-9));
    });
  }

  /** A physical NIC (no link kind) runs XDP on its own buffers in driver mode: the same program moved there. */
  @Test
  void genericXdpCopiesOnAPhysicalDeviceAskForNativeModeWithTheSameProgram() {
    var costs = Costs.windowWith(new XdpDeviceStats[] {xdp(108000, 0, Optional.empty(), "tracepoint")});
    List<Finding> f = advise(LabInventories.s3(LabInventories.generic(77), ""), costs);
    assertThat(f).singleElement().satisfies(x -> {
      assertThat(x.rule()).isEqualTo("generic_xdp_copy");
      assertThat(shells(x)).containsExactly("bpftool prog pin id 77 /sys/fs/bpf/segscope-xdp-77",
          "nsenter --net=/run/netns/lab-rcv -- bpftool -- net detach xdpgeneric dev rcv0",
          "nsenter --net=/run/netns/lab-rcv -- bpftool -- net attach xdpdrv pinned /sys/fs/bpf/segscope-xdp-77 dev rcv0",
          "rm /sys/fs/bpf/segscope-xdp-77");
      // tracepoint mode cannot time copies: 36000/s x 600 ns, stated as an estimate
      assertThat(x.cpuSavingCores()).isCloseTo(36000 * 600e-9, Assertions.within(1e-9));
      assertThat(x.evidence().get("cpu_basis").toString()).contains("cannot time");
      assertThat(x.confidence()).isEqualTo("medium");
      assertThat(x.risk()).contains("xdp.frags").doesNotContain("peer");
      assertThat(x.explanation()).isEmpty();
      assertThat(x.evidence()).containsEntry("driver_mode_helps", true);
    });
  }

  @Test
  void timedCopiesAreMeasuredNotEstimated() {
    long[] slots = new long[DurationBuckets.SLOTS];
    slots[DurationBuckets.slotOf(700)] = 108000; // every copy in the native bucket of 700 ns
    var costs = Costs.windowWith(new XdpDeviceStats[] {xdp(108000, 0,
        Optional.of(Histograms.duration(slots, 108000L * 700)), "kprobe")});
    List<Finding> f = advise(LabInventories.s3(LabInventories.generic(77), "veth"), costs);
    assertThat(f).singleElement().satisfies(x -> {
      assertThat(x.cpuSavingCores()).isCloseTo(36000 * 700e-9, Assertions.within(1e-9));
      assertThat(x.confidence()).isEqualTo("high");
    });
  }

  @Test
  void noAdviceWhereTheDriverHasNoNativeXdpOrTheProgramIsNative() {
    var costs = Costs.windowWith(new XdpDeviceStats[] {xdp(108000, 0, Optional.empty(), "tracepoint")});
    assertThat(advise(LabInventories.s3(LabInventories.generic(77), "macvlan"), costs)).isEmpty();
    var drv = new XdpAttachment(XdpMode.DRIVER,
        OptionalInt.of(77), OptionalInt.of(77), OptionalInt.empty(),
        OptionalInt.empty());
    assertThat(advise(LabInventories.s3(drv, "veth"), costs)).isEmpty();
  }

  @Test
  void fewCopiesGiveNoAdvice() {
    var costs = Costs.windowWith(new XdpDeviceStats[] {xdp(150, 3000, Optional.empty(), "tracepoint")});
    assertThat(advise(LabInventories.s3(LabInventories.generic(77), "veth"), costs)).isEmpty();
  }

  // ---- big_tcp_headroom

  @Test
  void aPhysicalNicWithTsoHeadroomGetsAdvisoryBigTcp() {
    var inv = LabInventories.s3(LabInventories.NO_XDP, ""); // rcv0 as a physical NIC: tso_max_size 524280
    var costs = Costs.window(Costs.gso(RECEIVER, 2, "rcv0", 0, 0, Cause.OTHER, 0, 90000));
    List<Finding> f = advise(inv, costs);
    assertThat(f).singleElement().satisfies(x -> {
      assertThat(x.rule()).isEqualTo("big_tcp_headroom");
      assertThat(x.severity()).isEqualTo("info");
      // gso_ipv4_max_size is a keyword of iproute2 6.3+ only: the IPv4 half is explained, not commanded
      assertThat(shells(x)).containsExactly("ip -n lab-rcv link set dev rcv0 gso_max_size 185000");
      assertThat(x.explanation()).contains("gso_ipv4_max_size 185000");
      assertThat(x.cpuSavingCores()).isZero();
    });
  }

  @Test
  void virtualDevicesGetNoBigTcpAdvice() {
    var costs = Costs.window(Costs.gso(RECEIVER, 2, "rcv0", 0, 0, Cause.OTHER, 0, 90000));
    assertThat(advise(LabInventories.s3(LabInventories.NO_XDP, "veth"), costs)).isEmpty();
  }

  @Test
  void idsAreStableAndDistinct() {
    var costs = Costs.window(Costs.gso(SWITCH, 3, "up0", 32066, 2089457356L, Cause.GSO_MAX_SIZE, 8000, 0));
    Finding a = advise(LabInventories.capped(LabInventories.s1(16384, "lab-snd"), SWITCH, 3), costs).get(0);
    Finding b = advise(LabInventories.capped(LabInventories.s1(16384, "lab-snd"), SWITCH, 3), costs).get(0);
    Finding c = advise(LabInventories.capped(LabInventories.s1(16384, "other"), SWITCH, 3), costs).get(0);
    assertThat(a.id()).isEqualTo(b.id()).startsWith("gso_size_mismatch-").hasSize("gso_size_mismatch-".length() + 12);
    assertThat(c.id()).isNotEqualTo(a.id());
  }
}

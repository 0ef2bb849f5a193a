package io.segscope.agent.advice;

import static io.segscope.agent.advice.LabInventories.RECEIVER;
import static io.segscope.agent.advice.LabInventories.ROOT;
import static io.segscope.agent.advice.LabInventories.SENDER;
import static io.segscope.agent.advice.LabInventories.SWITCH;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.model.Qdisc;
import io.segscope.exporters.model.GsoDeviceStats;
import io.segscope.vocabulary.Cause;
import io.segscope.vocabulary.GsoType;
import io.segscope.vocabulary.Site;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The rules on the shapes of issue 13 beyond the seeds, on inventories with the values the 6.18
 * kernel reports (LabInventories) and windows built by the CostModel (Costs): routed MTU and GSO
 * size through a router namespace, vxlan underlays, UDP GSO, tbf/cake, the hypervisor tap path, bond
 * ports, WireGuard and BIG TCP. Each positive case has a near miss beside it.
 */
class ShapeRulesTest {
  private static List<Finding> advise(Inventory inv, Collection<DeviceCost> costs) {
    return new Recommender().evaluate(costs, AdviceContext.of(inv, AdviceContext.Thresholds.DEFAULT, true, costs));
  }

  private static List<String> shells(Finding f) {
    return f.commands().stream().map(Command::shell).toList();
  }

  private static Finding only(List<Finding> f, String rule) {
    assertThat(f).extracting(Finding::rule).containsExactly(rule);
    return f.get(0);
  }

  private static GsoDeviceStats gso(long ns, int ifindex, String name, Cause cause, GsoType type, Site site) {
    return Costs.gso(ns, ifindex, name, 32066, 2089457356L, cause, 8000, 0, type, site);
  }

  private static GsoDeviceStats sending(long ns, int ifindex, String name) {
    return Costs.gso(ns, ifindex, name, 0, 0, Cause.OTHER, 0, 32066);
  }

  // ---- routed: mtu_mismatch and gso_size_mismatch through a router namespace

  @Test
  void forwardedSuperPacketsLargerThanTheEgressMtuLowerTheSendersMtu() {
    var costs = Costs.window(gso(SWITCH, 3, "rt1", Cause.MTU, GsoType.TCP4, Site.IP_OUTPUT_MTU),
        sending(SENDER, 2, "snd0"));
    Finding f = only(advise(LabInventories.routed(1400, 65536), costs), "mtu_mismatch");
    assertThat(AdviceContext.label(f.subject())).isEqualTo("lab-rt/rt1");
    assertThat(shells(f)).containsExactly("ip -n lab-snd link set dev snd0 mtu 1400");
    assertThat(f.devices()).extracting(AdviceContext::label).containsExactly("lab-rt/rt1", "lab-snd/snd0");
    assertThat(f.cpuSavingCores()).isCloseTo(32066 * 8000 / 1e9 / 3, within(1e-9));
    assertThat(f.evidence()).containsEntry("cause_mtu_share", 1.0).containsEntry("device_mtu", 1400);
    assertThat(f.explanation()).isEmpty();
  }

  @Test
  void sendersOnOtherHostsGetAnExplanationNotACommand() {
    var costs = Costs.window(gso(SWITCH, 3, "rt1", Cause.MTU, GsoType.TCP4, Site.IP_OUTPUT_MTU));
    Finding f = only(advise(LabInventories.routedFromTheWire(1400), costs), "mtu_mismatch");
    assertThat(f.commands()).isEmpty();
    assertThat(f.cpuSavingCores()).isZero();
    assertThat(f.explanation()).contains("lab-rt/eth0").contains("MSS").contains("1400");
  }

  @Test
  void aSenderWhoseMtuAlreadyFitsGetsNoMtuCommand() {
    var costs = Costs.window(gso(SWITCH, 3, "rt1", Cause.MTU, GsoType.TCP4, Site.IP_OUTPUT_MTU),
        sending(SENDER, 2, "snd0"));
    Finding f = only(advise(LabInventories.routed(1500, 65536), costs), "mtu_mismatch");
    assertThat(f.commands()).isEmpty(); // snd0 has 1500 already: something else (a route MTU?) is smaller
  }

  @Test
  void aGsoSizeMismatchIsFollowedThroughTheRouter() {
    var costs = Costs.window(gso(SWITCH, 3, "rt1", Cause.GSO_MAX_SIZE, GsoType.TCP4, Site.XMIT),
        sending(SENDER, 2, "snd0"));
    // rt1 at its cap (a driver taking 16384): the sender behind the router comes down
    Finding f = only(advise(LabInventories.capped(LabInventories.routed(1500, 16384), SWITCH, 3), costs),
        "gso_size_mismatch");
    assertThat(shells(f)).containsExactly("ip -n lab-snd link set dev snd0 gso_max_size 16384");
    assertThat(f.summary()).contains("through IP forwarding");
    // a setting (rt1 is a veth taking 524280): rt1 is raised to what the sender uses, nothing else changes
    Finding g = only(advise(LabInventories.routed(1500, 16384), costs), "gso_size_mismatch");
    assertThat(shells(g)).containsExactly("ip -n lab-rt link set dev rt1 gso_max_size 65536");
    assertThat(g.evidence()).containsEntry("limit_case", "setting");
  }

  // ---- tunnels: vxlan underlay without tx-udp_tnl-segmentation

  @Test
  void aVxlanUnderlayWithoutTunnelSegmentationTurnsItOn() {
    var costs = Costs.window(gso(SENDER, 2, "u0", Cause.FEATURE_MISSING, GsoType.UDP_TUNNEL, Site.XMIT));
    Finding f = only(advise(LabInventories.vxlan(LabInventories.vethFeatures("tx-udp_tnl-segmentation")), costs),
        "tunnel_offload_missing");
    assertThat(shells(f)).containsExactly("ip netns exec lab-vx ethtool -K u0 tx-udp_tnl-segmentation on");
    assertThat(f.severity()).isEqualTo("warning");
    assertThat(f.cpuSavingCores()).isGreaterThan(0);
  }

  @Test
  void aFixedOffTunnelOffloadIsExplainedWithoutACommand() {
    var costs = Costs.window(gso(SENDER, 2, "u0", Cause.FEATURE_MISSING, GsoType.UDP_TUNNEL, Site.XMIT));
    Finding f = only(advise(LabInventories.vxlan(LabInventories.fixedOff("tx-udp_tnl-segmentation",
        "tx-udp_tnl-csum-segmentation")), costs), "tunnel_offload_missing");
    assertThat(f.commands()).isEmpty();
    assertThat(f.severity()).isEqualTo("info");
    assertThat(f.explanation()).contains("No command");
    assertThat(f.evidence().get("features_fixed_off")).asList()
        .containsExactly("tx-udp_tnl-segmentation", "tx-udp_tnl-csum-segmentation");
  }

  @Test
  void tunnelFeatureMissingWithTheFeatureTurnedOffTurnsItOn() {
    // what S4 records on 6.18: the underlay's tunnel GSO bit is missing from features (ethtool -K u0
    // tx-udp_tnl-segmentation off tx-udp_tnl-csum-segmentation off), which the probe reports as
    // tunnel_feature_missing (it is missing from features & hw_enc_features)
    var costs = Costs.window(gso(SENDER, 2, "u0", Cause.TUNNEL_FEATURE_MISSING, GsoType.UDP_TUNNEL, Site.XMIT));
    Finding f = only(advise(LabInventories.vxlan(LabInventories.vethFeatures("tx-udp_tnl-segmentation",
        "tx-udp_tnl-csum-segmentation")), costs), "tunnel_offload_missing");
    assertThat(shells(f)).containsExactly(
        "ip netns exec lab-vx ethtool -K u0 tx-udp_tnl-segmentation on tx-udp_tnl-csum-segmentation on");
    assertThat(f.severity()).isEqualTo("warning");
    assertThat(f.cpuSavingCores()).isGreaterThan(0);
    assertThat(f.summary()).contains("offload is off");
  }

  @Test
  void tunnelFeatureMissingWithTheFeatureOnIsADriverLimit() {
    var costs = Costs.window(gso(SENDER, 2, "u0", Cause.TUNNEL_FEATURE_MISSING, GsoType.UDP_TUNNEL, Site.XMIT));
    Finding f = only(advise(LabInventories.vxlan(LabInventories.vethFeatures()), costs), "tunnel_offload_missing");
    assertThat(f.commands()).isEmpty();
    assertThat(f.summary()).contains("hw_enc_features");
  }

  // ---- UDP GSO without tx-udp-segmentation

  @Test
  void udpGsoWithoutUdpSegmentationTurnsOnExactlyThatFeature() {
    var costs = Costs.window(gso(SENDER, 2, "snd0", Cause.FEATURE_MISSING, GsoType.UDP_L4, Site.XMIT));
    // TSO is off too, but the traffic is UDP GSO: only the feature it needs
    Finding f = only(advise(LabInventories.withFeatures(LabInventories.s3(LabInventories.NO_XDP, "veth"), SENDER, 2,
        LabInventories.vethFeatures("tx-udp-segmentation", "tx-tcp-segmentation", "tx-tcp6-segmentation")), costs),
        "offload_disabled");
    assertThat(shells(f)).containsExactly("ip netns exec lab-snd ethtool -K snd0 tx-udp-segmentation on");
    assertThat(f.summary()).contains("tx-udp-segmentation is off");
  }

  @Test
  void offloadDisabledOnAVxlanDeviceSaysFleetsDoThatOnPurpose() {
    var costs = Costs.window(gso(SENDER, 3, "vx0", Cause.FEATURE_MISSING, GsoType.TCP4, Site.XMIT));
    Finding f = only(advise(LabInventories.withFeatures(LabInventories.vxlan(LabInventories.vethFeatures()), SENDER, 3,
        LabInventories.vethFeatures("tx-tcp-segmentation", "tx-tcp6-segmentation")), costs), "offload_disabled");
    assertThat(f.risk()).contains("vxlan device").contains("Calico").contains("--advice-accept");
    assertThat(f.evidence()).containsEntry("often_off_on_purpose", true);
  }

  /** A physical NIC "ens192" (2) of the root namespace, driver {@code driver} (sysfs), TSO off. */
  private static Inventory rootNic(String driver) {
    Device nic = new Device(ROOT, "", LabInventories.link(2, "ens192", "", null, null,
        null, 65536, 65535, LabInventories.NO_XDP),
        LabInventories.vethFeatures("tx-tcp-segmentation", "tx-tcp6-segmentation"), driver);
    return new Inventory(List.of(LabInventories.ns(ROOT, "")), List.of(nic), Map.of(),
        LabInventories.READ_AT);
  }

  @Test
  void offloadDisabledOnAVmxnet3NicSaysFleetsDoThatOnPurposeAndAnotherDriverDoesNot() {
    var costs = Costs.window(gso(ROOT, 2, "ens192", Cause.FEATURE_MISSING, GsoType.TCP4, Site.XMIT));
    Finding f = only(advise(rootNic("vmxnet3"), costs), "offload_disabled");
    assertThat(shells(f)).containsExactly("ethtool -K ens192 tso on");
    assertThat(f.risk()).startsWith("this device is a vmxnet3 NIC: VMware vmxnet3 has had TSO")
        .contains("--advice-accept");
    assertThat(f.evidence()).containsEntry("often_off_on_purpose", true).containsEntry("driver", "vmxnet3")
        .containsEntry("kind", "physical");
    for (String driver : new String[] {"hv_netvsc", "xen-netfront"}) {
      Finding g = only(advise(rootNic(driver), costs), "offload_disabled");
      assertThat(g.risk()).as(driver).startsWith("this device is a " + driver + " NIC: ");
      assertThat(g.evidence()).as(driver).containsEntry("often_off_on_purpose", true);
    }
    // near miss: a driver fleets do not run with offloads off, or one the inventory could not read
    for (String driver : new String[] {"e1000e", ""}) {
      Finding g = only(advise(rootNic(driver), costs), "offload_disabled");
      assertThat(g.risk()).as(driver).startsWith("whoever turned the offload off may have had a reason");
      assertThat(g.evidence()).as(driver).doesNotContainKey("often_off_on_purpose");
    }
  }

  // ---- qdiscs

  @Test
  void aTbfWhoseBurstIsSmallerThanASuperPacketGetsALargerBurst() {
    var costs = Costs.window(gso(SENDER, 2, "snd0", Cause.QDISC, GsoType.TCP4, Site.QDISC));
    Finding f = only(advise(LabInventories.shaped(List.of(LabInventories.tbf(0))), costs), "qdisc_segmentation");
    // 65536 + ceil(65536 / 1440) x 114 header bytes = 70780; the limit grows by as much as the burst
    assertThat(shells(f)).containsExactly(
        "tc -n lab-snd qdisc change dev snd0 root handle 8001: tbf rate 12500000bps burst 70780 limit 90780");
    assertThat(f.evidence()).containsEntry("largest_super_packet_bytes", 70780L);
  }

  @Test
  void aTbfWithAPeakRateAndCakeWithoutSplitGsoAreExplainedOrLeftAlone() {
    var costs = Costs.window(gso(SENDER, 2, "snd0", Cause.QDISC, GsoType.TCP4, Site.QDISC));
    Finding peak = only(advise(LabInventories.shaped(List.of(LabInventories.tbf(7_500_000))), costs),
        "qdisc_segmentation");
    assertThat(peak.commands()).isEmpty();
    assertThat(peak.explanation()).contains("peak rate");
    Qdisc cake = new Qdisc(2, 0x80020000, Qdisc.ROOT, "cake", Optional.empty(),
        Optional.of(new Qdisc.Cake(12_500_000, true)));
    Finding c = only(advise(LabInventories.shaped(List.of(cake)), costs), "qdisc_segmentation");
    assertThat(shells(c)).containsExactly("tc -n lab-snd qdisc change dev snd0 root handle 8002: cake no-split-gso");
    assertThat(c.risk()).contains("1 Gbit/s");
  }

  @Test
  void anotherCauseIsNotTheQdiscs() {
    var costs = Costs.window(gso(SENDER, 2, "snd0", Cause.OTHER, GsoType.TCP4, Site.XMIT));
    assertThat(advise(LabInventories.shaped(List.of(LabInventories.tbf(0))), costs)).isEmpty();
  }

  // ---- the hypervisor path: a tap into a bridge whose uplink takes less

  @Test
  void guestsBehindATapGetTheUplinkRaisedBack() {
    var costs = Costs.window(gso(SWITCH, 3, "up0", Cause.GSO_MAX_SIZE, GsoType.TCP4, Site.XMIT));
    Finding f = only(advise(LabInventories.guest(16384), costs), "guest_gso_size_mismatch");
    assertThat(shells(f)).containsExactly("ip -n lab-sw link set dev up0 gso_max_size 65536");
    assertThat(f.evidence().get("guest_devices")).asList().containsExactly("lab-sw/tap0");
    assertThat(f.explanation()).contains("inside each guest").contains("gso_max_size 16384");
  }

  @Test
  void guestsBehindAnUplinkAtItsDriversLimitAreToldToChangeTheGuest() {
    var inv = LabInventories.withLink(LabInventories.guest(16384), SWITCH, 3,
        l -> LabInventories.withSizes(l, 16384, 16384, 16384));
    var costs = Costs.window(gso(SWITCH, 3, "up0", Cause.GSO_MAX_SIZE, GsoType.TCP4, Site.XMIT));
    Finding f = only(advise(inv, costs), "guest_gso_size_mismatch");
    assertThat(f.commands()).isEmpty();
    assertThat(f.explanation()).contains("no host command can");
  }

  // ---- bond: the minimum of its ports' tso_max_size, not of their gso_max_size

  @Test
  void aBondPortWithASmallerLimitSetsTheBondsLimit() {
    var costs = Costs.window(gso(ROOT, 3, "eth2", Cause.GSO_MAX_SIZE, GsoType.TCP4, Site.XMIT),
        sending(ROOT, 4, "bond0"));
    // eth2's driver takes 16384 at most: the bond comes down to it
    Finding f = only(advise(LabInventories.capped(LabInventories.bond(16384), ROOT, 3), costs), "gso_size_mismatch");
    assertThat(shells(f)).containsExactly("ip link set dev bond0 gso_max_size 16384");
    assertThat(f.evidence().get("upstream")).asList().singleElement().asString().contains("relation=master");
  }

  @Test
  void aBondWhosePortsAgreeGetsNoAdvice() {
    var costs = Costs.window(gso(ROOT, 3, "eth2", Cause.OTHER, GsoType.TCP4, Site.XMIT),
        sending(ROOT, 4, "bond0"));
    assertThat(advise(LabInventories.bond(65536), costs)).isEmpty();
  }

  // ---- WireGuard: explained, never a command

  @Test
  void wireguardIsExplainedWithoutACommand() {
    var costs = Costs.window(gso(SENDER, 2, "wg0", Cause.OTHER, GsoType.TCP4, Site.OTHER));
    Finding f = only(advise(LabInventories.wireguard(), costs), "wireguard_segmentation");
    assertThat(f.commands()).isEmpty();
    assertThat(f.severity()).isEqualTo("info");
    assertThat(f.cpuSavingCores()).isZero();
    assertThat(f.explanation()).contains("no driver or NIC offloads");
  }

  @Test
  void udpSegmentedAgainOnReceiveIsExplainedWithoutACommand() {
    // S9 as recorded: every software segmentation on the receiving veth at udp_rcv_segment
    var costs = Costs.window(gso(RECEIVER, 2, "rcv0", Cause.OTHER, GsoType.UDP_L4, Site.UDP_RX));
    Finding f = only(advise(LabInventories.s3(LabInventories.NO_XDP, "veth"), costs), "udp_receive_segmentation");
    assertThat(f.subject().device()).isEqualTo("rcv0");
    assertThat(f.commands()).isEmpty();
    assertThat(f.severity()).isEqualTo("info");
    assertThat(f.cpuSavingCores()).isPositive();
    assertThat(f.explanation()).contains("UDP_GRO").contains("udp_rcv_segment");
    // the same device segmenting on transmit is not a receive finding
    var tx = Costs.window(gso(RECEIVER, 2, "rcv0", Cause.FEATURE_MISSING, GsoType.UDP_L4, Site.XMIT));
    assertThat(advise(LabInventories.s3(LabInventories.NO_XDP, "veth"), tx))
        .noneMatch(x -> x.rule().equals("udp_receive_segmentation"));
  }

  // ---- BIG TCP caps

  @Test
  void ipv4BigTcpAgainstAnIpv6OnlyBigTcpUplinkExplainsTheIpv4RaiseAndLowersTheSender() {
    var costs = Costs.window(gso(SWITCH, 3, "up0", Cause.GSO_MAX_SIZE, GsoType.TCP4, Site.XMIT),
        sending(SENDER, 2, "snd0"));
    Finding f = only(advise(LabInventories.bigTcp(185000, 65536), costs), "gso_size_mismatch");
    // up0's IPv4 limit (65536) is a setting under its tso_max_size (524280), but only the gso_ipv4_max_size
    // keyword (iproute2 6.3+) raises it: explained; iproute2 6.1 can lower the sender (both limits to 64 KiB,
    // then IPv6 back up: IPv4 stays)
    assertThat(shells(f)).containsExactly("ip -n lab-snd link set dev snd0 gso_max_size 65536",
        "ip -n lab-snd link set dev snd0 gso_max_size 185000");
    assertThat(f.summary()).contains("gso_ipv4_max_size (65536)").contains("only iproute2 6.3 or later raises it");
    assertThat(f.evidence()).containsEntry("limit_case", "setting_ipv4_keyword");
    assertThat((String) f.evidence().get("limit_case_why")).contains("gso_ipv4_max_size 65536 is below its "
        + "tso_max_size 524280 and the feeders' 185000");
    assertThat(f.explanation()).contains("raise lab-sw/up0's to 185000 (ip link set dev up0 gso_ipv4_max_size "
        + "185000 in its namespace)").contains("iproute2 6.3");
    assertThat(f.risk()).doesNotContain("iproute2 6.3");
  }

  @Test
  void ipv4TrafficUnderALoweredUplinkIsRaisedTo64KiBWithoutTheKeyword() {
    // up0 lowered to 16384 (both families), the sender at 185000: gso_max_size 65536 raises both of up0's limits;
    // the rest (above 64 KiB, IPv4) only the keyword could: explained, and the sender comes down to 64 KiB
    var inv = LabInventories.bigTcp(16384, 16384);
    var costs = Costs.window(gso(SWITCH, 3, "up0", Cause.GSO_MAX_SIZE, GsoType.TCP4, Site.XMIT),
        sending(SENDER, 2, "snd0"));
    Finding f = only(advise(inv, costs), "gso_size_mismatch");
    assertThat(shells(f)).containsExactly("ip -n lab-sw link set dev up0 gso_max_size 65536",
        "ip -n lab-snd link set dev snd0 gso_max_size 65536");
    assertThat(f.evidence()).containsEntry("limit_case", "setting_and_cap");
    assertThat(f.explanation()).contains("gso_ipv4_max_size 185000");
  }

  @Test
  void ipv6BigTcpAgainstA64KiBUplinkRaisesItAndAgainstA64KiBCapLowersTheSender() {
    var costs = Costs.window(gso(SWITCH, 3, "up0", Cause.GSO_MAX_SIZE, GsoType.TCP6, Site.XMIT),
        sending(SENDER, 2, "snd0"));
    // a veth uplink (tso_max_size 524280) at the default 64 KiB: raised to the sender's BIG TCP size
    Finding f = only(advise(LabInventories.bigTcp(65536, 65536), costs), "gso_size_mismatch");
    assertThat(shells(f)).containsExactly("ip -n lab-sw link set dev up0 gso_max_size 185000");
    // a tap-like uplink (tso_max_size 65536): the sender comes down to it
    Finding g = only(advise(LabInventories.capped(LabInventories.bigTcp(65536, 65536), SWITCH, 3), costs),
        "gso_size_mismatch");
    assertThat(shells(g)).containsExactly("ip -n lab-snd link set dev snd0 gso_max_size 65536");
    assertThat(g.evidence()).containsEntry("limit_case", "cap");
    assertThat(g.risk()).contains("smaller super-packets").doesNotContain("hands larger");
  }

  @Test
  void ipv4BigTcpOverATapLikeCapLowersBothSenderLimitsWithoutTheKeyword() {
    // the sender at 185000 (both families), the uplink a 64 KiB cap: gso_max_size 65536 lowers the IPv4 limit too
    var costs = Costs.window(gso(SWITCH, 3, "up0", Cause.GSO_MAX_SIZE, GsoType.TCP4, Site.XMIT),
        sending(SENDER, 2, "snd0"));
    Finding f = only(advise(LabInventories.capped(LabInventories.bigTcp(65536, 65536), SWITCH, 3), costs),
        "gso_size_mismatch");
    assertThat(shells(f)).containsExactly("ip -n lab-snd link set dev snd0 gso_max_size 65536");
    assertThat(f.risk()).doesNotContain("iproute2 6.3");
  }

  @Test
  void anIpv4LimitAbove64KiBNeedsTheKeyword() {
    // D at its cap for IPv6 (185000) and IPv4 100000, the sender at 300000 both: only gso_ipv4_max_size can say
    // 100000 for the sender; D's own IPv4 raise (to 185000) is explained
    var inv = LabInventories.withLink(LabInventories.withLink(LabInventories.bigTcp(185000, 100000), SWITCH, 3,
        l -> LabInventories.withSizes(l, 185000, 100000, 185000)), SENDER, 2,
        l -> LabInventories.withSizes(l, 300000, 300000, 524280));
    var costs = Costs.window(gso(SWITCH, 3, "up0", Cause.GSO_MAX_SIZE, GsoType.TCP4, Site.XMIT),
        sending(SENDER, 2, "snd0"));
    Finding f = only(advise(inv, costs), "gso_size_mismatch");
    assertThat(shells(f)).containsExactly("ip -n lab-snd link set dev snd0 gso_ipv4_max_size 100000");
    assertThat(f.risk()).contains("iproute2 6.3");
    assertThat(f.explanation()).contains("gso_ipv4_max_size 185000");
  }

  @Test
  void aNicWithIpv6BigTcpOnlyIsToldHowToEnableIpv4BigTcp() {
    var inv = LabInventories.withLink(LabInventories.s3(LabInventories.NO_XDP, ""), RECEIVER, 2,
        l -> LabInventories.withSizes(l, 185000, 65536, 524280));
    var costs = Costs.window(Costs.gso(RECEIVER, 2, "rcv0", 0, 0, Cause.OTHER, 0, 90000));
    Finding f = only(advise(inv, costs), "big_tcp_headroom");
    // only the gso_ipv4_max_size keyword (iproute2 6.3+) raises the IPv4 limit: text, not a command
    assertThat(f.commands()).isEmpty();
    assertThat(f.explanation()).contains("gso_ipv4_max_size 185000").contains("iproute2 6.3");
  }
}

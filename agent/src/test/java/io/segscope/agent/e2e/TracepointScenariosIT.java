package io.segscope.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.agent.e2e.KernelOracle.Sites;
import io.segscope.lab.DeviceAt;
import io.segscope.lab.Family;
import io.segscope.lab.Lab;
import io.segscope.lab.LabTest;
import io.segscope.lab.Prerequisites;
import io.segscope.lab.Scenarios;
import io.segscope.lab.TapInjector;
import io.segscope.lab.Topology;
import io.segscope.lab.UdpGsoSender;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * S1/S2/S3 and their controls on the host kernel in tracepoint mode (forced, so the test means the
 * same on any kernel from 6.3 on; which mode "auto" picks is ProbePlanLabTest's and DoctorIT's job),
 * and, against the same agent, every other place the kernel segments in software that this kernel has
 * (docs/lab.md S4-S11, the IPv6 variants of S1-S3): each scenario beside its healthy control in one
 * drive, held against the kernel oracle per device, site, cause and GSO type.
 */
class TracepointScenariosIT extends ScenarioSuite {
  @Override
  String mode() {
    return "tracepoint";
  }

  @Override
  Duration readyTimeout() {
    return Duration.ofSeconds(90);
  }

  private Traffic side(Lab lab, Topology bad, Topology healthy) throws Exception {
    return driveAll(lab, List.of(bad, healthy), List.of(iperf(lab, bad, SHORT), iperf(lab, healthy, SHORT)), false);
  }

  @Test
  @LabTest
  void s1Ipv6GsoSizeMismatchIsSegmentedOnTheUplink(Lab lab) throws Exception {
    Topology bad = Scenarios.s1GsoMismatch(lab, false, Family.IPV6);
    Topology ok = Scenarios.s1GsoMismatch(lab, true, Family.IPV6);
    Traffic t = side(lab, bad, ok);
    DeviceAt up = bad.device("uplink");
    assertSegmentedAt(t, bad, new Segmenting(up, "xmit", Sites.XMIT, "gso_max_size", "tcp6", false, true));
    assertOnlyOn(t, bad, up, Sites.XMIT);
    assertHealthyControl(t, ok, ok.device("uplink"), Sites.XMIT);
  }

  @Test
  @LabTest
  void s2Ipv6OffloadLostIsSegmentedOnTheLowerVeth(Lab lab) throws Exception {
    Topology bad = Scenarios.s2OffloadLost(lab, false, Family.IPV6);
    Topology ok = Scenarios.s2OffloadLost(lab, true, Family.IPV6);
    Traffic t = side(lab, bad, ok);
    DeviceAt low = bad.device("lower");
    assertSegmentedAt(t, bad, new Segmenting(low, "xmit", Sites.XMIT, "feature_missing", "tcp6", false, true));
    assertOnlyOn(t, bad, low, Sites.XMIT);
    assertHealthyControl(t, ok, ok.device("lower"), Sites.XMIT);
  }

  @Test
  @LabTest
  void s3Ipv6GenericXdpCopiesAreCountedOnTheReceiver(Lab lab) throws Exception {
    Prerequisites.requireClang();
    Topology bad = Scenarios.s3GenericXdp(lab, false, Family.IPV6);
    Topology ok = Scenarios.s3GenericXdp(lab, true, Family.IPV6);
    Traffic t = side(lab, bad, ok);
    assertGenericXdpCopies(lab, t, bad, false);
    for (DeviceAt d : ok.devices().values()) {
      assertThat(t.delta("segscope_xdp_generic_skbs_total", dev(d))).as("%s: generic XDP on %s", ok.name(), d.name())
          .isZero();
    }
    assertNoAdviceFor(ok);
  }

  @Test
  @LabTest
  void s4VxlanOverAnUnderlayWithoutTunnelSegmentationIsSegmentedOnTheUnderlay(Lab lab) throws Exception {
    Topology bad = Scenarios.s4VxlanTunnelOffloadOff(lab, false);
    Topology ok = Scenarios.s4VxlanTunnelOffloadOff(lab, true);
    Traffic t = side(lab, bad, ok);
    DeviceAt u0 = bad.device("underlay");
    assertSegmentedAt(t, bad, new Segmenting(u0, "xmit", Sites.XMIT, "tunnel_feature_missing", "udp_tunnel", false,
        true));
    assertOnlyOn(t, bad, u0, Sites.XMIT);
    assertThat(t.delta("segscope_gso_offloaded_skbs_total", dev(bad.device("sender"))))
        .as("super-packets the vxlan device handed whole to its driver (which encapsulates them)").isGreaterThan(50);
    assertHealthyControl(t, ok, ok.device("underlay"), Sites.XMIT);
  }

  @Test
  @LabTest
  void s5TapSuperPacketsOfAGuestAreSegmentedOnTheSmallerUplink(Lab lab) throws Exception {
    Prerequisites.requireClang();
    Topology bad = Scenarios.s5TapIntoSmallerUplink(lab, false);
    Topology ok = Scenarios.s5TapIntoSmallerUplink(lab, true);
    TapInjector guest = TapInjector.build(lab.workDir());
    Traffic t = driveAll(lab, List.of(bad, ok), List.of(inject(lab, bad, guest), inject(lab, ok, guest)), false);
    DeviceAt up = bad.device("uplink");
    double skbs = assertSegmentedAt(t, bad, new Segmenting(up, "xmit", Sites.XMIT, "gso_max_size", "tcp4", false,
        true));
    // the guest's super-packets carry no gso_segs (virtio-net headers): segscope counts them from the headers
    int perSkb = (Scenarios.TAP_PAYLOAD + Scenarios.TAP_MSS - 1) / Scenarios.TAP_MSS;
    assertThat(t.delta("segscope_gso_sw_segments_total", dev(up))).as("segments: %d per guest super-packet", perSkb)
        .isEqualTo(skbs * perSkb);
    TapInjector.Sent sent = (TapInjector.Sent) t.results().get(0);
    assertThat(skbs).as("segmented vs written by the guest %s", sent).isLessThanOrEqualTo(sent.sends());
    assertOnlyOn(t, bad, up, Sites.XMIT);
    assertHealthyControl(t, ok, ok.device("uplink"), Sites.XMIT);
  }

  private static Flow inject(Lab lab, Topology s, TapInjector guest) {
    return () -> {
      DeviceAt rcv = s.device("receiver");
      String mac = lab.exec(rcv.ns(), "cat", "/sys/class/net/" + rcv.name() + "/address").strip();
      String guestIp = s.receiverAddr().substring(0, s.receiverAddr().lastIndexOf('.')) + ".1";
      return guest.send(s.sender(), "tap0", Scenarios.TAP_GUEST_MAC, mac, guestIp, s.receiverAddr(),
          Scenarios.TAP_PAYLOAD, Scenarios.TAP_MSS, SHORT);
    };
  }

  @Test
  @LabTest
  void s6ForwardedSuperPacketsLargerThanTheEgressMtuAreSegmentedByTheRouter(Lab lab) throws Exception {
    Topology bad = Scenarios.s6RoutedSmallerEgressMtu(lab, false);
    Topology ok = Scenarios.s6RoutedSmallerEgressMtu(lab, true);
    Traffic t = side(lab, bad, ok);
    DeviceAt r1 = bad.device("routerOut");
    assertSegmentedAt(t, bad, new Segmenting(r1, "ip_output_mtu", Sites.IP_OUTPUT_MTU, "mtu", "tcp4", false, false));
    assertOnlyOn(t, bad, r1, Sites.IP_OUTPUT_MTU);
    assertHealthyControl(t, ok, ok.device("routerOut"), Sites.IP_OUTPUT_MTU);
  }

  /**
   * tbf segments what exceeds its burst and drops what its queue cannot hold: TCP and, at the same time,
   * small UDP super-packets (8 segments, below the burst) that fill the queue. "Offloaded" is derived
   * (queued - segmented after the queue - dropped before the driver): the test holds it against every
   * super-packet the oracle saw handed whole to the driver, and the oracle's count of everything handed
   * to the driver against the device's own tx counters.
   */
  @Test
  @LabTest
  void s7TbfSegmentsWhatExceedsItsBurstAndOffloadedStaysExact(Lab lab) throws Exception {
    Prerequisites.requireClang();
    Topology bad = Scenarios.s7TbfSmallBurst(lab, false);
    Topology ok = Scenarios.s7TbfSmallBurst(lab, true);
    UdpGsoSender udp = UdpGsoSender.build(lab.workDir());
    Traffic t = driveAll(lab, List.of(bad, ok), List.of(iperf(lab, bad, SHORT), udp(lab, bad, udp, 9007, 11200, true),
        iperf(lab, ok, SHORT)), true);
    DeviceAt snd = bad.device("sender");
    assertSegmentedAt(t, bad, new Segmenting(snd, "qdisc", Sites.QDISC, "qdisc", "tcp4", false, true));
    assertOnlyOn(t, bad, snd, Sites.QDISC);
    for (Topology s : List.of(bad, ok)) {
      DeviceAt d = s.device("sender");
      double offloaded = t.delta("segscope_gso_offloaded_skbs_total", dev(d));
      KernelOracle.Xmit x = t.oracle().xmit(d);
      long extra = t.oracleOnlyTxPackets(d);
      String qdisc = lab.exec(d.ns(), "tc", "-s", "qdisc", "show", "dev", d.name()).replace('\n', ' ');
      System.out.printf("[%s] %s %s: offloaded %.0f; oracle: %s handed to the driver (+%d outside the window);"
          + " device tx %d..%d; %s%n", mode(), s.name(), d.name(), offloaded, x, extra,
          t.outer().txPacketsSince(t.outer0(), d), t.c5().txPacketsSince(t.c0(), d), qdisc);
      // the oracle saw every skb the driver was handed: between the device's tx packets over segscope's
      // outer window and over the oracle's own
      assertThat((double) x.skbs()).as("%s: skbs the oracle saw handed to %s's driver vs its tx counters",
          s.name(), d.name()).isBetween((double) t.outer().txPacketsSince(t.outer0(), d),
              (double) t.c5().txPacketsSince(t.c0(), d));
      assertWithinOracle("super-packets offloaded (derived)", s, d, offloaded, x.superPackets(), extra);
    }
    assertHealthyControl(t, ok, ok.device("sender"), Sites.QDISC);
  }

  @Test
  @LabTest
  void s8UdpGsoOverAVethWithoutUdpSegmentationIsSegmentedOnTheSender(Lab lab) throws Exception {
    Prerequisites.requireClang();
    Topology bad = Scenarios.s8UdpGsoOffloadOff(lab, false);
    Topology ok = Scenarios.s8UdpGsoOffloadOff(lab, true);
    UdpGsoSender udp = UdpGsoSender.build(lab.workDir());
    Traffic t = driveAll(lab, List.of(bad, ok), List.of(udp(lab, bad, udp, 9008, 63000, true),
        udp(lab, ok, udp, 9008, 63000, true)), false);
    DeviceAt snd = bad.device("sender");
    double skbs = assertSegmentedAt(t, bad, new Segmenting(snd, "xmit", Sites.XMIT, "feature_missing", "udp_l4",
        false, true));
    UdpGsoSender.Sent sent = (UdpGsoSender.Sent) t.results().get(0);
    assertThat(skbs).as("segmented vs sent %s", sent).isLessThanOrEqualTo(sent.sends());
    assertThat(t.delta("segscope_gso_sw_segments_total", dev(snd))).as("45 datagrams per super-packet")
        .isEqualTo(skbs * 45);
    assertOnlyOn(t, bad, snd, Sites.XMIT);
    assertHealthyControl(t, ok, ok.device("sender"), Sites.XMIT);
  }

  @Test
  @LabTest
  void s9UdpSuperPacketsAreSegmentedAgainOnReceiveForASocketWithoutGro(Lab lab) throws Exception {
    Prerequisites.requireClang();
    Topology bad = Scenarios.s9UdpRxForANonGroSocket(lab, false);
    Topology ok = Scenarios.s9UdpRxForANonGroSocket(lab, true);
    UdpGsoSender udp = UdpGsoSender.build(lab.workDir());
    Traffic t = driveAll(lab, List.of(bad, ok), List.of(udp(lab, bad, udp, 9009, 63000, false),
        udp(lab, ok, udp, 9009, 63000, true)), false);
    DeviceAt rcv = bad.device("receiver");
    assertSegmentedAt(t, bad, new Segmenting(rcv, "udp_rx", Sites.UDP_RX, "other", "udp_l4", true, false));
    assertOnlyOn(t, bad, rcv, Sites.UDP_RX);
    assertThat(t.delta("segscope_gso_offloaded_skbs_total", dev(bad.device("sender"))))
        .as("super-packets the sender handed whole to its veth").isGreaterThan(50);
    assertHealthyControl(t, ok, ok.device("sender"), Sites.UDP_RX);
  }

  @Test
  @LabTest
  void s10IngressRedirectedToAnIfbWithoutTsoIsSegmentedOnTheIfb(Lab lab) throws Exception {
    Topology bad = Scenarios.s10IfbIngressRedirect(lab, false);
    Topology ok = Scenarios.s10IfbIngressRedirect(lab, true);
    Traffic t = side(lab, bad, ok);
    DeviceAt ifb = bad.device("ifb");
    assertSegmentedAt(t, bad, new Segmenting(ifb, "xmit", Sites.XMIT, "feature_missing", "tcp4", false, true));
    assertOnlyOn(t, bad, ifb, Sites.XMIT);
    assertHealthyControl(t, ok, ok.device("ifb"), Sites.XMIT);
  }

  @Test
  @LabTest
  void s11BigTcpOverIpv6IsSegmentedOnA64KiBUplink(Lab lab) throws Exception {
    bigTcp(lab, Family.IPV6, "tcp6");
  }

  @Test
  @LabTest
  void s11BigTcpOverIpv4IsSegmentedOnA64KiBUplink(Lab lab) throws Exception {
    Prerequisites.requireClang();
    bigTcp(lab, Family.IPV4, "tcp4");
  }

  private void bigTcp(Lab lab, Family family, String type) throws Exception {
    Topology bad = Scenarios.s11BigTcp(lab, false, family);
    Topology ok = Scenarios.s11BigTcp(lab, true, family);
    Traffic t = side(lab, bad, ok);
    DeviceAt up = bad.device("uplink");
    double skbs = assertSegmentedAt(t, bad, new Segmenting(up, "xmit", Sites.XMIT, "gso_max_size", type, false,
        true));
    assertThat(t.delta("segscope_gso_sw_bytes_total", dev(up)) / skbs)
        .as("mean size of the super-packets segmented on the uplink: BIG TCP, above 64 KiB").isGreaterThan(65536);
    assertOnlyOn(t, bad, up, Sites.XMIT);
    assertHealthyControl(t, ok, ok.device("uplink"), Sites.XMIT);
  }
}

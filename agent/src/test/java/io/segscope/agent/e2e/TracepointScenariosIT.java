package io.segscope.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertAll;

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
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.Test;

/**
 * S1/S2/S3 and their controls on the host kernel in tracepoint mode (forced, so the test means the
 * same on any kernel from 6.3 on; which mode "auto" picks is ProbePlanLabTest's and DoctorIT's job),
 * and, against the same agent, every other place the kernel segments in software that this kernel has
 * (docs/lab.md S4-S11, the IPv6 variants of S1-S3): each scenario beside its healthy control in one
 * drive, held against the kernel oracle per device, site, cause and GSO type. To keep the suite short,
 * scenarios that do not disturb each other share one drive (one oracle, one pair of agent reads): every
 * scenario's checks run, and each failure names its scenario.
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

  /** What one scenario and its control send, and what is checked once the shared drive is over. */
  private record Case(Topology bad, Topology ok, List<Flow> flows, Check check) {}

  @FunctionalInterface
  private interface Check {
    /** {@code sent}: what this case's flows returned, in its flows' order. */
    void verify(Traffic t, List<Object> sent) throws Exception;
  }

  private static Case tcp(Lab lab, Topology bad, Topology ok, Check check) {
    return new Case(bad, ok, List.of(iperf(lab, bad, SHORT), iperf(lab, ok, SHORT)), check);
  }

  /** Drives every case at once and runs every case's checks (all of them, even after a failure). */
  private void together(Lab lab, List<Case> cases) throws Exception {
    List<Topology> all = new ArrayList<>();
    List<Flow> flows = new ArrayList<>();
    for (Case c : cases) {
      all.add(c.bad());
      all.add(c.ok());
      flows.addAll(c.flows());
    }
    Traffic t = driveAll(lab, all, flows, false);
    List<Executable> checks = new ArrayList<>();
    int first = 0;
    for (Case c : cases) {
      List<Object> sent = t.results().subList(first, first + c.flows().size());
      first += c.flows().size();
      checks.add(() -> c.check().verify(t, sent));
    }
    assertAll(checks);
  }

  /** The seed scenarios over IPv6, vxlan, ifb and BIG TCP over IPv6: iperf3 each, one drive. */
  @Test
  @LabTest
  void ipv6VxlanIfbAndBigTcpOverIpv6AreSegmentedWhereTheKernelSays(Lab lab) throws Exception {
    together(lab, List.of(s1Ipv6(lab), s2Ipv6(lab), s4Vxlan(lab), s10Ifb(lab), bigTcp(lab, Family.IPV6, "tcp6")));
  }

  /** A tap guest's super-packets, UDP GSO on transmit and on receive, BIG TCP over IPv4: one drive. */
  @Test
  @LabTest
  void tapUdpAndBigTcpOverIpv4AreSegmentedWhereTheKernelSays(Lab lab) throws Exception {
    Prerequisites.requireClang();
    UdpGsoSender udp = UdpGsoSender.build(lab.workDir());
    TapInjector guest = TapInjector.build(lab.workDir());
    together(lab, List.of(s5Tap(lab, guest), s8UdpGso(lab, udp), s9UdpRx(lab, udp), bigTcp(lab, Family.IPV4, "tcp4")));
  }

  private Case s1Ipv6(Lab lab) {
    Topology bad = Scenarios.s1GsoMismatch(lab, false, Family.IPV6);
    Topology ok = Scenarios.s1GsoMismatch(lab, true, Family.IPV6);
    return tcp(lab, bad, ok, (t, sent) -> {
      DeviceAt up = bad.device("uplink");
      assertSegmentedAt(t, bad, new Segmenting(up, "xmit", Sites.XMIT, "gso_max_size", "tcp6", false, true));
      assertOnlyOn(t, bad, up, Sites.XMIT);
      assertHealthyControl(t, ok, ok.device("uplink"), Sites.XMIT);
    });
  }

  private Case s2Ipv6(Lab lab) {
    Topology bad = Scenarios.s2OffloadLost(lab, false, Family.IPV6);
    Topology ok = Scenarios.s2OffloadLost(lab, true, Family.IPV6);
    return tcp(lab, bad, ok, (t, sent) -> {
      DeviceAt low = bad.device("lower");
      assertSegmentedAt(t, bad, new Segmenting(low, "xmit", Sites.XMIT, "feature_missing", "tcp6", false, true));
      assertOnlyOn(t, bad, low, Sites.XMIT);
      assertHealthyControl(t, ok, ok.device("lower"), Sites.XMIT);
    });
  }

  @Test
  @LabTest
  void s3Ipv6GenericXdpCopiesAreCountedOnTheReceiver(Lab lab) throws Exception {
    Prerequisites.requireClang();
    Topology bad = Scenarios.s3GenericXdp(lab, false, Family.IPV6);
    Topology ok = Scenarios.s3GenericXdp(lab, true, Family.IPV6);
    Traffic t = driveAll(lab, List.of(bad, ok), List.of(iperf(lab, bad, SHORT), iperf(lab, ok, SHORT)), false);
    assertGenericXdpCopies(lab, t, bad, false);
    for (DeviceAt d : ok.devices().values()) {
      assertThat(t.delta("segscope_xdp_generic_skbs_total", dev(d))).as("%s: generic XDP on %s", ok.name(), d.name())
          .isZero();
    }
    assertNoAdviceFor(ok);
  }

  private Case s4Vxlan(Lab lab) {
    Topology bad = Scenarios.s4VxlanTunnelOffloadOff(lab, false);
    Topology ok = Scenarios.s4VxlanTunnelOffloadOff(lab, true);
    return tcp(lab, bad, ok, (t, sent) -> {
      DeviceAt u0 = bad.device("underlay");
      assertSegmentedAt(t, bad, new Segmenting(u0, "xmit", Sites.XMIT, "tunnel_feature_missing", "udp_tunnel", false,
          true));
      assertOnlyOn(t, bad, u0, Sites.XMIT);
      assertThat(t.delta("segscope_gso_offloaded_skbs_total", dev(bad.device("sender"))))
          .as("super-packets the vxlan device handed whole to its driver (which encapsulates them)").isGreaterThan(50);
      assertHealthyControl(t, ok, ok.device("underlay"), Sites.XMIT);
    });
  }

  private Case s5Tap(Lab lab, TapInjector guest) {
    Topology bad = Scenarios.s5TapIntoSmallerUplink(lab, false);
    Topology ok = Scenarios.s5TapIntoSmallerUplink(lab, true);
    return new Case(bad, ok, List.of(inject(lab, bad, guest), inject(lab, ok, guest)), (t, sent) -> {
      DeviceAt up = bad.device("uplink");
      double skbs = assertSegmentedAt(t, bad, new Segmenting(up, "xmit", Sites.XMIT, "gso_max_size", "tcp4", false,
          true));
      // the guest's super-packets carry no gso_segs (virtio-net headers): segscope counts them from the headers
      int perSkb = (Scenarios.TAP_PAYLOAD + Scenarios.TAP_MSS - 1) / Scenarios.TAP_MSS;
      assertThat(t.delta("segscope_gso_sw_segments_total", dev(up))).as("segments: %d per guest super-packet", perSkb)
          .isEqualTo(skbs * perSkb);
      TapInjector.Sent written = (TapInjector.Sent) sent.get(0);
      assertThat(skbs).as("segmented vs written by the guest %s", written).isLessThanOrEqualTo(written.sends());
      assertOnlyOn(t, bad, up, Sites.XMIT);
      assertHealthyControl(t, ok, ok.device("uplink"), Sites.XMIT);
    });
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

  /** Forwarding segments at low throughput here: its own drive, so that it is not starved by the others. */
  @Test
  @LabTest
  void s6ForwardedSuperPacketsLargerThanTheEgressMtuAreSegmentedByTheRouter(Lab lab) throws Exception {
    Topology bad = Scenarios.s6RoutedSmallerEgressMtu(lab, false);
    Topology ok = Scenarios.s6RoutedSmallerEgressMtu(lab, true);
    together(lab, List.of(tcp(lab, bad, ok, (t, sent) -> {
      DeviceAt r1 = bad.device("routerOut");
      assertSegmentedAt(t, bad, new Segmenting(r1, "ip_output_mtu", Sites.IP_OUTPUT_MTU, "mtu", "tcp4", false, false));
      assertOnlyOn(t, bad, r1, Sites.IP_OUTPUT_MTU);
      assertHealthyControl(t, ok, ok.device("routerOut"), Sites.IP_OUTPUT_MTU);
    })));
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
      // the oracle's count of what the driver was handed, against the device's tx packets over segscope's
      // outer window and over the oracle's own, within 1 % like every oracle comparison: measured here
      // 0.1-0.2 % BELOW the outer window (64 of 63329, 131 of 67369) with no oracle event skipped by the
      // kernel; not explained yet, so not asserted exact
      assertThat((double) x.skbs()).as("%s: skbs the oracle saw handed to %s's driver vs its tx counters",
          s.name(), d.name()).isBetween(t.outer().txPacketsSince(t.outer0(), d) * 0.99,
              t.c5().txPacketsSince(t.c0(), d) * 1.01);
      assertWithinOracle("super-packets offloaded (derived)", s, d, offloaded, x.superPackets(), extra);
    }
    assertHealthyControl(t, ok, ok.device("sender"), Sites.QDISC);
  }

  private Case s8UdpGso(Lab lab, UdpGsoSender udp) {
    Topology bad = Scenarios.s8UdpGsoOffloadOff(lab, false);
    Topology ok = Scenarios.s8UdpGsoOffloadOff(lab, true);
    return new Case(bad, ok, List.of(udp(lab, bad, udp, 9008, 63000, true), udp(lab, ok, udp, 9008, 63000, true)),
        (t, sent) -> {
          DeviceAt snd = bad.device("sender");
          double skbs = assertSegmentedAt(t, bad, new Segmenting(snd, "xmit", Sites.XMIT, "feature_missing", "udp_l4",
              false, true));
          UdpGsoSender.Sent s = (UdpGsoSender.Sent) sent.get(0);
          assertThat(skbs).as("segmented vs sent %s", s).isLessThanOrEqualTo(s.sends());
          assertThat(t.delta("segscope_gso_sw_segments_total", dev(snd))).as("45 datagrams per super-packet")
              .isEqualTo(skbs * 45);
          assertOnlyOn(t, bad, snd, Sites.XMIT);
          assertHealthyControl(t, ok, ok.device("sender"), Sites.XMIT);
        });
  }

  private Case s9UdpRx(Lab lab, UdpGsoSender udp) {
    Topology bad = Scenarios.s9UdpRxForANonGroSocket(lab, false);
    Topology ok = Scenarios.s9UdpRxForANonGroSocket(lab, true);
    return new Case(bad, ok, List.of(udp(lab, bad, udp, 9009, 63000, false), udp(lab, ok, udp, 9009, 63000, true)),
        (t, sent) -> {
          DeviceAt rcv = bad.device("receiver");
          assertSegmentedAt(t, bad, new Segmenting(rcv, "udp_rx", Sites.UDP_RX, "other", "udp_l4", true, false));
          assertOnlyOn(t, bad, rcv, Sites.UDP_RX);
          assertThat(t.delta("segscope_gso_offloaded_skbs_total", dev(bad.device("sender"))))
              .as("super-packets the sender handed whole to its veth").isGreaterThan(50);
          assertHealthyControl(t, ok, ok.device("sender"), Sites.UDP_RX);
        });
  }

  private Case s10Ifb(Lab lab) {
    Topology bad = Scenarios.s10IfbIngressRedirect(lab, false);
    Topology ok = Scenarios.s10IfbIngressRedirect(lab, true);
    return tcp(lab, bad, ok, (t, sent) -> {
      DeviceAt ifb = bad.device("ifb");
      assertSegmentedAt(t, bad, new Segmenting(ifb, "xmit", Sites.XMIT, "feature_missing", "tcp4", false, true));
      assertOnlyOn(t, bad, ifb, Sites.XMIT);
      assertHealthyControl(t, ok, ok.device("ifb"), Sites.XMIT);
    });
  }

  private Case bigTcp(Lab lab, Family family, String type) {
    Topology bad = Scenarios.s11BigTcp(lab, false, family);
    Topology ok = Scenarios.s11BigTcp(lab, true, family);
    return tcp(lab, bad, ok, (t, sent) -> {
      DeviceAt up = bad.device("uplink");
      double skbs = assertSegmentedAt(t, bad, new Segmenting(up, "xmit", Sites.XMIT, "gso_max_size", type, false,
          true));
      assertThat(t.delta("segscope_gso_sw_bytes_total", dev(up)) / skbs)
          .as("mean size of the super-packets segmented on the uplink: BIG TCP, above 64 KiB").isGreaterThan(65536);
      assertOnlyOn(t, bad, up, Sites.XMIT);
      assertHealthyControl(t, ok, ok.device("uplink"), Sites.XMIT);
    });
  }
}

package io.segscope.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.agent.e2e.KernelOracle.Sites;
import io.segscope.lab.DeviceAt;
import io.segscope.lab.Lab;
import io.segscope.lab.LabTest;
import io.segscope.lab.Prerequisites;
import io.segscope.lab.Scenarios;
import io.segscope.lab.Topology;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * S1/S2/S3 and their controls in the mode named by the system property {@code segscope.guest.mode}
 * ({@code kprobe} or {@code fentry}). Not a *Test/*IT: Maven never runs it on the host; GuestModesIT
 * runs it inside Debian's stock kernel under qemu with the JUnit console launcher. Timeouts allow for
 * emulation (~100x slower than hardware).
 *
 * <p>The device kinds the development kernel lacks (geneve, vlan, ipvlan, bond, WireGuard: docs/lab.md
 * G1-G5) are tagged {@value #KINDS}: GuestModesIT runs them in the kprobe boot only (the site comes
 * from __skb_gso_segment's return address there; fentry cannot see its caller), each beside its
 * healthy control in one drive.
 */
class GuestScenarios extends ScenarioSuite {
  static final String MODE_PROPERTY = "segscope.guest.mode";
  /** The tag of the guest-only device kinds. */
  static final String KINDS = "guest-kinds";

  @Override
  String mode() {
    String mode = System.getProperty(MODE_PROPERTY, "");
    if (!Set.of("kprobe", "fentry").contains(mode)) {
      throw new IllegalStateException("run GuestScenarios: system property " + MODE_PROPERTY
          + " must be kprobe or fentry, got '" + mode + "'");
    }
    return mode;
  }

  @Override
  Duration readyTimeout() {
    return Duration.ofSeconds(240);
  }

  private Traffic side(Lab lab, Topology bad, Topology healthy) throws Exception {
    return driveAll(lab, List.of(bad, healthy), List.of(iperf(lab, bad, SHORT), iperf(lab, healthy, SHORT)), false);
  }

  @Test
  @LabTest
  @Tag(KINDS)
  void g1GeneveOverAnUnderlayWithoutTunnelSegmentationIsSegmentedOnTheUnderlay(Lab lab) throws Exception {
    Topology bad = Scenarios.g1GeneveTunnelOffloadOff(lab, false);
    Topology ok = Scenarios.g1GeneveTunnelOffloadOff(lab, true);
    Traffic t = side(lab, bad, ok);
    DeviceAt u0 = bad.device("underlay");
    assertSegmentedAt(t, bad, new Segmenting(u0, "xmit", Sites.XMIT, "tunnel_feature_missing", "udp_tunnel", false,
        true));
    assertOnlyOn(t, bad, u0, Sites.XMIT);
    assertHealthyControl(t, ok, ok.device("underlay"), Sites.XMIT);
  }

  @Test
  @LabTest
  @Tag(KINDS)
  void g2VlanOverALowerWithoutTsoIsSegmentedOnTheLower(Lab lab) throws Exception {
    Topology bad = Scenarios.g2VlanOverLowerWithoutTso(lab, false);
    Topology ok = Scenarios.g2VlanOverLowerWithoutTso(lab, true);
    Traffic t = side(lab, bad, ok);
    DeviceAt u0 = bad.device("lower");
    assertSegmentedAt(t, bad, new Segmenting(u0, "xmit", Sites.XMIT, "feature_missing", "tcp4", false, true));
    assertOnlyOn(t, bad, u0, Sites.XMIT);
    assertHealthyControl(t, ok, ok.device("lower"), Sites.XMIT);
  }

  @Test
  @LabTest
  @Tag(KINDS)
  void g3IpvlanOverALowerWithoutTsoIsSegmentedOnTheLower(Lab lab) throws Exception {
    Topology bad = Scenarios.g3IpvlanOffloadLost(lab, false);
    Topology ok = Scenarios.g3IpvlanOffloadLost(lab, true);
    Traffic t = side(lab, bad, ok);
    DeviceAt low = bad.device("lower");
    assertSegmentedAt(t, bad, new Segmenting(low, "xmit", Sites.XMIT, "feature_missing", "tcp4", false, true));
    assertOnlyOn(t, bad, low, Sites.XMIT);
    assertHealthyControl(t, ok, ok.device("lower"), Sites.XMIT);
  }

  @Test
  @LabTest
  @Tag(KINDS)
  void g4BondPortWithASmallerGsoMaxSizeSegmentsWhatTheBondOffers(Lab lab) throws Exception {
    Topology bad = Scenarios.g4BondPortSmallerThanBond(lab, false);
    Topology ok = Scenarios.g4BondPortSmallerThanBond(lab, true);
    Traffic t = side(lab, bad, ok);
    DeviceAt port = bad.device("port");
    assertSegmentedAt(t, bad, new Segmenting(port, "xmit", Sites.XMIT, "gso_max_size", "tcp4", false, true));
    assertOnlyOn(t, bad, port, Sites.XMIT);
    assertHealthyControl(t, ok, ok.device("port"), Sites.XMIT);
  }

  @Test
  @LabTest
  @Tag(KINDS)
  void g5WireguardSegmentsEverySuperPacketItself(Lab lab) throws Exception {
    Prerequisites.requireTool("wg", "the WireGuard scenario (wireguard-tools)");
    Topology bad = Scenarios.g5Wireguard(lab, false);
    Topology ok = Scenarios.g5Wireguard(lab, true);
    Traffic t = side(lab, bad, ok);
    DeviceAt wg = bad.device("sender");
    assertSegmentedAt(t, bad, new Segmenting(wg, "other", Sites.WIREGUARD, "other", "tcp4", false, true));
    assertOnlyOn(t, bad, wg, Sites.WIREGUARD);
    assertThat(t.delta("segscope_gso_offloaded_skbs_total", dev(wg)))
        .as("WireGuard segments every super-packet: none counts as handed whole to a driver").isZero();
    assertHealthyControl(t, ok, ok.device("underlay"), Sites.WIREGUARD);
  }
}

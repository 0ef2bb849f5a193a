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
import java.util.ArrayList;
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
 * healthy control, all of them in one drive.
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

  /**
   * G1-G5 at once, each beside its healthy control, in ONE drive (one oracle, one agent read): the guest
   * run is the suite's slowest part, so the device kinds the development kernel lacks share one traffic
   * phase instead of five.
   */
  @Test
  @LabTest
  @Tag(KINDS)
  void guestOnlyDeviceKindsAreSegmentedWhereTheirLowerDeviceFallsShort(Lab lab) throws Exception {
    Prerequisites.requireTool("wg", "the WireGuard scenario (wireguard-tools)");
    List<Kind> kinds = List.of(
        new Kind(Scenarios.g1GeneveTunnelOffloadOff(lab, false), Scenarios.g1GeneveTunnelOffloadOff(lab, true),
            "underlay", "xmit", Sites.XMIT, "tunnel_feature_missing", "udp_tunnel", "underlay"),
        new Kind(Scenarios.g2VlanOverLowerWithoutTso(lab, false), Scenarios.g2VlanOverLowerWithoutTso(lab, true),
            "lower", "xmit", Sites.XMIT, "feature_missing", "tcp4", "lower"),
        new Kind(Scenarios.g3IpvlanOffloadLost(lab, false), Scenarios.g3IpvlanOffloadLost(lab, true),
            "lower", "xmit", Sites.XMIT, "feature_missing", "tcp4", "lower"),
        new Kind(Scenarios.g4BondPortSmallerThanBond(lab, false), Scenarios.g4BondPortSmallerThanBond(lab, true),
            "port", "xmit", Sites.XMIT, "gso_max_size", "tcp4", "port"),
        new Kind(Scenarios.g5Wireguard(lab, false), Scenarios.g5Wireguard(lab, true),
            "sender", "other", Sites.WIREGUARD, "other", "tcp4", "underlay"));
    List<Topology> all = new ArrayList<>();
    List<Flow> flows = new ArrayList<>();
    for (Kind k : kinds) {
      all.add(k.bad());
      all.add(k.ok());
      flows.add(iperf(lab, k.bad(), SHORT));
      flows.add(iperf(lab, k.ok(), SHORT));
    }
    Traffic t = driveAll(lab, all, flows, false);
    for (Kind k : kinds) {
      DeviceAt at = k.bad().device(k.segmenting());
      assertSegmentedAt(t, k.bad(), new Segmenting(at, k.site(), k.oracleSite(), k.cause(), k.gsoType(), false, true));
      assertOnlyOn(t, k.bad(), at, k.oracleSite());
      assertHealthyControl(t, k.ok(), k.ok().device(k.offloading()), k.oracleSite());
    }
    DeviceAt wg = kinds.get(4).bad().device("sender");
    assertThat(t.delta("segscope_gso_offloaded_skbs_total", dev(wg)))
        .as("WireGuard segments every super-packet: none counts as handed whole to a driver").isZero();
  }

  /** One guest-only kind: the topology that segments, its control, where and why it segments. */
  private record Kind(Topology bad, Topology ok, String segmenting, String site,
      java.util.function.Predicate<String> oracleSite, String cause, String gsoType, String offloading) {}
}

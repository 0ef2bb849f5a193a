package io.segscope.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.probes.MeasuredPath;
import io.segscope.probes.ModeVerdict;
import io.segscope.probes.PathPlan;
import io.segscope.probes.ProbeAttachment;
import io.segscope.probes.ProbeMode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Readiness from what the probes and the inventory report: pure, on made-up reports. */
class HealthTest {
  static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
  static final Duration STALE = Duration.ofSeconds(30);
  static final Health.InventoryStatus FRESH = new Health.InventoryStatus(NOW.minusSeconds(1), Optional.empty());

  static PathPlan planned(MeasuredPath path, ProbeMode mode) {
    return new PathPlan(path, Optional.of(mode), List.of(new ModeVerdict(mode, true, "")));
  }

  static PathPlan unmeasured(MeasuredPath path) {
    return new PathPlan(path, Optional.empty(), List.of(new ModeVerdict(ProbeMode.TRACEPOINT, false, "no tracepoint")));
  }

  static ProbeAttachment a(String path, String program, String mode, boolean attached, String detail) {
    return new ProbeAttachment(path, program, mode, "tp_btf:" + program, "tp_btf", attached, false, detail);
  }

  static ProbeAttachment onDemand(String path, String program, boolean attached) {
    return new ProbeAttachment(path, program, "tracepoint", "tp_btf:" + program, "tp_btf", attached, true,
        attached ? "" : "on demand: not needed now");
  }

  static final List<PathPlan> BOTH = List.of(planned(MeasuredPath.GSO_TX, ProbeMode.TRACEPOINT),
      planned(MeasuredPath.XDP_GENERIC, ProbeMode.TRACEPOINT));

  @Test
  void everyPlannedPathAttachedFirstReadDoneFreshInventory() {
    List<ProbeAttachment> all =
        List.of(a("gso_tx", "p1", "tracepoint", true, ""), a("gso_tx", "p2", "tracepoint", true, ""),
            a("xdp_generic", "p3", "tracepoint", true, ""));
    assertThat(Health.notReady(BOTH, all, true, FRESH, NOW, STALE)).isEmpty();
  }

  @Test
  void aPlannedPathWithNothingAttachedSaysWhy() {
    List<ProbeAttachment> all = List.of(a("gso_tx", "p1", "tracepoint", true, ""),
        a("xdp_generic", "p3", "tracepoint", false, "attach failed: EINVAL"));
    assertThat(Health.notReady(BOTH, all, true, FRESH, NOW, STALE))
        .containsExactly("probe path xdp_generic not attached (p3: attach failed: EINVAL)");
  }

  @Test
  void onDemandProgramsDetachedOnPurposeDoNotHoldReadinessBack() {
    // the per-packet generic-XDP program while no device has a generic XDP program; the qdisc dequeue
    // while nothing segments: a path made only of such programs is ready too
    List<ProbeAttachment> all = List.of(a("gso_tx", "p1", "tracepoint", true, ""),
        onDemand("gso_tx", "qdisc_dequeue", false), onDemand("xdp_generic", "netif_receive_skb", false));
    assertThat(Health.notReady(BOTH, all, true, FRESH, NOW, STALE)).isEmpty();
  }

  @Test
  void oneAlwaysOnProgramDetachedIsEnoughToBeNotReady() {
    List<ProbeAttachment> all = List.of(a("gso_tx", "p1", "tracepoint", true, ""),
        a("gso_tx", "p2", "tracepoint", false, "detached"), onDemand("xdp_generic", "netif_receive_skb", true));
    assertThat(Health.notReady(BOTH, all, true, FRESH, NOW, STALE))
        .containsExactly("probe path gso_tx not attached (p2: detached)");
  }

  @Test
  void anUnmeasuredPathDoesNotHoldReadinessBack() {
    List<ProbeAttachment> all = List.of(a("gso_tx", "p1", "tracepoint", true, ""),
        a("xdp_generic", "p3", "tracepoint", false, "not measured: no tracepoint"));
    assertThat(Health.notReady(List.of(planned(MeasuredPath.GSO_TX, ProbeMode.TRACEPOINT),
        unmeasured(MeasuredPath.XDP_GENERIC)), all, true, FRESH, NOW, STALE)).isEmpty();
  }

  @Test
  void closedSessionIsNotReady() {
    List<ProbeAttachment> closed = List.of(a("gso_tx", "p1", "tracepoint", false, "closed"),
        a("xdp_generic", "p3", "tracepoint", false, "closed"));
    assertThat(Health.notReady(BOTH, closed, true, FRESH, NOW, STALE)).hasSize(2)
        .allSatisfy(r -> assertThat(r).endsWith(": closed)"));
  }

  @Test
  void firstReadPendingStaleAndDeadInventory() {
    List<ProbeAttachment> all =
        List.of(a("gso_tx", "p1", "tracepoint", true, ""), a("xdp_generic", "p3", "tracepoint", true, ""));
    assertThat(Health.notReady(BOTH, all, false, FRESH, NOW, STALE)).containsExactly("first map read pending");
    Health.InventoryStatus old = new Health.InventoryStatus(NOW.minusSeconds(45), Optional.empty());
    assertThat(Health.notReady(BOTH, all, true, old, NOW, STALE))
        .containsExactly("device inventory stale: last refresh 45 s ago (more than 30 s)");
    Health.InventoryStatus atTheBound = new Health.InventoryStatus(NOW.minusSeconds(30), Optional.empty());
    assertThat(Health.notReady(BOTH, all, true, atTheBound, NOW, STALE)).isEmpty();
    Health.InventoryStatus dead = new Health.InventoryStatus(NOW.minusSeconds(45), Optional.of("OutOfMemoryError: x"));
    assertThat(Health.notReady(BOTH, all, true, dead, NOW, STALE))
        .containsExactly("device inventory thread died: OutOfMemoryError: x");
  }
}

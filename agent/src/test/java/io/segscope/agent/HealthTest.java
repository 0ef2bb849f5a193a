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
    return new ProbeAttachment(path, program, mode, "tracepoint:x:" + program, attached, detail);
  }

  static final List<PathPlan> BOTH = List.of(planned(MeasuredPath.GSO_TX, ProbeMode.TRACEPOINT),
      planned(MeasuredPath.XDP_GENERIC, ProbeMode.TRACEPOINT));

  @Test
  void everyPlannedPathAttachedFirstReadDoneFreshInventory() {
    List<ProbeAttachment> all = List.of(a("gso_tx", "p1", "tracepoint", true, ""), a("gso_tx", "p2", "tracepoint", true, ""),
        a("xdp_generic", "p3", "tracepoint", true, ""));
    assertThat(Health.notReady(BOTH, all, true, FRESH, NOW, STALE)).isEmpty();
  }

  @Test
  void aPlannedPathWithNothingAttachedSaysWhy() {
    List<ProbeAttachment> all = List.of(a("gso_tx", "p1", "tracepoint", true, ""),
        a("xdp_generic", "p3", "tracepoint", false, "attach failed: EINVAL"));
    assertThat(Health.notReady(BOTH, all, true, FRESH, NOW, STALE))
        .containsExactly("probe path xdp_generic not attached (attach failed: EINVAL)");
  }

  @Test
  void aPathCountsAsAttachedWhileAnyOfItsProgramsRuns() {
    // e.g. a program detached on purpose while no device has a generic XDP program
    List<ProbeAttachment> all = List.of(a("gso_tx", "p1", "tracepoint", true, ""),
        a("xdp_generic", "p3", "tracepoint", true, ""), a("xdp_generic", "p4", "tracepoint", false, "gated"));
    assertThat(Health.notReady(BOTH, all, true, FRESH, NOW, STALE)).isEmpty();
  }

  @Test
  void aPathThatFellBackToAnotherModeCountsItsRunningMode() {
    // kprobe programs failed to load, the tracepoint ones run: ready (the lead's per-path fallback)
    List<ProbeAttachment> all = List.of(a("gso_tx", "k1", "kprobe", false, "load failed"),
        a("gso_tx", "t1", "tracepoint", true, ""), a("xdp_generic", "p3", "tracepoint", true, ""));
    assertThat(Health.notReady(List.of(planned(MeasuredPath.GSO_TX, ProbeMode.KPROBE),
        planned(MeasuredPath.XDP_GENERIC, ProbeMode.TRACEPOINT)), all, true, FRESH, NOW, STALE)).isEmpty();
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
        .allSatisfy(r -> assertThat(r).endsWith("not attached (closed)"));
  }

  @Test
  void firstReadPendingStaleAndDeadInventory() {
    List<ProbeAttachment> all = List.of(a("gso_tx", "p1", "tracepoint", true, ""), a("xdp_generic", "p3", "tracepoint", true, ""));
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

package io.segscope.probes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.segscope.lab.Prerequisites;
import io.segscope.testkit.Requirement;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The probe plan and session against the real kernel. On the development/CI kernel (no
 * CONFIG_KPROBES, fentry refused) every path must fall back to tracepoints with both reasons recorded,
 * tracepoints must attach as tp_btf, and forcing a better mode must fail with the reason. Tests that
 * describe such a kernel are skipped, with the reason, on a kernel that has kprobes (the qemu guest
 * tests cover those).
 */
@Tag("lab")
class ProbePlanLabTest {

  static boolean kernelHasKprobes() {
    return Files.isDirectory(Path.of("/sys/bus/event_source/devices/kprobe"))
        || Files.exists(Path.of("/sys/kernel/tracing/kprobe_events"))
        || Files.exists(Path.of("/sys/kernel/debug/tracing/kprobe_events"));
  }

  private static void requireRoot() {
    Prerequisites.requireRoot("trial attaches and loads need root");
  }

  private static void requireKernelWithoutKprobes() {
    requireRoot();
    Requirement.appliesOnlyWhere(!kernelHasKprobes(),
        "kernels without kprobes (the fallback to tracepoints); this one has them");
  }

  @Test
  void withoutKprobesEveryPathFallsBackToTracepointsAttachedAsTpBtf() {
    requireKernelWithoutKprobes();
    ProbePlan plan = ProbePlan.decide(Optional.empty(), Optional.empty());
    for (PathPlan p : plan.paths()) {
      assertThat(p.mode()).as(p.describe()).contains(ProbeMode.TRACEPOINT);
      ModeVerdict fentry = p.verdict(ProbeMode.FENTRY).orElseThrow();
      ModeVerdict kprobe = p.verdict(ProbeMode.KPROBE).orElseThrow();
      assertThat(fentry.usable()).isFalse();
      // the trial load of an fentry program is refused by this kernel
      assertThat(fentry.reason()).as(p.describe())
          .contains("bpf BPF_PROG_LOAD segscope_trial").contains("Operation not permitted (errno 1)");
      assertThat(kprobe.reason()).as(p.describe()).startsWith("CONFIG_KPROBES is not set");
      assertThat(p.verdict(ProbeMode.TRACEPOINT).orElseThrow().usable()).isTrue();
    }
    assertThat(plan.failure()).isEmpty();
    assertThat(plan.modeLabels()).containsEntry("gso_tx", "tracepoint").containsEntry("xdp_generic", "tracepoint");
    assertThat(plan.tracepointAttach()).as(plan.describe()).isEqualTo(TracepointAttach.TP_BTF);
  }

  @Test
  void forcingKprobeFailsWithTheReasonAndCompilesNothing() {
    requireKernelWithoutKprobes();
    ProbePlan plan = ProbePlan.decide(Optional.of(ProbeMode.KPROBE), Optional.empty());
    assertThat(plan.paths()).allSatisfy(p -> {
      assertThat(p.measured()).isFalse();
      assertThat(p.verdicts()).extracting(ModeVerdict::mode).containsExactly(ProbeMode.KPROBE);
    });
    assertThat(plan.failure()).hasValueSatisfying(f -> assertThat(f)
        .startsWith("use probe mode kprobe: gso_tx: kprobe: CONFIG_KPROBES is not set"));
    assertThatThrownBy(() -> ProbeSession.open(plan, new ProbeSession.Options(4096, (n, t, f) -> {
      throw new AssertionError("nothing is compiled for a plan that cannot run");
    }))).isInstanceOf(ProbeException.class).hasMessageContaining("CONFIG_KPROBES is not set");
  }

  @Test
  void forcingFentryFailsWithTheKernelsRefusal() {
    requireKernelWithoutKprobes();
    ProbePlan plan = ProbePlan.decide(Optional.of(ProbeMode.FENTRY), Optional.empty());
    assertThat(plan.failure()).hasValueSatisfying(f -> assertThat(f)
        .contains("gso_tx: fentry: bpf BPF_PROG_LOAD segscope_trial: Operation not permitted (errno 1)"));
  }

  @Test
  void theAutoPlanOpensOneSessionAndAttachesOnDemandProgramsOnlyWhenAsked() throws Exception {
    requireRoot();
    ProbePlan plan = ProbePlan.decide(Optional.empty(), Optional.empty());
    try (ProbeSession session = ProbeSession.open(plan, ProbeSession.Options.defaults())) {
      assertThat(session.attachments()).isNotEmpty().allSatisfy(a -> {
        assertThat(a.attached()).as(a.toString()).isEqualTo(!a.onDemand());
        assertThat(a.mode()).isEqualTo(plan.modeLabels().get(a.path()));
        assertThat(a.attach()).isEqualTo(a.target().substring(0, a.target().indexOf(':')));
      });
      assertThat(session.attachments()).extracting(ProbeAttachment::path).contains("gso_tx", "xdp_generic");
      session.setGenericXdpPresent(true);
      assertThat(session.attachments()).filteredOn(a -> a.path().equals("xdp_generic"))
          .allSatisfy(a -> assertThat(a.attached()).as(a.toString()).isTrue());
      session.setGenericXdpPresent(false);
      assertThat(session.attachments()).filteredOn(a -> a.path().equals("xdp_generic") && a.onDemand())
          .allSatisfy(a -> assertThat(a.attached()).as(a.toString()).isFalse());
      assertThat(session.read().devices()).isNotNull();
      assertThat(session.mapMemory()).containsKeys("dev_counts", "gso_detail", "dev_names")
          .allSatisfy((map, bytes) -> assertThat(bytes).as(map).isPositive());
    }
  }

  @Test
  void aPathWhoseRealProgramFailsToLoadFallsBackAndTheOthersKeepRunning() throws Exception {
    requireKernelWithoutKprobes();
    ProbePlan plan = ProbePlan.decide(Optional.empty(), Optional.empty());
    try (ProbeSession session = ProbeSession.open(plan,
        ProbeSession.Options.defaults().withFailLoad("xdp_generic:tracepoint"))) {
      PathPlan xdp = session.plan().path(MeasuredPath.XDP_GENERIC);
      assertThat(xdp.measured()).as("no mode is left for xdp_generic on this kernel").isFalse();
      assertThat(xdp.verdict(ProbeMode.TRACEPOINT).orElseThrow().reason())
          .startsWith("its program failed to load: injected load failure");
      assertThat(session.modeLabel(MeasuredPath.GSO_TX)).isEqualTo("tracepoint");
      assertThat(session.attachments()).filteredOn(a -> a.path().equals("gso_tx") && !a.onDemand())
          .allSatisfy(a -> assertThat(a.attached()).isTrue());
      assertThat(session.attachments()).filteredOn(a -> a.path().equals("xdp_generic"))
          .allSatisfy(a -> assertThat(a.detail()).startsWith("not measured: "));
    }
  }

  @Test
  void everyTracepointAttachTypeLoadsAndAttachesOnThisKernel() throws Exception {
    requireRoot();
    for (TracepointAttach a : TracepointAttach.values()) {
      ProbePlan plan = ProbePlan.decide(Optional.of(ProbeMode.TRACEPOINT), Optional.of(a));
      assertThat(plan.failure()).as(a + ": " + plan.describe()).isEmpty();
      try (
          ProbeSession session = ProbeSession.open(plan, ProbeSession.Options.defaults().withTiming(Timing.always()))) {
        assertThat(session.attachments()).filteredOn(x -> !x.onDemand())
            .allSatisfy(x -> assertThat(x.attach()).isEqualTo(a.label()));
        session.setGenericXdpPresent(true);
        assertThat(session.attachments()).allSatisfy(x -> assertThat(x.attached()).as(x.toString()).isTrue());
      }
    }
  }
}

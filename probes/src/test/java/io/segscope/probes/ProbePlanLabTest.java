package io.segscope.probes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The probe plan against the real kernel. On the development/CI kernel (no CONFIG_KPROBES, fentry
 * refused) every path must fall back to tracepoints with both reasons recorded, and forcing a better
 * mode must fail with the reason. Tests that describe such a kernel are skipped, with the reason, on
 * a kernel that has kprobes (the qemu guest tests cover those).
 */
@Tag("lab")
class ProbePlanLabTest {

  private static boolean kernelHasKprobes() {
    return Files.isDirectory(Path.of("/sys/bus/event_source/devices/kprobe"))
        || Files.exists(Path.of("/sys/kernel/tracing/kprobe_events"))
        || Files.exists(Path.of("/sys/kernel/debug/tracing/kprobe_events"));
  }

  private static void requireKernelWithoutKprobes() {
    Assumptions.assumeFalse(kernelHasKprobes(),
        "this kernel has kprobes: these tests describe the fallback on kernels without them");
    Assumptions.assumeTrue(ProcessHandle.current().info().user().map("root"::equals).orElse(false),
        "trial attaches need root");
  }

  @Test
  void withoutKprobesEveryPathFallsBackToTracepointsAndKeepsTheReasons() {
    requireKernelWithoutKprobes();
    ProbePlan plan = ProbePlan.decide(Optional.empty());
    System.out.println(plan.describe());
    for (PathPlan p : plan.paths()) {
      assertThat(p.mode()).as(p.describe()).contains(ProbeMode.TRACEPOINT);
      ModeVerdict fentry = p.verdict(ProbeMode.FENTRY).orElseThrow();
      ModeVerdict kprobe = p.verdict(ProbeMode.KPROBE).orElseThrow();
      assertThat(fentry.usable()).isFalse();
      // the trial load of an fentry program is refused by this kernel
      assertThat(fentry.reason()).as(p.describe())
          .contains("bcc_func_load kfunc__").contains("Operation not permitted (errno 1)");
      assertThat(kprobe.reason()).as(p.describe()).startsWith("CONFIG_KPROBES is not set");
      assertThat(p.verdict(ProbeMode.TRACEPOINT).orElseThrow().usable()).isTrue();
    }
    assertThat(plan.failure()).isEmpty();
    assertThat(plan.modeLabels()).containsEntry("gso_tx", "tracepoint").containsEntry("xdp_generic", "tracepoint");
  }

  @Test
  void forcingKprobeFailsWithTheReasonAndAttachesNothing() {
    requireKernelWithoutKprobes();
    ProbePlan plan = ProbePlan.decide(Optional.of(ProbeMode.KPROBE));
    assertThat(plan.paths()).allSatisfy(p -> {
      assertThat(p.measured()).isFalse();
      assertThat(p.verdicts()).extracting(ModeVerdict::mode).containsExactly(ProbeMode.KPROBE);
    });
    assertThat(plan.failure()).hasValueSatisfying(f -> assertThat(f)
        .startsWith("use probe mode kprobe: gso_tx: kprobe: CONFIG_KPROBES is not set"));
    assertThatThrownBy(() -> ProbeSession.open(plan)).isInstanceOf(ProbeException.class)
        .hasMessageContaining("CONFIG_KPROBES is not set");
  }

  @Test
  void forcingFentryFailsWithTheKernelsRefusal() {
    requireKernelWithoutKprobes();
    ProbePlan plan = ProbePlan.decide(Optional.of(ProbeMode.FENTRY));
    assertThat(plan.failure()).hasValueSatisfying(f -> assertThat(f)
        .contains("gso_tx: fentry: bcc_func_load kfunc____skb_gso_segment: Operation not permitted (errno 1)"));
  }

  @Test
  void theAutoPlanOpensOneSessionWithEveryProgramAttachedAndLabelled() throws Exception {
    Assumptions.assumeTrue(ProcessHandle.current().info().user().map("root"::equals).orElse(false),
        "attaching needs root");
    ProbePlan plan = ProbePlan.decide(Optional.empty());
    try (ProbeSession session = ProbeSession.open(plan)) {
      assertThat(session.attachments()).isNotEmpty().allSatisfy(a -> {
        assertThat(a.attached()).as(a.toString()).isTrue();
        assertThat(a.mode()).isEqualTo(plan.modeLabels().get(a.path()));
      });
      assertThat(session.attachments()).extracting(ProbeAttachment::path).contains("gso_tx", "xdp_generic");
      assertThat(session.modeLabels()).isEqualTo(plan.modeLabels());
      assertThat(session.read().devices()).isNotNull();
    }
  }
}

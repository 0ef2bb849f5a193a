package io.segscope.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.testkit.Requirement;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code segscope doctor} and {@code run --probe-mode} as a user runs them, on the host kernel: a kernel
 * without kprobes that refuses fentry, where gso_tx must fall back to tracepoints and say why. The tests
 * that describe such a kernel are skipped, with the reason, on a kernel with kprobes (the guest tests
 * cover those).
 */
@Tag("lab")
class DoctorIT {
  private static final Duration LIMIT = Duration.ofSeconds(120);

  private static void requireRootOnAKernelWithoutKprobes() {
    Requirement.require(ProcessHandle.current().info().user().map("root"::equals).orElse(false),
        "root (doctor's probe test loads programs)");
    Requirement.appliesOnlyWhere(!(Files.isDirectory(Path.of("/sys/bus/event_source/devices/kprobe"))
        || Files.exists(Path.of("/sys/kernel/tracing/kprobe_events"))),
        "kernels without kprobes (the fallback to tracepoints); this one has them");
  }

  @Test
  void doctorIsReadyInTracepointModeAndNamesWhyTheBetterModesAreOut() throws Exception {
    requireRootOnAKernelWithoutKprobes();
    AgentProcess.ProcessResult r = AgentProcess.runToExit(LIMIT, "doctor");
    String out = r.output();
    assertThat(r.exitCode()).as(out).isZero();
    assertThat(out).contains("segscope doctor: kernel " + System.getProperty("os.version"))
        .containsPattern("ok +btf +/sys/kernel/btf/vmlinux: \\d+ bytes")
        .containsPattern("(ok|warn) +headers ")
        .containsPattern("ok +capabilities")
        .containsPattern("ok +libbcc +0\\.26")
        .containsPattern("gso_tx +tracepoint")
        .containsPattern("fentry +out: bpf BPF_PROG_LOAD segscope_trial: Operation not permitted \\(errno 1\\)")
        .containsPattern("kprobe +out: CONFIG_KPROBES is not set")
        .containsPattern("tracepoint programs attach as .*\\n  tp_btf\\n")
        .containsPattern("ok +probe test +compiled, loaded and attached 2 programs \\(3 more on demand\\)")
        .containsPattern("kernel map memory \\d+\\.\\d MiB")
        .contains("ready: gso_tx in tracepoint mode, xdp_generic in tracepoint mode")
        .doesNotContain("\tat ");
  }

  @Test
  void doctorJsonCarriesTheSameVerdictsForMachines() throws Exception {
    requireRootOnAKernelWithoutKprobes();
    AgentProcess.ProcessResult r = AgentProcess.runToExit(LIMIT, "doctor", "--json");
    assertThat(r.exitCode()).as(r.output()).isZero();
    String json = r.output().substring(r.output().indexOf('{')); // libbcc prints refused loads to stderr first
    JsonNode report = new ObjectMapper().readTree(json);
    assertThat(report.path("ready").asBoolean()).isTrue();
    assertThat(report.path("probeMode").asText()).isEqualTo("auto");
    JsonNode gso = report.path("paths").get(0);
    assertThat(gso.path("path").asText()).isEqualTo("gso_tx");
    assertThat(gso.path("mode").asText()).isEqualTo("tracepoint");
    assertThat(gso.path("tried")).hasSize(3);
    assertThat(gso.path("tried").get(0).path("reason").asText()).contains("Operation not permitted (errno 1)");
    assertThat(gso.path("tried").get(1).path("reason").asText()).startsWith("CONFIG_KPROBES is not set");
    assertThat(gso.path("tried").get(2).path("usable").asBoolean()).isTrue();
    assertThat(report.path("probeTest").path("status").asText()).isEqualTo("ok");
  }

  /**
   * A real program that fails to load (the hidden flag --inject-load-failure) takes its path to the next mode in
   * doctor's probe test, as in run; doctor reports the plan that ran, not the one its trial attaches decided
   * (before, it said "xdp_generic in tracepoint mode" while the probe test had left xdp_generic unmeasured).
   */
  @Test
  void doctorReportsThePathsAsTheyRanWhenARealProgramFailsToLoad() throws Exception {
    requireRootOnAKernelWithoutKprobes();
    AgentProcess.ProcessResult r = AgentProcess.runToExit(
        List.of(), LIMIT, "doctor", "--json", "--inject-load-failure", "xdp_generic:tracepoint");
    assertThat(r.exitCode()).as("gso_tx is still measured: %s", r.output()).isZero();
    JsonNode report = new ObjectMapper().readTree(r.output().substring(r.output().indexOf('{')));
    assertThat(report.path("verdict").asText()).isEqualTo("ready: gso_tx in tracepoint mode, xdp_generic not measured");
    JsonNode xdp = report.path("paths").get(1);
    assertThat(xdp.path("path").asText()).isEqualTo("xdp_generic");
    assertThat(xdp.path("mode").asText()).isEqualTo("none");
    JsonNode tracepoint = xdp.path("tried").get(xdp.path("tried").size() - 1);
    assertThat(tracepoint.path("mode").asText()).isEqualTo("tracepoint");
    assertThat(tracepoint.path("usable").asBoolean()).isFalse();
    assertThat(tracepoint.path("reason").asText()).startsWith("its program failed to load: injected load failure");
    assertThat(report.path("paths").get(0).path("mode").asText()).isEqualTo("tracepoint");
    assertThat(report.path("probeTest").path("detail").asText())
        .contains("fell back: xdp_generic: tracepoint -> not measured");
  }

  @Test
  void doctorWithAForcedModeTheKernelLacksIsNotReadyAndSaysWhy() throws Exception {
    requireRootOnAKernelWithoutKprobes();
    AgentProcess.ProcessResult r = AgentProcess.runToExit(LIMIT, "doctor", "--probe-mode", "kprobe");
    assertThat(r.exitCode()).as(r.output()).isEqualTo(1);
    assertThat(r.output()).contains("not ready: gso_tx cannot be measured: kprobe: CONFIG_KPROBES is not set");
  }

  @Test
  void runWithAForcedModeTheKernelLacksFailsCleanlyWithTheReason() throws Exception {
    requireRootOnAKernelWithoutKprobes();
    for (String mode : new String[] {"kprobe", "fentry"}) {
      AgentProcess.ProcessResult r = AgentProcess.runToExit(LIMIT, "run", "--listen", "127.0.0.1:0",
          "--probe-mode", mode);
      assertThat(r.exitCode()).as("run --probe-mode %s: %s", mode, r.output()).isEqualTo(1);
      assertThat(r.output()).as(mode).contains("segscope: use probe mode " + mode + ": gso_tx: " + mode + ": ")
          .doesNotContain("\tat ").doesNotContain("Exception");
    }
    AgentProcess.ProcessResult k = AgentProcess.runToExit(LIMIT, "run", "--listen", "127.0.0.1:0",
        "--probe-mode", "kprobe");
    assertThat(k.output()).contains("CONFIG_KPROBES is not set");
  }

  @Test
  void anUnknownModeIsABadFlag() throws Exception {
    AgentProcess.ProcessResult r = AgentProcess.runToExit(LIMIT, "run", "--probe-mode", "uprobe");
    assertThat(r.exitCode()).as(r.output()).isEqualTo(2);
    assertThat(r.output()).contains("--probe-mode").contains("expected auto, fentry, kprobe or tracepoint");
  }
}

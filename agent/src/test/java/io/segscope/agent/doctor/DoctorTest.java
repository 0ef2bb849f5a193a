package io.segscope.agent.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.probes.KernelProbes;
import io.segscope.probes.MeasuredPath;
import io.segscope.probes.ProbeMode;
import io.segscope.probes.ProbePlan;
import io.segscope.probes.load.AttachPoint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The doctor's verdict logic and host checks, without a kernel. */
class DoctorTest {

  /** A kernel like the development machine's (fentry refused, no kprobes), or one that has kprobes. */
  record Kernel(boolean kprobes, boolean vxsPresent) implements KernelProbes {
    @Override
    public Optional<String> btfMissing() {
      return Optional.empty();
    }

    @Override
    public boolean btfHasFunction(String function) {
      return true;
    }

    @Override
    public Optional<String> kallsymsUnreadable() {
      return Optional.empty();
    }

    @Override
    public List<String> functionAndClones(String function) {
      return function.equals("validate_xmit_skb") && !vxsPresent ? List.of() : List.of(function);
    }

    @Override
    public Optional<String> kprobesUnsupported() {
      return kprobes ? Optional.empty() : Optional.of("CONFIG_KPROBES is not set");
    }

    @Override
    public Optional<String> tracepointMissing(String category, String event) {
      return Optional.empty();
    }

    @Override
    public Optional<String> tracepointFieldMissing(String category, String event, String field) {
      return Optional.empty();
    }

    @Override
    public Optional<List<String>> tracepointArgs(String event) {
      return Optional.of(event.equals("qdisc_dequeue")
          ? List.of("struct Qdisc *", "struct netdev_queue *", "int", "struct sk_buff *")
          : event.equals("net_dev_queue") || event.equals("netif_receive_skb") ? List.of("struct sk_buff *")
              : List.of("struct sk_buff *", "void *"));
    }

    @Override
    public Optional<String> tryAttach(AttachPoint point) {
      return point.kind().equals("fentry") || point.kind().equals("fexit")
          ? Optional.of("bpf BPF_PROG_LOAD segscope_trial: Operation not permitted (errno 1)")
          : Optional.empty();
    }
  }

  private static final List<Check> HEALTHY = List.of(Check.ok("btf", "fine"), Check.warn("headers", "other"));
  private static final Check PROBES_OK = Check.ok("probe test", "attached 5 programs");

  @Test
  void readyNamesEachPathsMode() {
    ProbePlan plan = ProbePlan.decide(Optional.empty(), Optional.empty(), new Kernel(true, true));
    DoctorReport r = Doctor.report("6.1.0-57-amd64", "auto", HEALTHY, plan, PROBES_OK);
    assertThat(r.ready()).isTrue();
    assertThat(r.verdict()).isEqualTo("ready: gso_tx in kprobe mode, xdp_generic in kprobe mode");
    assertThat(r.paths()).first().satisfies(p -> {
      assertThat(p.mode()).isEqualTo("kprobe");
      assertThat(p.tried()).containsExactly(
          new DoctorReport.Tried("fentry", false,
              "bpf BPF_PROG_LOAD segscope_trial: Operation not permitted (errno 1)"),
          new DoctorReport.Tried("kprobe", true, ""));
    });
  }

  /**
   * A real program that fails to load (e.g. --inject-load-failure xdp_generic:kprobe) takes its path to the
   * next mode when the probe test opens the session, as in run: the report shows the plan that ran, not the
   * trial attaches' plan, and the probe test names the fallback.
   */
  @Test
  void aPathThatFellBackInTheProbeTestIsReportedInTheModeItRan() {
    Kernel k = new Kernel(true, true);
    ProbePlan decided = ProbePlan.decide(Optional.empty(), Optional.empty(), k);
    String why = "its program failed to load: injected load failure (xdp_generic:kprobe)";
    ProbePlan ran = decided.without(MeasuredPath.XDP_GENERIC, ProbeMode.KPROBE, why, k);
    assertThat(Doctor.fallbacks(decided, ran)).containsExactly("xdp_generic: kprobe -> tracepoint (fentry: "
        + "bpf BPF_PROG_LOAD segscope_trial: Operation not permitted (errno 1); kprobe: " + why + ")");
    assertThat(Doctor.fallbacks(decided, decided)).isEmpty();
    Doctor.ProbeTest test = new Doctor.ProbeTest(PROBES_OK, Optional.of(ran));
    DoctorReport r = Doctor.report("6.1.0-57-amd64", "auto", HEALTHY, test.planShown(decided), test.check());
    assertThat(r.verdict()).isEqualTo("ready: gso_tx in kprobe mode, xdp_generic in tracepoint mode");
    assertThat(r.paths().get(1).mode()).isEqualTo("tracepoint");
    assertThat(r.paths().get(1).tried()).contains(new DoctorReport.Tried("kprobe", false, why));
    assertThat(DoctorText.render(r)).contains("      kprobe      out: " + why + "\n");
    Doctor.ProbeTest failed = new Doctor.ProbeTest(Check.fail("probe test", "compile"), Optional.empty());
    assertThat(failed.planShown(decided)).as("no session opened: the decided plan").isSameAs(decided);
  }

  @Test
  void aFailedCheckComesFirstInTheVerdict() {
    ProbePlan plan = ProbePlan.decide(Optional.empty(), Optional.empty(), new Kernel(true, true));
    List<Check> checks = List.of(Check.ok("btf", "fine"), Check.fail("libbcc", "found 0.25.0, need 0.26.x\nmore"));
    DoctorReport r = Doctor.report("6.1", "auto", checks, plan, PROBES_OK);
    assertThat(r.ready()).isFalse();
    assertThat(r.verdict()).isEqualTo("not ready: libbcc: found 0.25.0, need 0.26.x");
  }

  @Test
  void anUnmeasurableGsoPathIsTheMissingPieceEvenWhenXdpWorks() {
    ProbePlan plan = ProbePlan.decide(Optional.empty(), Optional.empty(), new Kernel(false, false));
    DoctorReport r = Doctor.report("6.18", "auto", HEALTHY, plan, PROBES_OK);
    assertThat(r.ready()).isFalse();
    assertThat(r.verdict()).startsWith("not ready: gso_tx cannot be measured: fentry: ")
        .contains("kprobe: CONFIG_KPROBES is not set")
        .contains("tracepoint: validate_xmit_skb is not in /proc/kallsyms");
    assertThat(r.paths().get(0).mode()).isEqualTo("none");
    assertThat(r.paths().get(1).mode()).isEqualTo("tracepoint");
  }

  @Test
  void aFailedProbeTestIsTheMissingPieceOtherwise() {
    ProbePlan plan = ProbePlan.decide(Optional.of(ProbeMode.TRACEPOINT), Optional.empty(), new Kernel(false, true));
    DoctorReport r = Doctor.report("6.18", "tracepoint", HEALTHY, plan,
        Check.fail("probe test", "compile programs: compile failed\n/virtual/main.c:1: error"));
    assertThat(r.ready()).isFalse();
    assertThat(r.verdict()).isEqualTo("not ready: probe test: compile programs: compile failed");
  }

  @Test
  void textShowsChecksPathsReasonsAndVerdict() {
    ProbePlan plan = ProbePlan.decide(Optional.empty(), Optional.empty(), new Kernel(false, true));
    String text = DoctorText.render(Doctor.report("6.18.44", "auto", HEALTHY, plan, PROBES_OK));
    assertThat(text).startsWith("segscope doctor: kernel 6.18.44, probe mode auto\n")
        .contains("  warn  headers        other\n")
        .contains("  gso_tx       tracepoint\n")
        .contains("      fentry      out: bpf BPF_PROG_LOAD segscope_trial: Operation not permitted (errno 1)\n")
        .contains("      kprobe      out: CONFIG_KPROBES is not set\n")
        .contains("      tracepoint  usable\n")
        .endsWith("ready: gso_tx in tracepoint mode, xdp_generic in tracepoint mode\n");
  }

  @Test
  void headersMatchWarnOrFail(@TempDir Path modules) throws IOException {
    Path build = Files.createDirectories(modules.resolve("6.1.0-57-amd64/build/include/generated"));
    Files.writeString(build.resolve("utsrelease.h"), "#define UTS_RELEASE \"6.1.0-57-amd64\"\n");
    assertThat(HostChecks.headers("6.1.0-57-amd64", modules).status()).isEqualTo(Check.Status.OK);

    Path other = modules.resolve("6.18.44");
    Files.createDirectories(other);
    Files.createSymbolicLink(other.resolve("build"), modules.resolve("6.1.0-57-amd64/build"));
    Check mismatch = HostChecks.headers("6.18.44", modules);
    assertThat(mismatch.status()).isEqualTo(Check.Status.WARN);
    assertThat(mismatch.detail()).contains("-> " + modules.resolve("6.1.0-57-amd64/build").toRealPath())
        .contains("6.1.0-57-amd64, does not match 6.18.44").contains("struct layouts come from BTF");

    Check missing = HostChecks.headers("5.4.0", modules);
    assertThat(missing.status()).isEqualTo(Check.Status.FAIL);
    assertThat(missing.detail()).contains("5.4.0/build is missing").contains("linux-headers-5.4.0");
  }

  @Test
  void headersReleaseFallsBackToKernelRelease(@TempDir Path build) throws IOException {
    Files.createDirectories(build.resolve("include/config"));
    Files.writeString(build.resolve("include/config/kernel.release"), "6.1.192\n");
    assertThat(HostChecks.headersRelease(build)).contains("6.1.192");
  }

  @Test
  void mountsAreReadFromProcMounts() {
    List<Check> found = HostChecks.mounts(List.of(
        "tracefs /sys/kernel/tracing tracefs rw,nosuid,nodev,noexec,relatime 0 0",
        "bpf /sys/fs/bpf bpf rw,nosuid,nodev,noexec,relatime,mode=700 0 0"));
    assertThat(found).extracting(Check::name, Check::status).containsExactly(
        Tuple.tuple("tracefs", Check.Status.OK),
        Tuple.tuple("debugfs", Check.Status.WARN),
        Tuple.tuple("bpffs", Check.Status.OK));
    assertThat(found.get(0).detail()).isEqualTo("mounted on /sys/kernel/tracing");
    assertThat(HostChecks.mounts(List.of()).get(0).status()).isEqualTo(Check.Status.FAIL);
  }

  @Test
  void capabilitiesNameWhatIsMissing() {
    assertThat(HostChecks.capabilities(List.of()).status()).isEqualTo(Check.Status.OK);
    Check c = HostChecks.capabilities(List.of("CAP_BPF (load BPF programs)"));
    assertThat(c.status()).isEqualTo(Check.Status.FAIL);
    assertThat(c.detail()).contains("CAP_BPF");
  }
}

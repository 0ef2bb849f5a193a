package io.segscope.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.lab.Prerequisites;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * kprobe and fentry mode end to end, for real: boots Debian's stock 6.1 kernel under qemu with
 * {@code scripts/guest-run} (ONE boot per mode, both modes side by side) and runs {@link GuestScenarios} inside it with the
 * JUnit console launcher, on the test classpath this JVM has (the guest's root is this machine's own):
 * the program checks in both boots; the guest-only device kinds (G1-G5, each beside its control, with
 * their advice and its commands) and the generic-XDP copy-time quantiles in the kprobe boot; S1, S2, S3
 * (with their controls) and S6 in the fentry boot: so the two side-by-side boots take about as long. kprobe
 * mode's GSO program is held to the oracle by the kinds and its generic-XDP program by the copy-time
 * test; fentry's GSO and generic-XDP programs by the seeds and S6 (docs/guest-kernel.md).
 * Fails with the guest's output when anything inside fails. Tag {@code guest}; needs root (the
 * runner installs qemu and the kernel packages when missing). Runs are kept in
 * {@code agent/target/guest-runs/<mode>/} (stdout, console.log, timing, JUnit XML under reports/).
 *
 * <p>The guest gets ONE vCPU: with two, multi-threaded TCG let the JVM execute a half-patched JIT
 * entry (SIGILL / SIGSEGV in c1 code, seen twice in 3 runs); with one there is no cross-CPU code
 * modification.
 */
@Tag("guest")
class GuestModesIT {
  private static final int GUEST_TIMEOUT_SECONDS = 720;
  private static final int OUTPUT_TAIL_LINES = 150;
  private static final List<String> MODES = List.of("kprobe", "fentry");
  /**
   * Both JVMs in the guest compile with C1 only: under emulation C2's compile threads take the one
   * vCPU from short-lived test code that never runs long enough to repay them. And they start processes
   * with vfork, not posix_spawn through jspawnhelper (one exec less: 52-72 ms instead of 90-118 ms per
   * {@code ip -V} in the guest); the tests start hundreds (every lab step is an ip).
   */
  private static final List<String> GUEST_JVM =
      List.of("-XX:TieredStopAtLevel=1", "-Djdk.lang.Process.launchMechanism=VFORK");

  /**
   * Both modes at once: each guest has one vCPU and the host two cores, so the two boots run side by
   * side (each guest runs on its own tmpfs overlay of the read-only root; they share nothing). Both
   * runs are awaited and reported before either's result is asserted.
   */
  @Test
  void scenariosPassInTheStockKernel() throws Exception {
    if (!isRoot()) {
      Prerequisites.unmet("the guest-kernel tests need root (qemu 9p export of /, apt for qemu and the kernel)");
    }
    Path repo = Path.of(System.getProperty("segscope.repo", "..")).toRealPath();
    Path launcher = Path.of(System.getProperty("segscope.consoleLauncher", "(unset)"));
    assertThat(launcher).as("JUnit console launcher (a test dependency Maven fetches)").isRegularFile();
    // apt (qemu, the kernel) must not run twice at once: the first run prepares, the rest only boot
    prepare(repo);
    List<GuestRun> runs = new ArrayList<>();
    // -Dsegscope.guest.modes=fentry boots one mode only (a developer's shortcut; the test command boots both)
    for (String mode : System.getProperty("segscope.guest.modes", String.join(",", MODES)).split(",")) {
      assertThat(MODES).as("-Dsegscope.guest.modes names a mode").contains(mode);
      runs.add(GuestRun.start(repo, launcher, mode));
    }
    for (GuestRun r : runs) {
      r.await();
    }
    SoftAssertions soft = new SoftAssertions();
    for (GuestRun r : runs) {
      r.check(soft);
    }
    soft.assertAll();
  }

  /** Installs what the guest needs (qemu, the kernel packages) once, before the parallel boots. */
  private static void prepare(Path repo) throws Exception {
    Path log = repo.resolve("agent/target/guest-runs/prepare.log");
    Files.createDirectories(log.getParent());
    Process p = new ProcessBuilder(repo.resolve("scripts/guest-run").toString(), "--prepare")
        .directory(repo.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!p.waitFor(GUEST_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("guest-run --prepare did not finish in " + GUEST_TIMEOUT_SECONDS + " s:\n"
          + tail(read(log), 20));
    }
    assertThat(p.exitValue()).as("guest-run --prepare: exit %d%n%s", p.exitValue(), tail(read(log), 20)).isZero();
  }

  /** One guest boot running {@link GuestScenarios} in one mode. */
  private record GuestRun(String mode, Path out, Path hostLog, Process process, long startNanos) {
    static GuestRun start(Path repo, Path launcher, String mode) throws IOException {
      Path out = repo.resolve("agent/target/guest-runs").resolve(mode);
      deleteTree(out);
      Files.createDirectories(out);
      List<String> cmd = new ArrayList<>(List.of(repo.resolve("scripts/guest-run").toString(), "--cpus", "1",
          "--timeout", Integer.toString(GUEST_TIMEOUT_SECONDS), "--out", out.toString(), "--",
          "java", "-XX:ErrorFile=" + out + "/hs_err_launcher_%p.log"));
      cmd.addAll(GUEST_JVM);
      cmd.addAll(List.of("-Dsegscope.jar=" + AgentProcess.jar().toAbsolutePath(),
          "-D" + GuestScenarios.MODE_PROPERTY + "=" + mode,
          "-Dsegscope.agent.jvmOptions=-XX:ErrorFile=" + out + "/hs_err_agent_%p.log " + String.join(" ", GUEST_JVM),
          "-jar", launcher.toString(), "execute",
          "--class-path", testClassPath(),
          "--select-class", GuestScenarios.class.getName()));
      // the split that makes both boots take about as long (docs/guest-kernel.md): the guest-only
      // device kinds and the copy-time quantiles (kprobe's generic-XDP program against an oracle) in the
      // kprobe boot, S1, S2, S3 and its control and S6 (routed) in the fentry boot; the program checks in both. The kprobe
      // boot's agent runs in auto mode with every path's fentry programs made to fail to load (GuestScenarios):
      // its kprobe mode is where the per-path fallback lands (tag kprobe-boot: the fallback and the stale kprobe sweep)
      for (String tag : mode.equals("kprobe")
          ? List.of(ScenarioSuite.S1, ScenarioSuite.S2, ScenarioSuite.S3, GuestScenarios.ROUTED_TAG)
          : List.of(GuestScenarios.KINDS, GuestScenarios.KPROBE_BOOT, GuestScenarios.COPY_TIME_TAG)) {
        cmd.addAll(List.of("--exclude-tag", tag));
      }
      cmd.addAll(List.of("--details=tree", "--disable-banner", "--disable-ansi-colors", "--fail-if-no-tests",
          "--reports-dir", out.resolve("reports").toString()));
      Path hostLog = out.getParent().resolve(mode + ".host.log");
      Process p = new ProcessBuilder(cmd).directory(repo.toFile()).redirectErrorStream(true)
          .redirectOutput(hostLog.toFile()).start();
      return new GuestRun(mode, out, hostLog, p, System.nanoTime());
    }

    void await() throws InterruptedException {
      long left = startNanos + TimeUnit.SECONDS.toNanos(GUEST_TIMEOUT_SECONDS + 60) - System.nanoTime();
      if (!process.waitFor(Math.max(0, left), TimeUnit.NANOSECONDS)) {
        process.destroy(); // guest-run stops qemu on TERM
        process.waitFor(30, TimeUnit.SECONDS);
      }
      long seconds = (System.nanoTime() - startNanos) / 1_000_000_000L;
      System.out.printf("guest %s: exit %s after %d s (%s)%n", mode, process.isAlive() ? "none" : process.exitValue(),
          seconds, timing());
      System.out.println(tail(read(out.resolve("stdout")), 40));
    }

    String timing() {
      return read(out.resolve("timing")).replace('\n', ' ').strip();
    }

    void check(SoftAssertions soft) {
      if (process.isAlive()) {
        soft.fail("guest-run in %s mode still running after %d s", mode, GUEST_TIMEOUT_SECONDS + 90);
        return;
      }
      soft.assertThat(process.exitValue())
          .as("guest run in %s mode: exit %d (1 = tests failed, 124 = timeout, 125 = guest broke); %s%n"
              + "--- guest output (last %d lines) ---%n%s%n--- runner ---%n%s", mode, process.exitValue(), timing(),
              OUTPUT_TAIL_LINES, tail(read(out.resolve("console.log")), OUTPUT_TAIL_LINES), tail(read(hostLog), 20))
          .isZero();
    }
  }

  /** The classpath this test JVM runs with: what GuestScenarios needs, minus the surefire booter. */
  static String testClassPath() {
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    return Arrays.stream(cp.split(File.pathSeparator))
        .filter(e -> !e.isBlank() && !e.contains("surefire"))
        .map(e -> Path.of(e).toAbsolutePath().toString())
        .collect(Collectors.joining(File.pathSeparator));
  }

  private static boolean isRoot() {
    return ProcessHandle.current().info().user().map("root"::equals).orElse(false);
  }

  private static String read(Path file) {
    try {
      return Files.isRegularFile(file) ? Files.readString(file) : "(no " + file.getFileName() + ")";
    } catch (IOException e) {
      return "(read " + file + ": " + e.getMessage() + ")";
    }
  }

  private static String tail(String text, int lines) {
    List<String> all = text.lines().toList();
    return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}

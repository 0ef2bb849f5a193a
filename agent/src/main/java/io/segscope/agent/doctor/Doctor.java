package io.segscope.agent.doctor;

import io.segscope.agent.Privileges;
import io.segscope.agent.probing.ProbeFactory;
import io.segscope.probes.MeasuredPath;
import io.segscope.probes.ModeVerdict;
import io.segscope.probes.PathPlan;
import io.segscope.probes.ProbeAttachment;
import io.segscope.probes.ProbeException;
import io.segscope.probes.ProbeMode;
import io.segscope.probes.ProbePlan;
import io.segscope.probes.ProbeSession;
import io.segscope.probes.btf.Btf;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * {@code segscope doctor}: checks the host, decides the probe plan exactly as {@code segscope run}
 * would (real trial attaches), then opens the planned probes for real and closes them again.
 * Ready when nothing failed, gso_tx can be measured (at least in tracepoint mode) and the probes opened.
 */
public final class Doctor {
  private static final int MAX_DETAIL = 2000;

  private Doctor() {}

  /** Runs every check; blocking (compiles and attaches BPF programs). */
  public static DoctorReport examine(Optional<ProbeMode> forced) {
    return examine(forced, "");
  }

  /**
   * As {@link #examine(Optional)}, with {@code failLoad} ({@link io.segscope.probes.ProbeSession.Options#failLoad()})
   * injected into the probe test: for tests of the fallback.
   */
  public static DoctorReport examine(Optional<ProbeMode> forced, String failLoad) {
    String release = HostChecks.kernelRelease();
    List<Check> checks = new ArrayList<>();
    checks.add(HostChecks.btf(Btf.KERNEL_BTF));
    checks.add(HostChecks.headers(release, HostChecks.MODULES));
    checks.addAll(HostChecks.mounts(HostChecks.readMounts()));
    Check caps = HostChecks.capabilities(Privileges.missing());
    checks.add(caps);
    checks.add(HostChecks.libbcc());
    checks.add(HostChecks.kallsyms());
    checks.add(HostChecks.callSites());
    String mode = forced.map(ProbeMode::label).orElse("auto");
    if (caps.failed()) {
      Check notRun = Check.fail("probe test", "not run: missing privileges");
      return new DoctorReport(release, mode, false, "not ready: " + describe(caps), checks, List.of(), notRun,
          new DoctorReport.Tracepoints("none", List.of()));
    }
    ProbeFactory.Request request = new ProbeFactory.Request(forced, Optional.empty(), 4096).withFailLoad(failLoad);
    ProbePlan plan = ProbeFactory.plan(request);
    ProbeTest probeTest = probeTest(plan, request);
    return report(release, mode, checks, probeTest.planShown(plan), probeTest.check());
  }

  /**
   * What the probe test found: its check, and the plan the opened session ran after any fallbacks (a real
   * program that failed to load took its path to the next mode, as in {@code segscope run}), empty when it
   * did not open.
   */
  record ProbeTest(Check check, Optional<ProbePlan> opened) {
    /**
     * The plan to report: the one that ran, whose verdicts carry the load failures, else the one decided by
     * the trial attaches.
     */
    ProbePlan planShown(ProbePlan decided) {
      return opened.orElse(decided);
    }
  }

  /** Assembles the report and its verdict; pure. */
  static DoctorReport report(String release, String mode, List<Check> checks, ProbePlan plan, Check probeTest) {
    List<DoctorReport.PathReport> paths = plan.paths().stream().map(Doctor::pathReport).toList();
    PathPlan gso = plan.path(MeasuredPath.GSO_TX);
    Optional<Check> failed = checks.stream().filter(Check::failed).findFirst();
    String verdict;
    if (failed.isPresent()) {
      verdict = "not ready: " + describe(failed.get());
    } else if (!gso.measured()) {
      verdict = "not ready: gso_tx cannot be measured: " + gso.reason();
    } else if (probeTest.failed()) {
      verdict = "not ready: probe test: " + firstLine(probeTest.detail());
    } else {
      verdict = "ready: " + plan.paths().stream()
          .map(p -> p.path().label() + (p.measured() ? " in " + p.mode().get().label() + " mode"
              : " not measured"))
          .collect(Collectors.joining(", "));
    }
    boolean ready = verdict.startsWith("ready");
    return new DoctorReport(release, mode, ready, verdict, checks, paths, probeTest,
        new DoctorReport.Tracepoints(plan.tracepointAttach().label(), plan.tracepointAttachVerdicts()));
  }

  private static DoctorReport.PathReport pathReport(PathPlan p) {
    List<DoctorReport.Tried> tried = new ArrayList<>();
    for (ModeVerdict v : p.verdicts()) {
      tried.add(new DoctorReport.Tried(v.mode().label(), v.usable(), v.reason()));
    }
    return new DoctorReport.PathReport(p.path().label(), p.mode().map(ProbeMode::label).orElse("none"), tried);
  }

  /** Opens the planned session for real (compile, load, attach, falling back as run does), then closes it. */
  static ProbeTest probeTest(ProbePlan plan, ProbeFactory.Request request) {
    long t0 = System.nanoTime();
    try (ProbeSession session = ProbeFactory.open(plan, request)) {
      long attached = session.attachments().stream().filter(ProbeAttachment::attached).count();
      long onDemand = session.attachments().stream().filter(ProbeAttachment::onDemand).count();
      long ms = (System.nanoTime() - t0) / 1_000_000;
      long mapBytes = session.mapMemory().values().stream().mapToLong(v -> Math.max(0, v)).sum();
      List<String> fellBack = fallbacks(plan, session.plan());
      return new ProbeTest(Check.ok("probe test", "compiled, loaded and attached " + attached + " programs ("
          + onDemand + " more on demand) " + session.modeLabels() + ", tracepoints as "
          + session.plan().tracepointAttach().label() + ", in " + ms + " ms, kernel map memory "
          + String.format("%.1f MiB", mapBytes / 1048576.0) + " (grows with the devices seen); then detached them"
          + (fellBack.isEmpty() ? "" : "; fell back: " + String.join("; ", fellBack))),
          Optional.of(session.plan()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new ProbeTest(Check.fail("probe test", "interrupted"), Optional.empty());
    } catch (ProbeException | RuntimeException e) {
      String m = e.getMessage() == null ? e.toString() : e.getMessage();
      return new ProbeTest(Check.fail("probe test", m.length() > MAX_DETAIL ? m.substring(0, MAX_DETAIL) + " [...]"
          : m), Optional.empty());
    }
  }

  /**
   * The paths whose mode the real programs changed from the trial attaches' plan: {@code "gso_tx: fentry ->
   * kprobe (fentry: its program failed to load: ...)"}.
   */
  static List<String> fallbacks(ProbePlan decided, ProbePlan ran) {
    List<String> out = new ArrayList<>();
    for (PathPlan p : ran.paths()) {
      PathPlan before = decided.path(p.path());
      if (!before.mode().equals(p.mode())) {
        out.add(p.path().label() + ": " + before.mode().map(ProbeMode::label).orElse("none") + " -> "
            + p.mode().map(ProbeMode::label).orElse("not measured") + " (" + p.reason() + ")");
      }
    }
    return out;
  }

  private static String describe(Check c) {
    return c.name() + ": " + firstLine(c.detail());
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}

package io.segscope.probes;

import io.segscope.host.sys.SysException;
import io.segscope.probes.btf.Btf;
import io.segscope.probes.btf.BtfException;
import io.segscope.probes.compile.CompiledObject;
import io.segscope.probes.ksym.Kallsyms;
import io.segscope.probes.ksym.KallsymsException;
import io.segscope.probes.load.Attachment;
import io.segscope.probes.load.KernelAbi;
import io.segscope.probes.load.LoadedObject;
import io.segscope.probes.load.Programs;
import io.segscope.probes.program.CallSites;
import io.segscope.probes.program.ProgramText;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * How a {@link ProbeSession} is opened: the kernel's facts read once (layout from BTF, the call sites
 * from kallsyms, the BTF ids every program could need), then compile, load and attach; a path whose
 * program fails to load or attach falls back to its next mode, and the whole object is compiled again
 * for the new plan.
 */
final class SessionOpener {
  private static final System.Logger LOG = System.getLogger(ProbeSession.class.getName());

  private SessionOpener() {}

  /** What is read of the kernel once per open, whatever the fallbacks. */
  private record KernelFacts(KernelLayout layout, CallSites sites, KernelAbi abi, Path tracefs, String text) {}

  /** One attempt's loaded programs: what was loaded, attached, and which paths failed. */
  private record Attempt(Map<String, ProgramSpec> specs, Map<String, String> pathOf,
      Map<String, Attachment> attached, List<ProbePlan.RuledOut> failed) {}

  static ProbeSession open(ProbePlan plan, ProbeSession.Options options, LiveKernelProbes kernel)
      throws ProbeException, InterruptedException {
    KernelFacts k = kernelFacts(kernel);
    for (int attempt = 0;; attempt++) {
      if (Thread.interrupted()) {
        throw new InterruptedException("open probes: interrupted");
      }
      Optional<String> failure = plan.failure();
      if (failure.isPresent()) {
        throw new ProbeException(failure.get());
      }
      long t0 = System.nanoTime();
      LOG.log(System.Logger.Level.INFO, "compiling the probe programs (" + plan.modeLabels() + ", tracepoints as "
          + plan.tracepointAttach().label() + ")");
      CompiledObject compiled = options.compiler().compile("segscope", k.text(), cflags(plan, options, k));
      long t1 = System.nanoTime();
      LOG.log(System.Logger.Level.INFO, String.format(Locale.ROOT,
          "compiled %d programs in %.1f s", compiled.programs().size(), (t1 - t0) / 1e9));
      LoadedObject object;
      try {
        object = LoadedObject.create(compiled, k.abi());
      } catch (SysException e) {
        throw new ProbeException("create maps: " + e.getMessage(), e);
      }
      Attempt a = attachAll(plan, object, k.tracefs(), options.failLoad());
      if (a.failed().isEmpty()) {
        LOG.log(System.Logger.Level.INFO, String.format(Locale.ROOT,
            "loaded %d programs and attached %d in %.1f s (%s)", a.specs().size(), a.attached().size(),
            (System.nanoTime() - t1) / 1e9, plan.modeLabels()));
        return new ProbeSession(plan, k.layout(), object, a.specs(), a.pathOf(), a.attached(), k.tracefs(),
            k.sites(), options.timing());
      }
      a.attached().values().forEach(Attachment::detach);
      object.close();
      plan = fallBack(plan, a.failed(), attempt, kernel);
    }
  }

  /** The layout from BTF, the call sites from kallsyms (logged), the BTF ids, tracefs and the program text. */
  private static KernelFacts kernelFacts(LiveKernelProbes kernel) throws ProbeException {
    Btf btf;
    KernelLayout layout;
    try {
      btf = kernel.btf().isPresent() ? kernel.btf().get() : Btf.loadKernel();
      layout = KernelLayout.fromBtf(btf);
    } catch (BtfException e) {
      throw new ProbeException("read kernel layout from BTF: " + e.getMessage(), e);
    }
    CallSites sites;
    try {
      sites = CallSites.resolve(kernel.kallsyms().isPresent() ? kernel.kallsyms().get() : Kallsyms.load());
    } catch (KallsymsException e) {
      throw new ProbeException("resolve segmentation call sites: " + e.getMessage(), e);
    }
    List<String> absent = sites.resolutions().stream().filter(r -> !r.resolved())
        .map(r -> r.callSite().name()).distinct().toList();
    LOG.log(System.Logger.Level.INFO, "segmentation call sites: "
        + sites.resolutions().stream().filter(CallSites.Resolution::resolved).count()
        + " of " + sites.resolutions().size() + " found" + (absent.isEmpty() ? ""
            : "; absent (not seen in tracepoint mode, site other in kprobe mode; segscope doctor lists them): "
                + String.join(", ", absent)));
    // the BTF ids of every program any path could load later, in any mode a fallback may pick; the
    // parsed BTF itself (tens of MiB of names) is not kept for the session's life
    KernelAbi abi = KernelAbi.resolving(btf, ProgramSpec.everyTracepointEvent(), ProgramSpec.everyFunction());
    Path tracefs = LiveKernelProbes.tracefs().orElse(LiveKernelProbes.TRACEFS.get(0));
    return new KernelFacts(layout, sites, abi, tracefs, ProgramText.of(sites));
  }

  private static List<String> cflags(ProbePlan plan, ProbeSession.Options options, KernelFacts k)
      throws ProbeException {
    List<String> cflags = new ArrayList<>(k.layout().cflags());
    cflags.addAll(plan.cflags());
    cflags.add("-DMAX_DEVICES=" + options.maxDevices());
    cflags.add("-DMAP_FLAGS=1"); // BPF_F_NO_PREALLOC: memory grows with the devices seen, not the maximum
    if (plan.tracepointAttach() == TracepointAttach.CLASSIC) {
      List<String[]> events = new ArrayList<>();
      for (PathPlan p : plan.paths()) {
        p.mode().ifPresent(m -> events.addAll(ProgramSpec.tracepoints(p.path(), m)));
      }
      cflags.addAll(TracepointFormat.cflags(k.tracefs(), events));
    }
    return cflags;
  }

  /**
   * Loads and attaches every measured path's programs. Every path is tried, so that all the paths whose
   * programs fail fall back together (one compile more, not one per failed path).
   */
  private static Attempt attachAll(ProbePlan plan, LoadedObject object, Path tracefs, String failLoad) {
    Attempt a = new Attempt(new LinkedHashMap<>(), new LinkedHashMap<>(), new LinkedHashMap<>(), new ArrayList<>());
    for (PathPlan p : plan.paths()) {
      if (!p.measured()) {
        continue;
      }
      try {
        attachPath(p, plan.programs(p.path()), object, tracefs, a, failLoad);
      } catch (SysException | ProbeException e) {
        a.failed().add(new ProbePlan.RuledOut(p.path(), p.mode().get(), e.getMessage()));
      }
    }
    return a;
  }

  /** The plan without the modes that failed, or why there is none left after {@code attempt} attempts. */
  private static ProbePlan fallBack(ProbePlan plan, List<ProbePlan.RuledOut> failed, int attempt,
      LiveKernelProbes kernel) throws ProbeException {
    if (attempt >= ProbeMode.values().length * MeasuredPath.values().length) {
      ProbePlan.RuledOut first = failed.get(0);
      throw new ProbeException("attach " + first.path().label() + " in mode " + first.mode().label() + ": "
          + first.reason());
    }
    List<ProbePlan.RuledOut> out = new ArrayList<>();
    for (ProbePlan.RuledOut f : failed) {
      LOG.log(System.Logger.Level.WARNING, "probe path " + f.path().label() + ": mode " + f.mode().label()
          + " failed to load (" + f.reason() + "), trying the next mode");
      out.add(new ProbePlan.RuledOut(f.path(), f.mode(), "its program failed to load: " + f.reason()));
    }
    return plan.without(out, kernel);
  }

  private static void attachPath(PathPlan p, List<ProgramSpec> programs, LoadedObject object, Path tracefs,
      Attempt a, String inject) throws SysException, ProbeException {
    if (injectedFailure(inject, p.path(), p.mode().get())) {
      throw new ProbeException("injected load failure (" + inject + ")");
    }
    for (ProgramSpec s : programs) {
      int fd = object.program(s.function(), s.point());
      a.specs().put(s.function(), s);
      a.pathOf().put(s.function(), p.path().label());
      if (!s.onDemand()) {
        a.attached().put(s.function(), Programs.attach(s.function(), fd, s.point(), tracefs));
      }
    }
  }

  /**
   * Whether the injected fault {@code property} ({@link ProbeSession.Options#failLoad()}: {@code PATH:MODE}
   * entries, comma-separated, blanks around them ignored) names {@code path} in {@code mode}.
   */
  static boolean injectedFailure(String property, MeasuredPath path, ProbeMode mode) {
    String wanted = path.label() + ":" + mode.label();
    for (String entry : property.split(",")) {
      if (entry.strip().equals(wanted)) {
        return true;
      }
    }
    return false;
  }
}

package io.segscope.agent.probing;

import io.segscope.agent.version.Version;
import io.segscope.probes.Compiler;
import io.segscope.probes.LiveKernelProbes;
import io.segscope.probes.PathPlan;
import io.segscope.probes.ProbeException;
import io.segscope.probes.ProbeMode;
import io.segscope.probes.ProbePlan;
import io.segscope.probes.ProbeSession;
import io.segscope.probes.Timing;
import io.segscope.probes.TracepointAttach;
import io.segscope.probes.bcc.Bcc;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * The one place that plans and opens the probes, for {@code run}, {@code report} and {@code doctor}
 * alike: decide the plan by feature probes, log why each path got its mode and how tracepoints
 * attach, then compile (in a child process), load and attach.
 */
public final class ProbeFactory {
  private static final Logger LOG = Logger.getLogger(ProbeFactory.class.getName());

  /**
   * What the user asked for.
   *
   * @param mode the only probe mode to use, empty for the best per path
   * @param attach the only tracepoint attach type to use, empty for the cheapest that works
   * @param maxDevices how many devices the maps hold
   * @param cacheDir where compiled programs are kept between starts ({@link CompileCache}), empty for no cache
   * @param timing when the timing programs run ({@code --timing-window})
   * @param failLoad an injected load failure for tests of the fallback ({@link ProbeSession.Options#failLoad()};
   *     the hidden {@code --inject-load-failure}), "" for none
   */
  public record Request(Optional<ProbeMode> mode, Optional<TracepointAttach> attach, int maxDevices,
      Optional<Path> cacheDir, Timing timing, String failLoad) {
    public Request {
      Objects.requireNonNull(timing, "timing");
      Objects.requireNonNull(failLoad, "failLoad");
    }

    /** The default timing windows, nothing injected. */
    public Request(Optional<ProbeMode> mode, Optional<TracepointAttach> attach, int maxDevices,
        Optional<Path> cacheDir) {
      this(mode, attach, maxDevices, cacheDir, Timing.DEFAULT, "");
    }

    /** No compile cache. */
    public Request(Optional<ProbeMode> mode, Optional<TracepointAttach> attach, int maxDevices) {
      this(mode, attach, maxDevices, Optional.empty());
    }

    public Request withFailLoad(String f) {
      return new Request(mode, attach, maxDevices, cacheDir, timing, f);
    }

    /** How many devices the maps hold for {@code maxDevices} reported ones: 4096, or more when asked. */
    public static int mapDevices(int maxDevices) {
      return Math.max(4096, maxDevices);
    }

    public static Request defaults() {
      return new Request(Optional.empty(), Optional.empty(), 4096);
    }
  }

  private ProbeFactory() {}

  /** Decides the plan against the running kernel (trial attaches, detached again). */
  public static ProbePlan plan(Request r) {
    return ProbePlan.decide(r.mode(), r.attach());
  }

  /**
   * Decides, logs and opens; fails naming what is missing. The kernel's BTF and kallsyms are read
   * once, for the plan and the programs alike. Interrupting the calling thread stops a compile at
   * once (the compiler child is killed) and ends this with {@link InterruptedException}.
   */
  public static ProbeSession open(Request r) throws ProbeException, InterruptedException {
    long t0 = System.nanoTime();
    try (LiveKernelProbes kernel = LiveKernelProbes.open()) {
      LOG.fine(String.format(Locale.ROOT, "read kernel BTF and kallsyms in %.2f s", (System.nanoTime() - t0) / 1e9));
      ProbePlan plan = ProbePlan.decide(r.mode(), r.attach(), kernel);
      if (Thread.interrupted()) {
        throw new InterruptedException("open probes: interrupted");
      }
      log(plan);
      return ProbeSession.open(plan, options(r), kernel);
    }
  }

  /**
   * Opens a plan already decided by {@link #plan}, with the request's map size and compiler; fails
   * naming what is missing. For {@code doctor}, which reports the plan whether or not it opens.
   */
  public static ProbeSession open(ProbePlan plan, Request r) throws ProbeException, InterruptedException {
    return ProbeSession.open(plan, options(r));
  }

  private static ProbeSession.Options options(Request r) {
    return new ProbeSession.Options(r.maxDevices(), compiler(r), r.timing(), r.failLoad());
  }

  /** The compiler child, behind the compile cache when the request names one. */
  static Compiler compiler(Request r) {
    Compiler child = Compiler.childProcess();
    if (r.cacheDir().isEmpty()) {
      return child;
    }
    return new CompileCache(r.cacheDir().get(), CompileCache.salt(Bcc.libraryVersion(),
        Version.current()), child);
  }

  private static void log(ProbePlan plan) {
    if (plan.failure().isPresent()) {
      return;
    }
    for (PathPlan p : plan.paths()) {
      if (p.measured()) {
        LOG.info("probe plan: " + p.describe());
      } else {
        LOG.warning("probe plan: " + p.describe() + "; segscope_probe_attached{path=\"" + p.path().label()
            + "\"} stays 0");
      }
    }
    LOG.info("probe plan: tracepoints attach as " + plan.tracepointAttach().label()
        + (plan.tracepointAttachVerdicts().isEmpty() ? "" : " (" + String.join("; ", plan.tracepointAttachVerdicts())
            + ")"));
  }
}

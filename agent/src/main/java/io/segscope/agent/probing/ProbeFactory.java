package io.segscope.agent.probing;

import io.segscope.probes.PathPlan;
import io.segscope.probes.ProbeException;
import io.segscope.probes.ProbeMode;
import io.segscope.probes.ProbePlan;
import io.segscope.probes.ProbeSession;
import io.segscope.probes.TracepointAttach;
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
   */
  public record Request(Optional<ProbeMode> mode, Optional<TracepointAttach> attach, int maxDevices) {
    public static Request defaults() {
      return new Request(Optional.empty(), Optional.empty(), 4096);
    }
  }

  private ProbeFactory() {}

  /** Decides the plan against the running kernel (trial attaches, detached again). */
  public static ProbePlan plan(Request r) {
    return ProbePlan.decide(r.mode(), r.attach());
  }

  /** Decides, logs and opens; fails naming what is missing. */
  public static ProbeSession open(Request r) throws ProbeException, InterruptedException {
    ProbePlan plan = plan(r);
    if (plan.failure().isEmpty()) {
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
    return ProbeSession.open(plan, new ProbeSession.Options(r.maxDevices(), io.segscope.probes.Compiler.childProcess()));
  }
}

package io.segscope.agent;

import io.segscope.agent.cli.VersionProvider;
import io.segscope.agent.http.AgentVerticle;
import io.segscope.agent.telemetry.TelemetryService;
import io.segscope.exporters.MetricsRegistry;
import io.segscope.exporters.model.BuildInfo;
import io.segscope.probes.BpfStats;
import io.segscope.probes.PathPlan;
import io.segscope.probes.ProbeAttachment;
import io.segscope.probes.ProbeException;
import io.segscope.probes.ProbeMode;
import io.segscope.probes.ProbePlan;
import io.segscope.probes.ProbeSession;
import io.segscope.probes.bcc.Bcc;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import sun.misc.Signal;

/**
 * The running agent: probes, telemetry, metrics registry and the Vert.x HTTP server, owned together and
 * closed in one place (HTTP first, then the probes are detached, then the registry).
 */
public final class AgentRuntime implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(AgentRuntime.class.getName());

  private final ProbeSession probes;
  private final BpfStats bpfStats;
  private final MetricsRegistry metrics;
  private final Vertx vertx;
  private final AgentVerticle verticle;
  private final CountDownLatch stop = new CountDownLatch(1);
  private boolean closed;

  private AgentRuntime(ProbeSession probes, BpfStats bpfStats, MetricsRegistry metrics, Vertx vertx,
      AgentVerticle verticle) {
    this.probes = probes;
    this.bpfStats = bpfStats;
    this.metrics = metrics;
    this.vertx = vertx;
    this.verticle = verticle;
  }

  /**
   * Plans and attaches the probes, then starts serving. Fails (and releases what it took) when the
   * probes cannot attach, a forced probe mode cannot be used, or the port cannot be bound: an attach
   * failure is never only logged.
   *
   * @param probeMode the only probe mode to use, or empty to pick the best per path
   */
  public static AgentRuntime start(String host, int port, Duration interval, boolean enableBpfStats,
      Optional<ProbeMode> probeMode) throws ProbeException, InterruptedException {
    long t0 = System.nanoTime();
    BpfStats stats = null;
    if (enableBpfStats) {
      try {
        stats = BpfStats.enable();
      } catch (ProbeException e) {
        LOG.warning(e.getMessage() + ": segscope_probe_run_seconds_total stays 0");
      }
    }
    ProbeSession probes;
    try {
      probes = ProbeSession.open(plan(probeMode));
    } catch (ProbeException | RuntimeException e) {
      if (stats != null) {
        stats.close();
      }
      throw e;
    }
    LOG.info("probes attached in " + (System.nanoTime() - t0) / 1_000_000 + " ms: "
        + probes.attachments().stream().filter(ProbeAttachment::attached).count() + " programs, modes "
        + probes.modeLabels());
    BuildInfo build = new BuildInfo(VersionProvider.version(), Bcc.libraryVersion(),
        System.getProperty("os.version"));
    TelemetryService[] holder = new TelemetryService[1];
    MetricsRegistry metrics = new MetricsRegistry(() -> holder[0].latest());
    holder[0] = new TelemetryService(probes, build, metrics.meters(), Clock.systemUTC());
    Vertx vertx = Vertx.vertx();
    AgentVerticle verticle = new AgentVerticle(host, port, interval, holder[0], metrics, () -> true);
    AgentRuntime rt = new AgentRuntime(probes, stats, metrics, vertx, verticle);
    try {
      vertx.deployVerticle(verticle).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      rt.close();
      throw new ProbeException("start HTTP server on " + host + ":" + port + ": " + e.getMessage(), e);
    }
    return rt;
  }

  /** Decides the probe plan and logs it: one line per path with why better modes are out. */
  private static ProbePlan plan(Optional<ProbeMode> probeMode) {
    ProbePlan plan = ProbePlan.decide(probeMode);
    if (plan.failure().isPresent()) {
      return plan; // opening it fails with the reason
    }
    for (PathPlan p : plan.paths()) {
      if (p.measured()) {
        LOG.info("probe plan: " + p.describe());
      } else {
        LOG.warning("probe plan: " + p.describe() + "; segscope_probe_attached{path=\"" + p.path().label()
            + "\"} stays 0");
      }
    }
    return plan;
  }

  public int port() {
    return verticle.actualPort();
  }

  /** Blocks until SIGINT or SIGTERM. */
  public void awaitStopSignal() throws InterruptedException {
    Signal.handle(new Signal("INT"), s -> stop.countDown());
    Signal.handle(new Signal("TERM"), s -> stop.countDown());
    stop.await();
    LOG.info("stopping: detaching probes");
  }

  /** Asks {@link #awaitStopSignal()} to return. */
  public void requestStop() {
    stop.countDown();
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.warning("close HTTP server: " + e.getMessage());
    }
    probes.close();
    if (bpfStats != null) {
      bpfStats.close();
    }
    metrics.close();
  }
}

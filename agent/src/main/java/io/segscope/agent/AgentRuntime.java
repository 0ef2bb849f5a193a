package io.segscope.agent;

import io.segscope.agent.advice.AdviceContext;
import io.segscope.agent.advice.Advisor;
import io.segscope.agent.cli.VersionProvider;
import io.segscope.agent.inventory.DeviceInventory;
import io.segscope.agent.netlink.DecodeWarnings;
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
  private final DeviceInventory inventory;
  private final io.segscope.agent.workload.WorkloadResolver workloads;
  private final BpfStats bpfStats;
  private final MetricsRegistry metrics;
  private final Vertx vertx;
  private final AgentVerticle verticle;
  private final CountDownLatch stop = new CountDownLatch(1);
  private boolean closed;

  private AgentRuntime(ProbeSession probes, DeviceInventory inventory,
      io.segscope.agent.workload.WorkloadResolver workloads, BpfStats bpfStats, MetricsRegistry metrics,
      Vertx vertx, AgentVerticle verticle) {
    this.probes = probes;
    this.inventory = inventory;
    this.workloads = workloads;
    this.bpfStats = bpfStats;
    this.metrics = metrics;
    this.vertx = vertx;
    this.verticle = verticle;
  }

  /**
   * Plans and attaches the probes, then starts serving. Fails (and releases what it took) when the
   * probes cannot attach, a forced probe mode cannot be used, or the port cannot be bound: an attach
   * failure is never only logged. {@link AgentOptions#probeMode()} forces one probe mode, or picks the
   * best per path when empty.
   */
  public static AgentRuntime start(AgentOptions options) throws ProbeException, InterruptedException {
    String host = options.host();
    int port = options.port();
    long t0 = System.nanoTime();
    BpfStats stats = null;
    if (options.bpfStats()) {
      try {
        stats = BpfStats.enable();
      } catch (ProbeException e) {
        LOG.warning(e.getMessage() + ": segscope_probe_run_seconds_total stays 0");
      }
    }
    ProbeSession probes;
    try {
      probes = ProbeSession.open(plan(options.probeMode()));
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
    DeviceInventory inventory;
    DecodeWarnings warnings = new DecodeWarnings();
    try {
      inventory = DeviceInventory.start(options.inventoryConfig(), warnings);
    } catch (RuntimeException e) {
      probes.close();
      if (stats != null) {
        stats.close();
      }
      throw new ProbeException("start the device inventory: " + e.getMessage(), e);
    }
    LOG.info("device inventory: " + inventory.current().devices().size() + " devices in "
        + inventory.current().namespaces().size() + " namespaces");
    Advisor advisor = new Advisor(options.adviceWindow(), options.adviceOpenAfter(), options.adviceCloseAfter(),
        AdviceContext.Thresholds.DEFAULT, probes.layout().xdpFragsCopy());
    TelemetryService[] holder = new TelemetryService[1];
    MetricsRegistry metrics = new MetricsRegistry(() -> holder[0].latest());
    io.micrometer.core.instrument.FunctionCounter.builder("segscope.netlink.decode.warnings", warnings,
            w -> w.count())
        .description("Netlink attributes or messages skipped because their bytes were malformed")
        .register(metrics.meters());
    // who each namespace belongs to: its own thread, so a slow or absent container runtime never delays a read
    var workloads = new io.segscope.agent.workload.WorkloadResolver(options.workloadConfig(),
        () -> inventory.current().namespaces(), metrics.meters(), Clock.systemUTC());
    inventory.addListener((before, after) -> {
      if (!namespaceSet(before).equals(namespaceSet(after))) {
        workloads.namespacesChanged();
      }
    });
    workloads.start();
    holder[0] = new TelemetryService(probes, inventory::current, workloads::current, advisor, build,
        metrics.meters(), Clock.systemUTC());
    Vertx vertx = Vertx.vertx();
    AgentVerticle verticle = new AgentVerticle(host, port, options.interval(), holder[0], metrics, () -> true);
    AgentRuntime rt = new AgentRuntime(probes, inventory, workloads, stats, metrics, vertx, verticle);
    try {
      vertx.deployVerticle(verticle).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      rt.close();
      throw new ProbeException("start HTTP server on " + host + ":" + port + ": " + e.getMessage(), e);
    }
    return rt;
  }

  /** The namespaces of an inventory as (inode, name) pairs: what workload resolution depends on. */
  private static java.util.Set<java.util.List<Object>> namespaceSet(io.segscope.agent.inventory.Inventory inv) {
    java.util.Set<java.util.List<Object>> s = new java.util.HashSet<>();
    inv.namespaces().forEach(n -> s.add(java.util.List.of(n.inode(), n.name())));
    return s;
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
    workloads.close();
    inventory.close();
    probes.close();
    if (bpfStats != null) {
      bpfStats.close();
    }
    metrics.close();
  }
}

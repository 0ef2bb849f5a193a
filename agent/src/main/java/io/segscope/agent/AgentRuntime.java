package io.segscope.agent;

import io.segscope.agent.advice.AdviceContext;
import io.segscope.agent.advice.Advisor;
import io.segscope.agent.Version;
import io.segscope.agent.inventory.DeviceInventory;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.agent.http.AgentVerticle;
import io.segscope.agent.probing.ProbeFactory;
import io.segscope.agent.telemetry.SelfCost;
import io.segscope.agent.telemetry.TelemetryService;
import io.segscope.exporters.MetricsRegistry;
import io.segscope.exporters.model.BuildInfo;
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
  private final SelfCost selfCost;
  private final MetricsRegistry metrics;
  private final Vertx vertx;
  private final AgentVerticle verticle;
  private final CountDownLatch stop = new CountDownLatch(1);
  private boolean closed;

  private AgentRuntime(ProbeSession probes, DeviceInventory inventory,
      io.segscope.agent.workload.WorkloadResolver workloads, SelfCost selfCost, MetricsRegistry metrics,
      Vertx vertx, AgentVerticle verticle) {
    this.probes = probes;
    this.inventory = inventory;
    this.workloads = workloads;
    this.selfCost = selfCost;
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
    String host = options.http().host();
    int port = options.http().port();
    long t0 = System.nanoTime();
    ProbeSession probes = ProbeFactory.open(options.probeRequest());
    long mapBytes = probes.mapMemory().values().stream().mapToLong(v -> Math.max(0, v)).sum();
    LOG.info("probes attached in " + (System.nanoTime() - t0) / 1_000_000 + " ms: "
        + probes.attachments().stream().filter(ProbeAttachment::attached).count() + " programs, modes "
        + probes.modeLabels() + ", tracepoints as " + probes.plan().tracepointAttach().label()
        + "; kernel map memory " + String.format("%.1f MiB", mapBytes / 1048576.0) + " now (maps grow with the"
        + " devices seen)");
    SelfCost stats = new SelfCost(options.selfCost(), Duration.ofSeconds(1), Duration.ofSeconds(60),
        probes::programStats);
    BuildInfo build = new BuildInfo(Version.current(), Bcc.libraryVersion(),
        System.getProperty("os.version"));
    DeviceInventory inventory;
    DecodeWarnings warnings = new DecodeWarnings();
    try {
      inventory = DeviceInventory.start(options.inventoryConfig(), warnings);
    } catch (RuntimeException e) {
      stats.close();
      probes.close();
      throw new ProbeException("start the device inventory: " + e.getMessage(), e);
    }
    // a generic XDP program appearing (or going) attaches (or detaches) the per-packet program at once
    inventory.addListener((before, after) -> {
      try {
        probes.setGenericXdpPresent(TelemetryService.genericXdpPresent(after));
      } catch (ProbeException e) {
        LOG.warning(e.getMessage());
      }
    });
    LOG.info("device inventory: " + inventory.current().devices().size() + " devices in "
        + inventory.current().namespaces().size() + " namespaces");
    Advisor advisor = new Advisor(options.adviceWindow(), options.adviceOpenAfter(), options.adviceCloseAfter(),
        AdviceContext.Thresholds.DEFAULT, probes.layout().xdpFragsCopy(), options.intent());
    if (!options.intent().entries().isEmpty()) {
      LOG.info("advice: " + options.intent().entries().size() + " accepted finding pattern(s): "
          + String.join(", ", options.intent().entries().stream().map(e -> e.text()).toList()));
    }
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
    holder[0] = new TelemetryService(probes, stats, inventory::current, workloads::current, advisor, build,
        metrics.meters(), metrics.recordErrors(), options.devices(), Clock.systemUTC());
    registerInventoryMeters(inventory, metrics);
    Vertx vertx = Vertx.vertx();
    AgentVerticle verticle = new AgentVerticle(options.http(), options.interval(),
        new RuntimeBackend(holder[0], probes, inventory), metrics);
    AgentRuntime rt = new AgentRuntime(probes, inventory, workloads, stats, metrics, vertx, verticle);
    try {
      vertx.deployVerticle(verticle).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      rt.close();
      Throwable cause = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null ? e.getCause() : e;
      throw new ProbeException("start HTTP server on " + host + ":" + port + ": " + cause.getMessage(), cause);
    }
    return rt;
  }

  /** The namespaces of an inventory as (inode, name) pairs: what workload resolution depends on. */
  private static java.util.Set<java.util.List<Object>> namespaceSet(io.segscope.agent.inventory.Inventory inv) {
    java.util.Set<java.util.List<Object>> s = new java.util.HashSet<>();
    inv.namespaces().forEach(n -> s.add(java.util.List.of(n.inode(), n.name())));
    return s;
  }

  /** segscope_inventory_last_refresh_timestamp_seconds and segscope_inventory_running. */
  static void registerInventoryMeters(DeviceInventory inventory, MetricsRegistry metrics) {
    io.micrometer.core.instrument.Gauge.builder("segscope.inventory.last.refresh.timestamp", inventory,
            i -> i.lastRefresh().toEpochMilli() / 1000.0)
        .baseUnit("seconds")
        .description("When the device inventory last refreshed every namespace's links (it does every second; "
            + "a stale value means the inventory is stuck)")
        .register(metrics.meters());
    io.micrometer.core.instrument.Gauge.builder("segscope.inventory.running", inventory,
            i -> i.death().isPresent() ? 0 : 1)
        .description("1 while the thread that follows devices runs, 0 after it died (device names and "
            + "settings then stop changing; see the agent log and /readyz)")
        .register(metrics.meters());
  }

  /** What the HTTP server serves, from the telemetry service, the probes and the inventory. */
  private static final class RuntimeBackend implements io.segscope.agent.http.Backend {
    private final TelemetryService telemetry;
    private final ProbeSession probes;
    private final DeviceInventory inventory;

    RuntimeBackend(TelemetryService telemetry, ProbeSession probes, DeviceInventory inventory) {
      this.telemetry = telemetry;
      this.probes = probes;
      this.inventory = inventory;
    }

    @Override
    public void refresh() {
      telemetry.refresh();
    }

    @Override
    public io.segscope.agent.inventory.Inventory inventory() {
      return telemetry.inventory();
    }

    @Override
    public io.segscope.agent.workload.Workloads workloads() {
      return telemetry.workloads();
    }

    @Override
    public java.util.Collection<io.segscope.agent.cost.DeviceCost> costs() {
      return telemetry.advisor().lastCosts();
    }

    @Override
    public java.util.List<io.segscope.agent.advice.Recommendation> recommendations() {
      return telemetry.advisor().open();
    }

    @Override
    public java.util.List<io.segscope.agent.advice.SavingCheck.Verification> verifiedSavings() {
      return telemetry.advisor().verified();
    }

    @Override
    public java.util.List<String> notReadyReasons() {
      return Health.notReady(probes.plan().paths(), probes.attachments(), telemetry.firstReadDone(),
          Health.status(inventory), java.time.Instant.now(),
          Health.INVENTORY_STALE_AFTER);
    }
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
    selfCost.close();
    probes.close();
    metrics.close();
  }
}

package io.segscope.agent;

import io.segscope.agent.advice.AdviceContext;
import io.segscope.agent.advice.Advisor;
import io.segscope.agent.http.AgentVerticle;
import io.segscope.agent.inventory.DeviceInventory;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.agent.probing.ProbeFactory;
import io.segscope.agent.telemetry.PipelineScheduler;
import io.segscope.agent.telemetry.SelfCost;
import io.segscope.agent.telemetry.TelemetryPipeline;
import io.segscope.agent.version.Version;
import io.segscope.agent.workload.WorkloadResolver;
import io.segscope.exporters.MetricsRegistry;
import io.segscope.exporters.model.BuildInfo;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.probes.ProbeAttachment;
import io.segscope.probes.ProbeException;
import io.segscope.probes.ProbeSession;
import io.segscope.probes.bcc.Bcc;
import io.segscope.probes.sys.StaleKprobeEvents;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * The running agent: probes, telemetry, metrics registry and the Vert.x HTTP server, owned together and
 * closed in one place (HTTP first, then the probes are detached, then the registry). {@link #start}
 * opens them as one chain ({@link OpenedSoFar}): a step that fails closes every part opened before
 * it, newest first.
 */
public final class AgentRuntime implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(AgentRuntime.class.getName());

  private final ProbeSession probes;
  private final DeviceInventory inventory;
  private final WorkloadResolver workloads;
  private final SelfCost selfCost;
  private final MetricsRegistry metrics;
  private final Vertx vertx;
  private final AgentVerticle verticle;
  private final PipelineScheduler scheduler;
  private boolean closed;

  private AgentRuntime(ProbeSession probes, DeviceInventory inventory,
      WorkloadResolver workloads, SelfCost selfCost, MetricsRegistry metrics,
      Vertx vertx, AgentVerticle verticle, PipelineScheduler scheduler) {
    this.scheduler = scheduler;
    this.probes = probes;
    this.inventory = inventory;
    this.workloads = workloads;
    this.selfCost = selfCost;
    this.metrics = metrics;
    this.vertx = vertx;
    this.verticle = verticle;
  }

  /**
   * Starts the agent: the probes are planned, compiled, loaded and attached on their own thread
   * ("segscope-probes") while the device inventory and the HTTP server start, so the compile (the
   * slowest step) overlaps with the rest; /healthz answers at once, /readyz answers 503 "probes:
   * compiling" and /metrics and the API 503 until the probes are attached and first read. Returns
   * once the probes are attached.
   *
   * <p>Fails, releasing what it took, when the port cannot be bound (checked before the compile
   * starts), the probes cannot attach or a forced probe mode cannot be used: an attach failure is never
   * only logged. {@link AgentOptions#probeMode()} forces one probe mode, or picks the best per path when
   * empty. A stop asked for meanwhile ({@code stop}: SIGINT, SIGTERM) ends the start at once: the
   * compiler child is killed, everything taken is released, and {@link StopSignal.Stopped} is thrown.
   */
  public static AgentRuntime start(AgentOptions options, StopSignal stop)
      throws ProbeException, InterruptedException, StopSignal.Stopped {
    return start(options, stop, Seams.NONE);
  }

  /** Opens the probes (on the opener thread): {@link ProbeFactory#open}, or a test's fake. */
  @FunctionalInterface
  interface ProbeOpener {
    ProbeSession open(ProbeFactory.Request request) throws ProbeException, InterruptedException;
  }

  /** Called before each step of a start with the step's name ({@link #STEPS}); a test fails one. */
  @FunctionalInterface
  interface StartHook {
    void before(String step) throws ProbeException;
  }

  /**
   * What a test replaces in a start: how the probes are opened, a hook before each step, and who is told
   * (by name) of each part closed when the start fails.
   */
  record Seams(ProbeOpener opener, StartHook hook, Consumer<String> closed) {
    static final Seams NONE = new Seams(ProbeFactory::open, step -> {}, name -> {});
  }

  static final String STEP_PROBES = "probes";
  static final String STEP_INVENTORY = "device inventory";
  static final String STEP_METRICS = "metrics registry";
  static final String STEP_WORKLOADS = "workload resolver";
  static final String STEP_HTTP = "HTTP server";
  static final String STEP_ATTACHED = "probes attached";
  static final String STEP_SELF_COST = "self cost";
  static final String STEP_TELEMETRY = "telemetry";
  /** The steps of a start, in order; each but the last two opens one part of {@link OpenedSoFar}. */
  static final List<String> STEPS = List.of(STEP_PROBES, STEP_INVENTORY, STEP_METRICS, STEP_WORKLOADS, STEP_HTTP,
      STEP_ATTACHED, STEP_SELF_COST, STEP_TELEMETRY);

  /**
   * The start as one try-with-resources chain: every part is added to {@link OpenedSoFar} as it is
   * opened; when a later step fails (or a stop is asked for) the probe opening still in flight is
   * interrupted first (its compiler child is killed at once), then every part opened so far is closed,
   * newest first. On success the parts are handed over to the runtime.
   */
  static AgentRuntime start(AgentOptions options, StopSignal stop, Seams seams)
      throws ProbeException, InterruptedException, StopSignal.Stopped {
    stop.check(); // a signal while the command line was parsed
    String host = options.http().host();
    int port = options.http().port();
    LOG.info("starting segscope " + Version.current() + " (pid " + ProcessHandle.current().pid()
        + ", " + sinceJvmStart() + " ms after the JVM started)");
    checkPortFree(host, port);
    sweepStaleKprobeEvents();
    long t0 = System.nanoTime();
    StartHook hook = seams.hook();
    try (OpenedSoFar opened = new OpenedSoFar(seams.closed())) {
      hook.before(STEP_PROBES);
      ProbeOpening opening = opened.add(STEP_PROBES, ProbeOpening.start(seams.opener(), options.probeRequest()),
          ProbeOpening::close);
      try {
        AgentRuntime runtime = start(options, stop, hook, opened, opening, t0);
        opened.handOver();
        return runtime;
      } catch (Throwable e) {
        opening.cancel(); // before the rest is closed: the compiler child dies at once
        throw e;
      }
    }
  }

  private static AgentRuntime start(AgentOptions options, StopSignal stop, StartHook hook, OpenedSoFar opened,
      ProbeOpening opening, long t0) throws ProbeException, InterruptedException, StopSignal.Stopped {
    String host = options.http().host();
    int port = options.http().port();
    BuildInfo build = new BuildInfo(Version.current(), Bcc.libraryVersion(),
        System.getProperty("os.version"));
    DecodeWarnings warnings = new DecodeWarnings();

    hook.before(STEP_INVENTORY);
    DeviceInventory inventory = startInventory(options, stop, opened, warnings);
    HeapRelease heap = HeapRelease.ofThisProcess();
    stop.check();
    LOG.info("device inventory: " + inventory.current().devices().size() + " devices in "
        + inventory.current().namespaces().size() + " namespaces");

    hook.before(STEP_METRICS);
    AtomicReference<TelemetryPipeline> telemetry = new AtomicReference<>();
    TelemetrySnapshot beforeProbes = TelemetrySnapshot.builder().takenAt(Instant.now()).buildInfo(build)
        .build();
    MetricsRegistry metrics = opened.add(STEP_METRICS, new MetricsRegistry(() -> {
      TelemetryPipeline t = telemetry.get();
      return t == null ? beforeProbes : t.latest();
    }), MetricsRegistry::close);
    metrics.self().netlinkDecodeWarnings(warnings, w -> w.count());

    hook.before(STEP_WORKLOADS);
    // who each namespace belongs to: its own thread, so a slow or absent container runtime never delays a read
    var workloads = opened.add(STEP_WORKLOADS, new WorkloadResolver(
        options.workloadConfig(), () -> inventory.current().namespaces(), metrics.self(), Clock.systemUTC()),
        WorkloadResolver::close);
    inventory.addListener((before, after) -> {
      if (!namespaceSet(before).equals(namespaceSet(after))) {
        workloads.namespacesChanged();
      }
    });
    workloads.start();
    registerInventoryMeters(inventory, metrics);
    stop.check();

    hook.before(STEP_HTTP);
    Http http = opened.add(STEP_HTTP, new Http(step(stop, Vertx::vertx)), Http::close); // seconds of class loading on a slow machine
    RuntimeBackend backend = new RuntimeBackend(inventory, workloads, heap);
    AgentVerticle verticle = new AgentVerticle(options.http(), backend, metrics);
    deploy(http, verticle, stop, host, port);
    stop.check();

    hook.before(STEP_ATTACHED);
    ProbeSession probes = opening.await(stop); // closed with the opening if a later step fails
    logAttached(probes, t0);

    hook.before(STEP_SELF_COST);
    SelfCost stats = opened.add(STEP_SELF_COST, new SelfCost(options.selfCost(), Duration.ofSeconds(1),
        Duration.ofSeconds(60), probes::programStats), SelfCost::close);

    hook.before(STEP_TELEMETRY);
    PipelineScheduler scheduler = startPipeline(options, probes, stats, inventory, workloads, metrics, backend, build,
        telemetry);
    return new AgentRuntime(probes, inventory, workloads, stats, metrics, http.vertx, verticle, scheduler);
  }

  /** Starts following the host's devices (a stop asked for meanwhile ends the wait at once). */
  private static DeviceInventory startInventory(AgentOptions options, StopSignal stop, OpenedSoFar opened,
      DecodeWarnings warnings) throws ProbeException, InterruptedException, StopSignal.Stopped {
    try {
      return opened.add(STEP_INVENTORY,
          step(stop, () -> DeviceInventory.start(options.inventoryConfig(), warnings)), DeviceInventory::close);
    } catch (RuntimeException e) {
      throw new ProbeException("start the device inventory: " + e.getMessage(), e);
    }
  }

  /** Deploys the HTTP verticle, waiting up to 2 minutes (or until a stop is asked for). */
  private static void deploy(Http http, AgentVerticle verticle, StopSignal stop, String host, int port)
      throws ProbeException, InterruptedException, StopSignal.Stopped {
    try {
      stop.await(http.deploy(verticle), Duration.ofMinutes(2));
    } catch (ExecutionException | TimeoutException e) {
      Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
      throw new ProbeException("start HTTP server on " + host + ":" + port + ": " + cause.getMessage(), cause);
    }
  }

  private static void logAttached(ProbeSession probes, long t0) {
    long mapBytes = probes.mapMemory().values().stream().mapToLong(v -> Math.max(0, v)).sum();
    LOG.info("probes attached in " + (System.nanoTime() - t0) / 1_000_000 + " ms: "
        + probes.attachments().stream().filter(ProbeAttachment::attached).count() + " programs, modes "
        + probes.modeLabels() + ", tracepoints as " + probes.plan().tracepointAttach().label()
        + "; kernel map memory " + String.format("%.1f MiB", mapBytes / 1048576.0) + " now (maps grow with the"
        + " devices seen)");
  }

  /**
   * The telemetry pipeline over the attached probes, its subscribers (the backend's first-read log, the
   * metrics render) and its scheduler, started: the first read at once, then every --interval.
   */
  private static PipelineScheduler startPipeline(AgentOptions options, ProbeSession probes, SelfCost stats,
      DeviceInventory inventory, WorkloadResolver workloads, MetricsRegistry metrics, RuntimeBackend backend,
      BuildInfo build, AtomicReference<TelemetryPipeline> telemetry) {
    // a generic XDP program appearing (or going) attaches (or detaches) the per-packet program at once
    inventory.addListener((before, after) -> {
      try {
        probes.setGenericXdpPresent(TelemetryPipeline.genericXdpPresent(after));
      } catch (ProbeException e) {
        LOG.warning(e.getMessage());
      }
    });
    Advisor advisor = new Advisor(options.adviceWindow(), options.adviceOpenAfter(), options.adviceCloseAfter(),
        AdviceContext.Thresholds.DEFAULT, probes.layout().xdpFragsCopy(), options.intent());
    if (!options.intent().entries().isEmpty()) {
      LOG.info("advice: " + options.intent().entries().size() + " accepted finding pattern(s): "
          + String.join(", ", options.intent().entries().stream().map(e -> e.text()).toList()));
    }
    TelemetryPipeline service = new TelemetryPipeline(probes, stats, inventory::current, workloads::current, advisor,
        build, metrics.self(), metrics.recordErrors(), options.devices(), options.vanishedDeviceGrace(),
        Clock.systemUTC());
    service.subscribe(s -> backend.turned());
    service.subscribe(s -> metrics.render()); // the snapshot families, once per read, for every scrape until the next
    telemetry.set(service);
    backend.attached(service, probes);
    // the first read with the probes attached at once, then every --interval
    return new PipelineScheduler(service, options.interval()).start(Duration.ZERO);
  }

  /** Milliseconds since this JVM started (from the process' start time), -1 when unknown. */
  static long sinceJvmStart() {
    return ProcessHandle.current().info().startInstant()
        .map(t -> Duration.between(t, Instant.now()).toMillis()).orElse(-1L);
  }

  /**
   * Fails (before anything slow starts) when the HTTP server could not bind {@code host:port}: the port
   * is bound and released again at once, with SO_REUSEADDR as the server binds it.
   */
  static void checkPortFree(String host, int port) throws ProbeException {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(host, port));
    } catch (IOException | IllegalArgumentException | SecurityException e) {
      throw new ProbeException("start HTTP server on " + host + ":" + port + ": " + e.getMessage(), e);
    }
  }

  /** Removes tracefs kprobe events that dead libbcc users (older segscope too) left; see docs/runbook.md. */
  static void sweepStaleKprobeEvents() {
    Optional<Path> tracefs = Stream.of("/sys/kernel/tracing",
        "/sys/kernel/debug/tracing").map(Path::of)
        .filter(p -> Files.exists(p.resolve("kprobe_events"))).findFirst();
    if (tracefs.isEmpty()) {
      return; // no kprobes (or no tracefs): nothing can be stale
    }
    var result = StaleKprobeEvents.sweep(tracefs.get(),
        StaleKprobeEvents::processAlive);
    if (!result.removed().isEmpty()) {
      LOG.info("removed " + result.removed().size() + " stale kprobe events of processes that are gone: "
          + result.removed().stream().map(e -> e.group() + "/" + e.name()).toList());
    }
    if (!result.kept().isEmpty()) {
      LOG.warning("left " + result.kept().size() + " stale kprobe events: " + String.join("; ", result.kept())
          + " (docs/runbook.md#stale-kprobe-events)");
    }
  }

  /**
   * Runs one slow step of the start (reading every namespace, creating Vert.x) on a thread of its own
   * and waits for it, unless a stop is asked for first: a stop never waits for the step.
   */
  private static <T> T step(StopSignal stop, Supplier<T> work) throws StopSignal.Stopped,
      InterruptedException {
    CompletableFuture<T> f = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        f.complete(work.get());
      } catch (Throwable e) {
        f.completeExceptionally(e);
      }
    }, "segscope-start");
    t.setDaemon(true);
    t.start();
    try {
      return stop.await(f, Duration.ofMinutes(30));
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("start: a step took more than 30 minutes", e);
    }
  }

  /** The namespaces of an inventory as (inode, name) pairs: what workload resolution depends on. */
  private static Set<List<Object>> namespaceSet(Inventory inv) {
    Set<List<Object>> s = new HashSet<>();
    inv.namespaces().forEach(n -> s.add(List.of(n.inode(), n.name())));
    return s;
  }

  /**
   * segscope_inventory_last_refresh_timestamp_seconds, segscope_inventory_running and
   * segscope_inventory_resyncs_total{reason}.
   */
  static void registerInventoryMeters(DeviceInventory inventory, MetricsRegistry metrics) {
    metrics.self().inventory(inventory, i -> i.lastRefresh().toEpochMilli() / 1000.0,
        i -> i.death().isPresent() ? 0 : 1, DeviceInventory.RESYNC_REASONS, DeviceInventory::resyncs);
  }

  public int port() {
    return verticle.actualPort();
  }

  /** Blocks until {@code stop} is asked for (SIGINT, SIGTERM). */
  public void awaitStop(StopSignal stop) throws InterruptedException {
    String why = stop.await();
    LOG.info("stopping (" + why + "): detaching probes");
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    scheduler.close(); // no map read after this
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

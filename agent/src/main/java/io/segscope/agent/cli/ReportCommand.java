package io.segscope.agent.cli;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.segscope.agent.Logging;
import io.segscope.agent.Privileges;
import io.segscope.agent.advice.AdviceContext;
import io.segscope.agent.advice.AdviceIntent;
import io.segscope.agent.advice.Advisor;
import io.segscope.agent.advice.Finding;
import io.segscope.agent.advice.Recommender;
import io.segscope.agent.cost.CostModel;
import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.inventory.InventoryConfig;
import io.segscope.agent.inventory.InventoryReader;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.agent.probing.ProbeFactory;
import io.segscope.agent.report.ReportRenderer;
import io.segscope.agent.telemetry.PipelineScheduler;
import io.segscope.agent.telemetry.SelfCost;
import io.segscope.agent.telemetry.TelemetryPipeline;
import io.segscope.agent.telemetry.VanishedDevices;
import io.segscope.agent.version.Version;
import io.segscope.agent.workload.CriEndpoints;
import io.segscope.agent.workload.WorkloadResolver;
import io.segscope.agent.workload.Workloads;
import io.segscope.exporters.RecordErrors;
import io.segscope.exporters.SelfMetrics;
import io.segscope.exporters.model.BuildInfo;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.probes.MeasuredPath;
import io.segscope.probes.ProbeSession;
import io.segscope.probes.Timing;
import io.segscope.probes.TracepointAttach;
import io.segscope.probes.bcc.Bcc;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import sun.misc.Signal;

/** {@code segscope report}: a one-shot view for a person at a terminal. */
@Command(
    name = "report",
    mixinStandardHelpOptions = true,
    description = {
        "Attach the probes for a while, then print each device's segmentation and generic-XDP cost "
            + "(with log2 histograms), its device chain, and the recommendations with their commands. "
            + "Ctrl-C ends the sampling early and reports what was seen."
    })
public final class ReportCommand implements Callable<Integer> {

  @Option(names = "--duration", paramLabel = "DURATION", defaultValue = "10s", converter = Bounds.ReportDuration.class,
      description = "How long to sample; 1s..1h (default: ${DEFAULT-VALUE}).")
  Duration duration;

  @Option(names = "--probe-mode", paramLabel = "MODE", defaultValue = "auto",
      converter = ProbeModeOption.Converter.class, description = ProbeModeOption.DESCRIPTION)
  ProbeModeOption probeMode;

  /** --netns-dir, --tracepoint-attach, --device-include, --device-exclude, --max-devices (as for run). */
  @CommandLine.Mixin
  InventoryOptions inventory = new InventoryOptions();

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  /** --cri-endpoint, --cri-timeout (shared with run). */
  @CommandLine.Mixin
  WorkloadOptions workload = new WorkloadOptions();

  /** --advice-accept, --advice-config (shared with run). */
  @CommandLine.Mixin
  AdviceIntentOptions advice = new AdviceIntentOptions();

  @Override
  public Integer call() throws Exception {
    // the report goes to stdout; stderr carries progress and, by default, only WARNING and worse
    Logging.defaultLevel(Level.WARNING);
    inventory.checkBounds(spec.commandLine());
    Optional<String> notADirectory = inventory.notADirectory();
    if (notADirectory.isPresent()) {
      System.err.println("segscope report: " + notADirectory.get());
      return 2;
    }
    Optional<TracepointAttach> attach;
    try {
      attach = inventory.tracepointAttach();
    } catch (IllegalArgumentException e) {
      System.err.println("segscope report: --tracepoint-attach: " + e.getMessage());
      return 2;
    }
    CriEndpoints cri;
    try {
      cri = workload.endpoints();
    } catch (IllegalArgumentException e) {
      System.err.println("segscope report: " + e.getMessage());
      return 2;
    }
    AdviceIntent intent;
    try {
      intent = advice.intent();
    } catch (AdviceIntent.IntentException e) {
      System.err.println("segscope report: " + e.getMessage());
      return 2;
    }
    List<String> missing = Privileges.missing();
    if (!missing.isEmpty()) {
      System.err.println("segscope report: missing privileges: " + String.join(", ", missing)
          + " (run as root, or grant these capabilities)");
      return 1;
    }
    System.err.println("segscope report: compiling and attaching the probes ...");
    // a report is short and shows durations: its timing programs run for the whole of it (no sampling windows)
    try (ProbeSession probes = ProbeFactory.open(new ProbeFactory.Request(probeMode.forced(), attach,
        ProbeFactory.Request.mapDevices(inventory.devices().maxDevices()), Optional.empty(), Timing.always(), ""))) {
      return sample(probes, cri, intent);
    }
  }

  /**
   * The report: the telemetry pipeline of {@code run}, turned once at once, then every second for the
   * duration (or until Ctrl-C), then once more on a fresh inventory; the cost over the whole window, the
   * recommendations and their commands, rendered for a terminal.
   */
  private int sample(ProbeSession probes, CriEndpoints cri, AdviceIntent intent) throws Exception {
    PrintStream err = System.err;
    InventoryConfig inventoryConfig = inventoryConfig();
    AtomicReference<Inventory> current = new AtomicReference<>(
        InventoryReader.read(inventoryConfig, new DecodeWarnings()));
    long total = Math.max(1, duration.toSeconds());
    // a short-windowed advisor over the per-second reads: a fix applied during the report is verified
    Duration w = Duration.ofSeconds(Math.max(2, Math.min(30, total / 6)));
    Advisor advisor = new Advisor(w, w, w.multipliedBy(2),
        AdviceContext.Thresholds.DEFAULT, probes.layout().xdpFragsCopy(), intent);
    SelfMetrics self = new SelfMetrics(new SimpleMeterRegistry());
    TelemetryPipeline pipeline = new TelemetryPipeline(probes, SelfCost.off(), current::get, Workloads::none,
        advisor, new BuildInfo(Version.current(), Bcc.libraryVersion(), System.getProperty("os.version")), self,
        new RecordErrors(self), inventory.devices(), VanishedDevices.GRACE, Clock.systemUTC());
    pipeline.turn();
    TelemetrySnapshot first = pipeline.latest();

    CountDownLatch interrupted = new CountDownLatch(1);
    Signal.handle(new Signal("INT"), s -> interrupted.countDown());
    // from here on traffic is measured (scripts and tests start theirs on this line)
    err.println("segscope report: probes attached, sampling for " + total + " s ...");
    try (PipelineScheduler scheduler = new PipelineScheduler(pipeline, Duration.ofSeconds(1))
        .start(Duration.ofSeconds(1), total - 1)) {
      progress(err, total, interrupted);
    }
    current.set(InventoryReader.read(inventoryConfig, new DecodeWarnings()));
    pipeline.turn();
    Inventory inv = pipeline.latestInventory();
    TelemetrySnapshot last = pipeline.latest();
    if (!last.takenAt().isAfter(first.takenAt())) {
      err.println("segscope report: sampled for less than a tick: nothing to report");
      return 1;
    }
    Collection<DeviceCost> costs = CostModel.window(first, last).values();
    List<Finding> findings = new Recommender().evaluate(costs,
        AdviceContext.of(inv, AdviceContext.Thresholds.DEFAULT, probes.layout().xdpFragsCopy(), costs));
    Workloads workloads;
    var d = WorkloadResolver.Config.defaults();
    try (var resolver = new WorkloadResolver(
        new WorkloadResolver.Config(cri, workload.timeout(), d.refresh(), d.proc()),
        inv::namespaces, self, Clock.systemUTC())) {
      workloads = resolver.resolveNow();
    }
    System.out.print(ReportRenderer.render(new ReportRenderer.Input(System.getProperty("os.version"),
        probes.modeLabel(MeasuredPath.GSO_TX), probes.modeLabel(MeasuredPath.XDP_GENERIC),
        Duration.between(first.takenAt(), last.takenAt()).toMillis() / 1000.0, costs, inv, findings,
        workloads, intent, advisor.verified())));
    System.out.flush();
    return 0;
  }

  /** Says how far the sampling is, each second, until {@code total} seconds have passed or Ctrl-C. */
  private static void progress(PrintStream err, long total, CountDownLatch interrupted) throws InterruptedException {
    boolean tty = System.console() != null;
    long start = System.nanoTime();
    for (long s = 1; s <= total; s++) {
      long waitNanos = start + s * 1_000_000_000L - System.nanoTime();
      if (interrupted.await(Math.max(0, waitNanos), TimeUnit.NANOSECONDS)) {
        err.println((tty ? "\n" : "") + "segscope report: interrupted after " + (s - 1) + " s: reporting that");
        break;
      }
      if (tty) {
        err.printf("\rsampling: %d/%d s", s, total);
      } else if (s % 5 == 0 || s == total) {
        err.printf("sampling: %d/%d s%n", s, total);
      }
    }
    if (tty) {
      err.println();
    }
  }

  /** The inventory's configuration the report reads with (the defaults plus --netns-dir). */
  InventoryConfig inventoryConfig() {
    return inventory.inventoryConfig();
  }
}

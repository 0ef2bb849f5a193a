package io.segscope.agent.telemetry;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.segscope.agent.advice.Advisor;
import io.segscope.agent.advice.Recommendation;
import io.segscope.agent.advice.SavingCheck;
import io.segscope.agent.cost.HostCpu;
import io.segscope.agent.inventory.ProcNamespaceHolders;
import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.workload.Workloads;
import io.segscope.device.DeviceId;
import io.segscope.exporters.RecordErrors;
import io.segscope.exporters.SelfMetrics;
import io.segscope.exporters.TranslationErrorListener;
import io.segscope.exporters.model.BuildInfo;
import io.segscope.exporters.model.CallSiteStatus;
import io.segscope.exporters.model.DeviceInfo;
import io.segscope.exporters.model.RecommendationInfo;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.exporters.model.VerifiedSaving;
import io.segscope.probes.MeasuredPath;
import io.segscope.probes.ProbeException;
import io.segscope.probes.ProbeReading;
import io.segscope.probes.ProbeSource;
import io.segscope.probes.TimingShare;
import io.segscope.vocabulary.Diagnostic;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The one telemetry pipeline of {@code run}, {@code report} and the bench: each {@link #turn()} reads
 * the probes' maps, selects the devices, assembles the snapshot, runs the advisor and publishes, in that
 * order (blocking: call it on a worker thread, never on the event loop; {@link PipelineScheduler} is its
 * clock). Exposes its own cost through Micrometer.
 *
 * <p>One bad record never stops a turn: vanished devices are dropped first, whatever follows; a
 * device, counter record or recommendation that cannot be taken is skipped and reported to
 * {@link RecordErrors} (counted in segscope_exporter_errors_total{kind}, logged once), and a rule
 * failure keeps the previous recommendations. Only a failed map read keeps the whole previous
 * snapshot. The {@link DeviceSelection} applies to the metrics, the API and the advice alike.
 */
public final class TelemetryPipeline {
  private static final Logger LOG = Logger.getLogger(TelemetryPipeline.class.getName());

  private final ProbeSource probes;
  private final SelfCost selfCost;
  private final Supplier<Inventory> inventory;
  private final Supplier<Workloads> workloads;
  private final Advisor advisor;
  private final SnapshotAssembler assembler;
  private final Clock clock;
  private final VanishedDevices vanished;
  /**
   * How long the sampling windows of the timing programs keep opening after the last read that saw
   * software segmentation or generic-XDP copies grow: a healthy host runs only the counting programs.
   */
  static final Duration SEGMENTATION_LINGER = SegmentationDemand.LINGER;
  private final SegmentationDemand demand = new SegmentationDemand();
  private final AtomicReference<TelemetrySnapshot> latest;
  private final AtomicReference<ProbeReading> lastReading = new AtomicReference<>();
  private final AtomicReference<Inventory> latestInventory = new AtomicReference<>(Inventory.empty());
  private final List<Consumer<TelemetrySnapshot>> subscribers = new CopyOnWriteArrayList<>();
  private final Timer readTimer;
  private final Counter readErrors;
  private final RecordErrors errors;
  private final DeviceSelection selection;
  /**
   * The probes' call sites as exported, translated once here: they are resolved when the session
   * opens and cannot change while it is open, so every snapshot shares this one immutable list.
   */
  private final List<CallSiteStatus> callSites;
  private volatile boolean firstReadDone;

  /**
   * @param workloads the latest workload resolution (never blocks: the resolver runs on its own thread)
   */
  public TelemetryPipeline(ProbeSource probes, SelfCost selfCost, Supplier<Inventory> inventory,
      Supplier<Workloads> workloads, Advisor advisor, BuildInfo build,
      SelfMetrics self, RecordErrors errors, DeviceSelection.Config devices, Duration vanishedDeviceGrace,
      Clock clock) {
    this.probes = probes;
    this.selfCost = selfCost;
    this.inventory = inventory;
    this.workloads = workloads;
    this.advisor = advisor;
    this.clock = clock;
    this.errors = errors;
    this.selection = new DeviceSelection(devices);
    this.vanished = new VanishedDevices(vanishedDeviceGrace, new ProcNamespaceHolders(Path.of("/proc"))::held);
    this.assembler = new SnapshotAssembler(build, errors);
    this.latest = new AtomicReference<>(TelemetrySnapshot.builder().takenAt(clock.instant()).buildInfo(build).build());
    this.callSites = List.copyOf(assembler.callSites(probes.callSites()));
    this.readTimer = self.mapRead();
    this.readErrors = self.mapReadErrors();
    self.probeDiagnostics(this, List.of(Diagnostic.values()), Diagnostic::label, TelemetryPipeline::diagnostic);
    self.deviceSelection(selection, DeviceSelection::dropped, DeviceSelection::reported);
    self.timingSampled(this, t -> t.timing().sampledSeconds(), t -> t.timing().ratio());
  }

  /**
   * Called on the pipeline's thread after every turn (whether or not its read succeeded) with the latest
   * snapshot: what renders the metrics once per read, what logs the first read.
   */
  public void subscribe(Consumer<TelemetrySnapshot> subscriber) {
    subscribers.add(subscriber);
  }

  /** What the scheduler ticks between turns: the probes' timing windows, opened and closed when due. */
  public void tickTimingWindows() {
    try {
      probes.tickTimingWindows();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "timing window: " + e.getMessage(), e);
    }
  }

  private TimingShare timing() {
    ProbeReading r = lastReading.get();
    return r == null ? new TimingShare("", 0, 0) : r.timing();
  }

  private double diagnostic(Diagnostic d) {
    ProbeReading r = lastReading.get();
    return r == null ? 0 : r.diagnostics().getOrDefault(d, 0L);
  }

  /** One turn: read → select → assemble → advise → publish. Blocking. */
  public void turn() {
    Timer.Sample sample = Timer.start();
    try {
      ProbeReading reading = read();
      if (reading != null) {
        publish(reading, assembleAndAdvise(reading, inventory.get()));
      }
    } catch (RuntimeException e) {
      readErrors.increment();
      LOG.log(Level.WARNING, "assemble snapshot: " + e.getMessage(), e);
    } finally {
      sample.stop(readTimer);
    }
    TelemetrySnapshot s = latest.get();
    for (Consumer<TelemetrySnapshot> c : subscribers) {
      c.accept(s);
    }
  }

  /** The probes' reading, null (counted, logged) when the read failed. */
  private ProbeReading read() {
    try {
      return probes.read();
    } catch (ProbeException | RuntimeException e) {
      readErrors.increment();
      LOG.log(Level.WARNING, "read probes: " + e.getMessage(), e instanceof RuntimeException ? e : null);
      return null;
    }
  }

  /** A turn's result: the snapshot and the inventory it was assembled from, both of the selected devices. */
  private record Published(TelemetrySnapshot snapshot, Inventory inventory) {}

  /** A snapshot with its devices and recommendations, of the inventory's selected devices. */
  private Published assembleAndAdvise(ProbeReading read, Inventory all) {
    ProbeReading reading = forgetVanished(read, all);
    steerProbes(all, reading);
    DeviceSelection.Selected sel = selection.select(all, reading.devices());
    Inventory inv = sel.inventory();
    Map<Long, String> netnsNames = NetnsNames.scan();
    TelemetrySnapshot base = assembler.assemble(clock.instant(),
        new ProbeReading(reading.takenAtNanos(), sel.counters(), reading.diagnostics()), probes.attachments(),
        selfCost.read(), probes.modeLabel(MeasuredPath.GSO_TX), probes.modeLabel(MeasuredPath.XDP_GENERIC),
        (key, kernelName) -> InventoryView.name(inv, netnsNames, key, kernelName))
        .withCallSites(callSites);
    List<Recommendation> open;
    try {
      open = advisor.update(base, inv, HostCpu.read());
    } catch (RuntimeException e) {
      errors.skipped(RecordErrors.ADVICE, "advice", "of the rules on this read", e);
      open = advisor.open();
    }
    return new Published(WorkloadView.attach(base.withDevicesAndRecommendations(deviceInfos(inv),
        recommendations(open)).withVerifiedSavings(verifiedSavings()), inv, workloads.get(), readErrors), inv);
  }

  private void publish(ProbeReading reading, Published p) {
    lastReading.set(reading);
    latestInventory.set(p.inventory());
    latest.set(p.snapshot());
    firstReadDone = true;
  }

  /**
   * Forgets the devices that vanished, first, so that no record below can keep a vanished device's
   * entries (and series) alive; the reading without the counters of a destroyed namespace whose inode
   * was reused.
   */
  private ProbeReading forgetVanished(ProbeReading reading, Inventory all) {
    try {
      for (DeviceId gone : vanished.update(clock.instant(), reading.devices(), all)) {
        probes.forget(gone);
      }
    } catch (ProbeException | RuntimeException e) {
      readErrors.increment();
      LOG.log(Level.WARNING, "forget vanished devices: " + e.getMessage(), e instanceof RuntimeException ? e : null);
    }
    if (reading.devices().stream().noneMatch(r -> vanished.superseded(r.id()))) {
      return reading;
    }
    // a destroyed namespace's counters never appear under the labels of the one that reused its inode
    return new ProbeReading(reading.takenAtNanos(), reading.devices().stream()
        .filter(r -> !vanished.superseded(r.id())).toList(), reading.diagnostics(), reading.timing());
  }

  /** The on-demand programs follow the host: generic XDP present, segmentation seen recently. */
  private void steerProbes(Inventory all, ProbeReading reading) {
    try {
      probes.setGenericXdpPresent(genericXdpPresent(all));
      probes.setSegmentationSeen(demand.recent(clock.instant(), reading));
    } catch (ProbeException | RuntimeException e) {
      LOG.log(Level.WARNING, "attach on-demand probes: " + e.getMessage(), e instanceof RuntimeException ? e : null);
    }
  }

  private List<DeviceInfo> deviceInfos(Inventory inv) {
    List<DeviceInfo> devices = new ArrayList<>();
    for (Device d : inv.devices()) {
      try {
        devices.add(InventoryView.info(inv, d));
      } catch (RuntimeException e) {
        errors.skipped(TranslationErrorListener.DEVICE, d.id().withoutCookie() + "/" + d.name(),
            "of device " + d.name() + " (netns " + d.netns() + ", ifindex " + d.ifindex() + ")", e);
      }
    }
    return devices;
  }

  private List<RecommendationInfo> recommendations(List<Recommendation> open) {
    List<RecommendationInfo> recs = new ArrayList<>();
    for (Recommendation r : open) {
      try {
        recs.add(new RecommendationInfo(r.id(), r.finding().rule(), r.finding().severity(), r.finding().subject(),
            r.finding().cpuSavingCores(), r.state()));
      } catch (RuntimeException e) {
        errors.skipped(TranslationErrorListener.RECOMMENDATION, r.id(), r.id(), e);
      }
    }
    return recs;
  }

  private List<VerifiedSaving> verifiedSavings() {
    List<VerifiedSaving> savings = new ArrayList<>();
    for (SavingCheck.Verification v : advisor.verified()) {
      try {
        savings.add(new VerifiedSaving(v.recommendation().id(), v.recommendation().finding().rule(), v.subject(),
            v.recommendation().state(), v.verdict(), v.savingCores()));
      } catch (RuntimeException e) {
        errors.skipped(TranslationErrorListener.RECOMMENDATION, "verified " + v.recommendation().id(),
            "verified saving of " + v.recommendation().id(), e);
      }
    }
    return savings;
  }

  /** Whether any device has a generic XDP program (true before the inventory's first read: measure, don't miss). */
  public static boolean genericXdpPresent(Inventory inv) {
    return inv.devices().isEmpty() || inv.devices().stream().anyMatch(d -> d.link().xdp().generic());
  }

  public TelemetrySnapshot latest() {
    return latest.get();
  }

  /** The inventory the latest snapshot was assembled from, reduced to the selected devices (empty before). */
  public Inventory latestInventory() {
    return latestInventory.get();
  }

  /** The current inventory as the {@link DeviceSelection} reports it (metrics, API and advice alike). */
  public Inventory inventory() {
    return selection.view(inventory.get());
  }

  /** The latest workload resolution (who each namespace belongs to). */
  public Workloads workloads() {
    return workloads.get();
  }

  public Advisor advisor() {
    return advisor;
  }

  public boolean firstReadDone() {
    return firstReadDone;
  }
}

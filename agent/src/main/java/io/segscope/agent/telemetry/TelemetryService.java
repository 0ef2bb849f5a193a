package io.segscope.agent.telemetry;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.segscope.agent.advice.Advisor;
import io.segscope.agent.advice.Recommendation;
import io.segscope.agent.inventory.Device;
import io.segscope.agent.inventory.Inventory;
import io.segscope.exporters.model.BuildInfo;
import io.segscope.exporters.model.DeviceInfo;
import io.segscope.exporters.model.DeviceRef;
import io.segscope.exporters.model.RecommendationInfo;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.probes.ProbeException;
import io.segscope.probes.ProbeReading;
import io.segscope.probes.ProbeSession;
import io.segscope.probes.gso.Diagnostic;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Reads the probes' maps (blocking: call it on a worker thread, never on the event loop), names the
 * devices from the inventory, runs the advisor, and keeps the latest snapshot for the exporters and
 * the API. Exposes its own cost through Micrometer.
 */
public final class TelemetryService {
  private static final Logger LOG = Logger.getLogger(TelemetryService.class.getName());

  private final ProbeSession probes;
  private final Supplier<Inventory> inventory;
  private final Supplier<io.segscope.agent.workload.Workloads> workloads;
  private final Advisor advisor;
  private final SnapshotAssembler assembler;
  private final Clock clock;
  private final VanishedDevices vanished = new VanishedDevices(Duration.ofSeconds(15));
  private final AtomicReference<TelemetrySnapshot> latest;
  private final AtomicReference<ProbeReading> lastReading = new AtomicReference<>();
  private final Timer readTimer;
  private final Counter readErrors;
  private volatile boolean firstReadDone;

  public TelemetryService(ProbeSession probes, Supplier<Inventory> inventory, Advisor advisor, BuildInfo build,
      MeterRegistry meters, Clock clock) {
    this(probes, inventory, io.segscope.agent.workload.Workloads::none, advisor, build, meters, clock);
  }

  /**
   * @param workloads the latest workload resolution (never blocks: the resolver runs on its own thread)
   */
  public TelemetryService(ProbeSession probes, Supplier<Inventory> inventory,
      Supplier<io.segscope.agent.workload.Workloads> workloads, Advisor advisor, BuildInfo build,
      MeterRegistry meters, Clock clock) {
    this.probes = probes;
    this.inventory = inventory;
    this.workloads = workloads;
    this.advisor = advisor;
    this.clock = clock;
    this.assembler = new SnapshotAssembler(build);
    this.latest = new AtomicReference<>(TelemetrySnapshot.builder().takenAt(clock.instant()).buildInfo(build).build());
    this.readTimer = Timer.builder("segscope.map.read")
        .description("Time to read the BPF maps once and build the snapshot")
        .register(meters);
    this.readErrors = Counter.builder("segscope.map.read.errors")
        .description("Map reads that failed (the previous snapshot is kept)")
        .register(meters);
    for (Diagnostic d : Diagnostic.values()) {
      FunctionCounter.builder("segscope.probe.diagnostic", this, s -> s.diagnostic(d))
          .tag("kind", d.label())
          .description("Events the programs could not fully attribute, by kind (docs/metrics.md): "
              + java.util.Arrays.stream(Diagnostic.values()).map(Diagnostic::label)
                  .collect(java.util.stream.Collectors.joining(", ")))
          .register(meters);
    }
  }

  private double diagnostic(Diagnostic d) {
    ProbeReading r = lastReading.get();
    return r == null ? 0 : r.diagnostics().getOrDefault(d, 0L);
  }

  /** One read of the maps into a new snapshot. Blocking. */
  public void refresh() {
    Timer.Sample sample = Timer.start();
    try {
      ProbeReading reading = probes.read();
      Inventory inv = inventory.get();
      Map<Long, String> netnsNames = NetnsNames.scan();
      TelemetrySnapshot base = assembler.assemble(clock.instant(), reading, probes,
          (netns, ifindex, kernelName) -> InventoryView.name(inv, netnsNames, netns, ifindex, kernelName));
      probes.setGenericXdpPresent(inv.devices().isEmpty()
          || inv.devices().stream().anyMatch(d -> d.link().xdp().generic()));
      for (long[] gone : vanished.update(base.takenAt(), reading.devices(), inv)) {
        probes.forget(gone[0], (int) gone[1]);
      }
      List<Recommendation> open = advisor.update(base, inv);
      List<DeviceInfo> devices = new ArrayList<>();
      for (Device d : inv.devices()) {
        try {
          devices.add(InventoryView.info(inv, d));
        } catch (RuntimeException e) {
          readErrors.increment();
          LOG.warning("export device " + d.netns() + "/" + d.name() + ": " + e.getMessage());
        }
      }
      List<RecommendationInfo> recs = new ArrayList<>();
      for (Recommendation r : open) {
        var s = r.finding().subject();
        try {
          recs.add(new RecommendationInfo(r.id(), r.finding().rule(), r.finding().severity(),
              new DeviceRef(s.netns(), s.netnsName(), s.ifindex(), s.device()), r.finding().cpuSavingCores()));
        } catch (RuntimeException e) {
          // one bad record must never stop the reads: skip it, say so
          readErrors.increment();
          LOG.warning("export recommendation " + r.id() + ": " + e.getMessage());
        }
      }
      lastReading.set(reading);
      latest.set(WorkloadView.attach(base.withDevicesAndRecommendations(devices, recs), inv, workloads.get(),
          readErrors));
      firstReadDone = true;
    } catch (ProbeException | RuntimeException e) {
      readErrors.increment();
      LOG.log(Level.WARNING, "read probes: " + e.getMessage(), e instanceof RuntimeException ? e : null);
    } finally {
      sample.stop(readTimer);
    }
  }

  public TelemetrySnapshot latest() {
    return latest.get();
  }

  public Inventory inventory() {
    return inventory.get();
  }

  /** The latest workload resolution (who each namespace belongs to). */
  public io.segscope.agent.workload.Workloads workloads() {
    return workloads.get();
  }

  public Advisor advisor() {
    return advisor;
  }

  public boolean firstReadDone() {
    return firstReadDone;
  }
}

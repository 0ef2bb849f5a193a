package io.segscope.agent.telemetry;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.segscope.exporters.model.BuildInfo;
import io.segscope.exporters.model.DeviceRef;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.probes.ProbeException;
import io.segscope.probes.ProbeReading;
import io.segscope.probes.ProbeSession;
import io.segscope.probes.gso.Diagnostic;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Reads the probes' maps (blocking: call it on a worker thread, never on the event loop) and keeps the
 * latest snapshot for the exporters. Exposes its own cost through Micrometer.
 */
public final class TelemetryService {
  private static final Logger LOG = Logger.getLogger(TelemetryService.class.getName());

  private final ProbeSession probes;
  private final SnapshotAssembler assembler;
  private final Clock clock;
  private final AtomicReference<TelemetrySnapshot> latest;
  private final AtomicReference<ProbeReading> lastReading = new AtomicReference<>();
  private final Timer readTimer;
  private final Counter readErrors;
  private volatile boolean firstReadDone;

  public TelemetryService(ProbeSession probes, BuildInfo build, MeterRegistry meters, Clock clock) {
    this.probes = probes;
    this.clock = clock;
    this.assembler = new SnapshotAssembler(probes.modeLabels(), build);
    this.latest = new AtomicReference<>(TelemetrySnapshot.builder().takenAt(clock.instant()).buildInfo(build).build());
    this.readTimer = Timer.builder("segscope.map.read")
        .description("Time to read and decode the BPF maps once")
        .register(meters);
    this.readErrors = Counter.builder("segscope.map.read.errors")
        .description("Map reads that failed (the previous snapshot is kept)")
        .register(meters);
    for (Diagnostic d : Diagnostic.values()) {
      FunctionCounter.builder("segscope.probe.diagnostic", this, s -> s.diagnostic(d))
          .tag("kind", d.label())
          .description("Events the programs could not fully attribute: segmented_untracked (segmentation "
              + "of an skb whose queueing was not seen), segmented_other_cpu (counted, not timed), "
              + "stats_map_full (not counted)")
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
      Map<Long, String> netnsNames = NetnsNames.scan();
      TelemetrySnapshot snap = assembler.assemble(clock.instant(), reading, probes.attachments(),
          probes.programStats(),
          (netns, ifindex, kernelName) ->
              new DeviceRef(netns, netnsNames.getOrDefault(netns, ""), ifindex, kernelName));
      lastReading.set(reading);
      latest.set(snap);
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

  public boolean firstReadDone() {
    return firstReadDone;
  }
}

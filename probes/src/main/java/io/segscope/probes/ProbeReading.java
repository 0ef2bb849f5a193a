package io.segscope.probes;

import io.segscope.probes.wire.DeviceReading;
import io.segscope.vocabulary.Diagnostic;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One read of the programs' maps: cumulative per-device readings and diagnostics, and how much of the
 * time the timing programs ran (what the durations and the offloaded count were sampled from).
 */
public record ProbeReading(long takenAtNanos, List<DeviceReading> devices, Map<Diagnostic, Long> diagnostics,
    TimingShare timing) {
  public ProbeReading {
    devices = List.copyOf(devices);
    diagnostics = Map.copyOf(diagnostics);
    Objects.requireNonNull(timing, "timing");
  }

  /** A reading whose timing programs always ran (fakes, recorded inputs). */
  public ProbeReading(long takenAtNanos, List<DeviceReading> devices, Map<Diagnostic, Long> diagnostics) {
    this(takenAtNanos, devices, diagnostics, TimingShare.ALWAYS);
  }
}

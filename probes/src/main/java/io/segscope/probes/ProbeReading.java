package io.segscope.probes;

import io.segscope.probes.wire.DeviceReading;
import io.segscope.vocabulary.Diagnostic;
import java.util.List;
import java.util.Map;

/** One read of the programs' maps: cumulative per-device readings and diagnostics. */
public record ProbeReading(long takenAtNanos, List<DeviceReading> devices, Map<Diagnostic, Long> diagnostics) {
  public ProbeReading {
    devices = List.copyOf(devices);
    diagnostics = Map.copyOf(diagnostics);
  }
}

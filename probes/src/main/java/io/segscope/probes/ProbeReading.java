package io.segscope.probes;

import io.segscope.probes.gso.DeviceCounters;
import io.segscope.probes.gso.Diagnostic;
import java.util.List;
import java.util.Map;

/** One read of the programs' maps: cumulative per-device counters and diagnostics. */
public record ProbeReading(long takenAtNanos, List<DeviceCounters> devices, Map<Diagnostic, Long> diagnostics) {
  public ProbeReading {
    devices = List.copyOf(devices);
    diagnostics = Map.copyOf(diagnostics);
  }
}

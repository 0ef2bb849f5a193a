package io.segscope.agent.telemetry;

import io.segscope.device.DeviceId;
import io.segscope.probes.ProbeReading;
import io.segscope.probes.wire.DeviceReading;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * Whether the timing programs' sampling windows are wanted: software segmentation or generic-XDP copies
 * grew on this read or within {@link #LINGER} before it. Decided on each turn of the
 * {@link TelemetryPipeline}, from the counters alone.
 */
final class SegmentationDemand {
  /**
   * How long the sampling windows keep opening after the last read that saw software segmentation or
   * generic-XDP copies grow: a healthy host runs only the counting programs.
   */
  static final Duration LINGER = Duration.ofMinutes(5);

  private final Map<DeviceId, Long> lastSwSkbs = new HashMap<>();
  private Instant lastGrowth;

  /** Whether segmentation grew at {@code now} (this reading) or within {@link #LINGER} before. */
  boolean recent(Instant now, ProbeReading reading) {
    if (grew(reading)) {
      lastGrowth = now;
    }
    return lastGrowth != null && now.isBefore(lastGrowth.plus(LINGER));
  }

  private boolean grew(ProbeReading reading) {
    boolean grew = false;
    Map<DeviceId, Long> now = new HashMap<>();
    for (DeviceReading r : reading.devices()) {
      long sw = r.counts().swSkbs() + r.counts().xdpCopied();
      now.put(r.id(), sw);
      grew |= sw > lastSwSkbs.getOrDefault(r.id(), 0L);
    }
    lastSwSkbs.clear();
    lastSwSkbs.putAll(now);
    return grew;
  }
}

package io.segscope.exporters.model;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * Software GSO on the way out of one device, as counted by one probe mode. Counters are cumulative
 * and, as exported, must never decrease within one process: if the in-kernel source resets (maps
 * recreated, probes re-attached), the producer of these records must carry the old totals forward.
 * Fields are read from separate maps at slightly different instants, so no cross-field invariant
 * (such as segments &gt;= skbs) is enforced.
 *
 * @param device the device the super-packets left through
 * @param mode the probe mode that measured it: {@code kprobe}, {@code fentry} or {@code tracepoint}
 * @param swSkbs super-packets segmented in software
 * @param swSegments segments those produced
 * @param swBytes bytes of those super-packets
 * @param durationNanos time to segment one super-packet, in nanoseconds
 * @param segmentsPerSkb segments per super-packet
 * @param offloadedSkbs super-packets handed intact to the driver
 * @param causes super-packets segmented in software, by cause; missing causes count 0
 */
public record GsoDeviceStats(
    DeviceRef device,
    String mode,
    long swSkbs,
    long swSegments,
    long swBytes,
    Log2Histogram durationNanos,
    Log2Histogram segmentsPerSkb,
    long offloadedSkbs,
    Map<GsoCause, Long> causes) {
  public GsoDeviceStats {
    Checks.notNull(device, "GsoDeviceStats.device");
    Checks.notBlank(mode, "GsoDeviceStats.mode");
    Checks.notNegative(swSkbs, "GsoDeviceStats.swSkbs");
    Checks.notNegative(swSegments, "GsoDeviceStats.swSegments");
    Checks.notNegative(swBytes, "GsoDeviceStats.swBytes");
    Checks.notNull(durationNanos, "GsoDeviceStats.durationNanos");
    Checks.notNull(segmentsPerSkb, "GsoDeviceStats.segmentsPerSkb");
    Checks.notNegative(offloadedSkbs, "GsoDeviceStats.offloadedSkbs");
    Checks.notNull(causes, "GsoDeviceStats.causes");
    EnumMap<GsoCause, Long> copy = new EnumMap<>(GsoCause.class);
    for (Map.Entry<GsoCause, Long> e : causes.entrySet()) {
      GsoCause cause = Checks.notNull(e.getKey(), "GsoDeviceStats.causes key");
      Long count = Checks.notNull(e.getValue(), "GsoDeviceStats.causes[" + cause.label() + "]");
      copy.put(cause, Checks.notNegative(count, "GsoDeviceStats.causes[" + cause.label() + "]"));
    }
    causes = Collections.unmodifiableMap(copy);
  }

  /** The super-packets segmented in software for {@code cause} (0 if not reported). */
  public long cause(GsoCause cause) {
    return causes.getOrDefault(Checks.notNull(cause, "cause"), 0L);
  }
}

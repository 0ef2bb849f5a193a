package io.segscope.exporters.model;

import io.segscope.vocabulary.Cause;
import io.segscope.vocabulary.GsoType;
import io.segscope.vocabulary.Site;
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
 * @param duration time to segment one super-packet, in seconds (the timed ones)
 * @param segmentsPerSkb segments per super-packet
 * @param offloadedSkbs super-packets handed intact to the driver
 * @param causes super-packets segmented in software, by cause; missing causes count 0
 * @param sites super-packets segmented in software, by call site; missing sites count 0
 * @param types super-packets segmented in software, by GSO type; missing types count 0
 * @param queuedBytes bytes of the GSO super-packets queued for transmission on the device (those
 *     handed on intact and those segmented after the queue): with the bytes segmented before the
 *     queue, the device's GSO traffic, which the recommendations' verified savings compare
 */
public record GsoDeviceStats(
    DeviceRef device,
    String mode,
    long swSkbs,
    long swSegments,
    long swBytes,
    NativeHistogram duration,
    NativeHistogram segmentsPerSkb,
    long offloadedSkbs,
    Map<Cause, Long> causes,
    Map<Site, Long> sites,
    Map<GsoType, Long> types,
    long queuedBytes) {
  public GsoDeviceStats {
    Checks.notNull(device, "GsoDeviceStats.device");
    Checks.notBlank(mode, "GsoDeviceStats.mode");
    Checks.notNegative(swSkbs, "GsoDeviceStats.swSkbs");
    Checks.notNegative(swSegments, "GsoDeviceStats.swSegments");
    Checks.notNegative(swBytes, "GsoDeviceStats.swBytes");
    Checks.notNull(duration, "GsoDeviceStats.duration");
    Checks.notNull(segmentsPerSkb, "GsoDeviceStats.segmentsPerSkb");
    Checks.notNegative(offloadedSkbs, "GsoDeviceStats.offloadedSkbs");
    causes = counts(causes, Cause.class, "causes");
    sites = counts(sites, Site.class, "sites");
    types = counts(types, GsoType.class, "types");
    Checks.notNegative(queuedBytes, "GsoDeviceStats.queuedBytes");
  }

  /** Stats without the queued bytes (0: not counted). */
  public GsoDeviceStats(DeviceRef device, String mode, long swSkbs, long swSegments, long swBytes,
      NativeHistogram duration, NativeHistogram segmentsPerSkb, long offloadedSkbs, Map<Cause, Long> causes,
      Map<Site, Long> sites, Map<GsoType, Long> types) {
    this(device, mode, swSkbs, swSegments, swBytes, duration, segmentsPerSkb, offloadedSkbs, causes, sites, types, 0);
  }

  private static <K extends Enum<K>> Map<K, Long> counts(Map<K, Long> in, Class<K> type, String what) {
    Checks.notNull(in, "GsoDeviceStats." + what);
    EnumMap<K, Long> copy = new EnumMap<>(type);
    for (Map.Entry<K, Long> e : in.entrySet()) {
      K k = Checks.notNull(e.getKey(), "GsoDeviceStats." + what + " key");
      Long count = Checks.notNull(e.getValue(), "GsoDeviceStats." + what + "[" + k + "]");
      copy.put(k, Checks.notNegative(count, "GsoDeviceStats." + what + "[" + k + "]"));
    }
    return Collections.unmodifiableMap(copy);
  }

  /** The super-packets segmented in software for {@code cause} (0 if not reported). */
  public long cause(Cause cause) {
    return causes.getOrDefault(Checks.notNull(cause, "cause"), 0L);
  }

  public long site(Site site) {
    return sites.getOrDefault(Checks.notNull(site, "site"), 0L);
  }

  public long type(GsoType type) {
    return types.getOrDefault(Checks.notNull(type, "type"), 0L);
  }
}

package io.segscope.agent.advice;

import io.segscope.agent.cost.CostModel;
import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.cost.Histograms;
import io.segscope.device.DeviceId;
import io.segscope.exporters.model.DeviceRef;
import io.segscope.exporters.model.GsoDeviceStats;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.exporters.model.XdpDeviceStats;
import io.segscope.probes.wire.DurationBuckets;
import io.segscope.vocabulary.Cause;
import io.segscope.vocabulary.GsoType;
import io.segscope.vocabulary.Site;
import java.time.Instant;
import java.util.Collection;
import java.util.EnumMap;
import java.util.Map;

/**
 * Windows of cost built the way the agent builds them (two cumulative snapshots through the
 * CostModel), with figures recorded in the lab on the 6.18 development kernel: S1's uplink segmented
 * 32066 super-packets (1441553 segments, 2089457356 bytes) in a 3 s iperf3 run, each timed at ~8 µs.
 */
final class Costs {
  static final Instant T0 = Instant.parse("2026-11-30T19:00:00Z");

  static GsoDeviceStats gso(long netns, int ifindex, String name, long sw, long bytes, Cause cause,
      long timedEach, long offloaded) {
    long[] dur = new long[DurationBuckets.SLOTS];
    dur[DurationBuckets.slotOf(timedEach)] = sw; // every one in the native bucket of timedEach ns
    long[] segs = new long[18];
    segs[7] = sw; // native bucket 6 = (32, 64] segments
    Map<Cause, Long> causes = new EnumMap<>(Cause.class);
    if (sw > 0) {
      causes.put(cause, sw);
    }
    return new GsoDeviceStats(new DeviceRef(DeviceId.of(netns, ifindex), "", name), "tracepoint", sw, sw * 45, bytes,
        Histograms.duration(dur, sw * timedEach), Histograms.segments(segs, sw * 45), offloaded, causes, Map.of(),
        Map.of());
  }

  /** As {@link #gso}, every software segmentation also of {@code type} at {@code site}. */
  static GsoDeviceStats gso(long netns, int ifindex, String name, long sw, long bytes, Cause cause,
      long timedEach, long offloaded, GsoType type, Site site) {
    GsoDeviceStats g = gso(netns, ifindex, name, sw, bytes, cause, timedEach, offloaded);
    return new GsoDeviceStats(g.device(), g.mode(), g.swSkbs(), g.swSegments(), g.swBytes(), g.duration(),
        g.segmentsPerSkb(), g.offloadedSkbs(), g.causes(), sw > 0 ? Map.of(site, sw) : Map.of(),
        sw > 0 ? Map.of(type, sw) : Map.of());
  }

  /** One 3-second window from zero to these cumulative values. */
  static Collection<DeviceCost> window(GsoDeviceStats... devices) {
    return windowWith(new XdpDeviceStats[0], devices);
  }

  static Collection<DeviceCost> windowWith(XdpDeviceStats[] xdp, GsoDeviceStats... devices) {
    TelemetrySnapshot.Builder before = TelemetrySnapshot.builder().takenAt(T0);
    TelemetrySnapshot.Builder after = TelemetrySnapshot.builder().takenAt(T0.plusSeconds(3));
    for (GsoDeviceStats d : devices) {
      after.addGso(d);
    }
    for (XdpDeviceStats x : xdp) {
      after.addXdp(x);
    }
    return CostModel.window(before.build(), after.build()).values();
  }
}

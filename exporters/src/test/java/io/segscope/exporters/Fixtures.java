package io.segscope.exporters;

import io.segscope.exporters.model.BuildInfo;
import io.segscope.exporters.model.DeviceRef;
import io.segscope.exporters.model.GsoCause;
import io.segscope.exporters.model.GsoDeviceStats;
import io.segscope.exporters.model.Log2Histogram;
import io.segscope.exporters.model.ProbeStatus;
import io.segscope.exporters.model.ProgramStats;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.exporters.model.XdpDeviceStats;
import java.time.Instant;
import java.util.Map;

/** Fixed snapshots shared by the tests; the golden files were checked against these by hand. */
final class Fixtures {
  private Fixtures() {}

  static final DeviceRef UPLINK = new DeviceRef(4026532281L, "lab-bridge", 7, "uplink0");
  static final DeviceRef VETH = new DeviceRef(4026531840L, "", 12, "veth-s1");
  static final DeviceRef RECV = new DeviceRef(4026532400L, "lab-recv", 3, "eth0");
  static final DeviceRef RECV2 = new DeviceRef(4026532401L, "", 4, "eth1");

  /**
   * Durations: 3 in slot 10 [512, 1023] ns, 5 in slot 11 [1024, 2047], 2 in slot 12 [2048, 4095];
   * sum 15600 ns.
   */
  static final Log2Histogram UPLINK_DURATION =
      new Log2Histogram(new long[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 5, 2}, 15600);

  /** Segments: 4 super-packets of 2..3 segments (slot 2), 6 of 8..15 (slot 4); sum 4*3 + 6*11. */
  static final Log2Histogram UPLINK_SEGMENTS = new Log2Histogram(new long[] {0, 0, 4, 0, 6}, 78);

  static GsoDeviceStats uplinkGso() {
    return new GsoDeviceStats(
        UPLINK,
        "tracepoint",
        10,
        78,
        655360,
        UPLINK_DURATION,
        UPLINK_SEGMENTS,
        250,
        Map.of(GsoCause.GSO_MAX_SIZE, 9L, GsoCause.OTHER, 1L));
  }

  static GsoDeviceStats healthyVethGso() {
    return new GsoDeviceStats(
        VETH, "tracepoint", 0, 0, 0, Log2Histogram.empty(), Log2Histogram.empty(), 1200, Map.of());
  }

  static XdpDeviceStats timedXdp() {
    return new XdpDeviceStats(
        RECV,
        "kprobe",
        2,
        5,
        131072,
        new Log2Histogram(new long[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1}, 2048));
  }

  static XdpDeviceStats untimedXdp() {
    return new XdpDeviceStats(RECV2, "tracepoint", 36000, 0, 2359296000L, Log2Histogram.empty());
  }

  static TelemetrySnapshot full() {
    return TelemetrySnapshot.builder()
        .takenAt(Instant.parse("2026-01-02T03:04:05.250Z"))
        .addGso(uplinkGso())
        .addGso(healthyVethGso())
        .addXdp(timedXdp())
        .addXdp(untimedXdp())
        .addProbe(new ProbeStatus("gso", "gso_consume", "tracepoint", true))
        .addProbe(new ProbeStatus("gso", "gso_segment", "kprobe", false))
        .addProbe(new ProbeStatus("xdp_generic", "xdp_copy", "kprobe", true))
        .addProgram(new ProgramStats("gso_consume", 1_500_000_000L, 3000))
        .addProgram(new ProgramStats("xdp_copy", 250, 1))
        .buildInfo(new BuildInfo("0.1.0", "0.26.0", "6.18.0-test"))
        .build();
  }

  /** No device records at all: probes and build info must still be exported. */
  static TelemetrySnapshot noDevices() {
    return TelemetrySnapshot.builder()
        .takenAt(Instant.parse("2026-01-02T03:04:05Z"))
        .addProbe(new ProbeStatus("gso", "gso_consume", "tracepoint", false))
        .buildInfo(new BuildInfo("0.1.0", "0.26.0", "6.18.0-test"))
        .build();
  }
}

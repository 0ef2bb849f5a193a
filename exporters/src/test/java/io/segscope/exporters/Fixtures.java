package io.segscope.exporters;

import io.segscope.device.DeviceId;
import io.segscope.exporters.model.BuildInfo;
import io.segscope.exporters.model.CallSiteStatus;
import io.segscope.exporters.model.DeviceRef;
import io.segscope.exporters.model.GsoDeviceStats;
import io.segscope.exporters.model.NativeHistogram;
import io.segscope.exporters.model.ProbeStatus;
import io.segscope.exporters.model.ProgramStats;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.exporters.model.XdpDeviceStats;
import io.segscope.vocabulary.Cause;
import io.segscope.vocabulary.GsoType;
import io.segscope.vocabulary.Site;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/** Fixed snapshots shared by the tests; the golden files were checked against these by hand. */
final class Fixtures {
  private Fixtures() {}

  static final DeviceRef UPLINK = new DeviceRef(DeviceId.of(4026532281L, 7), "lab-bridge", "uplink0");
  static final DeviceRef VETH = new DeviceRef(DeviceId.of(4026531840L, 12), "", "veth-s1");
  static final DeviceRef RECV = new DeviceRef(DeviceId.of(4026532400L, 3), "lab-recv", "eth0");
  static final DeviceRef RECV2 = new DeviceRef(DeviceId.of(4026532401L, 4), "", "eth1");

  /** The probes' duration layout: native schema 3 over seconds, zero bucket up to 2^(-217/8) s. */
  static final double ZERO_THRESHOLD = Math.pow(2, -217 / 8.0);

  /**
   * Durations (schema 3, bucket i = (2^((i-1)/8), 2^(i/8)] s): 3 in bucket -160 (~0.93-1.0 us),
   * 5 in -152 (~1.9 us), 2 in -144 (~3.7-4.0 us); sum 15600 ns.
   */
  static final NativeHistogram UPLINK_DURATION = new NativeHistogram(3, ZERO_THRESHOLD, 0, -160,
      new long[] {3, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 2}, 15.6e-6);

  /** Segments (schema 0, bucket i = (2^(i-1), 2^i]): 4 super-packets of 3 (bucket 2), 6 of 11 (bucket 4). */
  static final NativeHistogram UPLINK_SEGMENTS = new NativeHistogram(0, 0, 0, 2, new long[] {4, 0, 6}, 78);

  static final NativeHistogram EMPTY_DURATION = NativeHistogram.empty(3, ZERO_THRESHOLD);
  static final NativeHistogram EMPTY_SEGMENTS = NativeHistogram.empty(0, 0);

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
        Map.of(Cause.GSO_MAX_SIZE, 9L, Cause.OTHER, 1L),
        Map.of(Site.XMIT, 10L),
        Map.of(GsoType.TCP4, 10L));
  }

  static GsoDeviceStats healthyVethGso() {
    return new GsoDeviceStats(
        VETH, "tracepoint", 0, 0, 0, EMPTY_DURATION, EMPTY_SEGMENTS, 1200, Map.of(), Map.of(), Map.of());
  }

  /** Two timed copies: one in bucket -160 (~1 us), one in -152 (~2 us); sum 2048 ns. */
  static XdpDeviceStats timedXdp() {
    return new XdpDeviceStats(
        RECV,
        "kprobe",
        2,
        5,
        131072,
        7000,
        Optional.of(new NativeHistogram(3, ZERO_THRESHOLD, 0, -160, new long[] {1, 0, 0, 0, 0, 0, 0, 0, 1},
            2048e-9)));
  }

  static XdpDeviceStats untimedXdp() {
    return new XdpDeviceStats(RECV2, "tracepoint", 36000, 0, 2359296000L, 0, Optional.empty());
  }

  static TelemetrySnapshot full() {
    return TelemetrySnapshot.builder()
        .takenAt(Instant.parse("2026-01-02T03:04:05.250Z"))
        .addGso(uplinkGso())
        .addGso(healthyVethGso())
        .addXdp(timedXdp())
        .addXdp(untimedXdp())
        .addProbe(new ProbeStatus("gso_tx", "tp_btf__consume_skb", "tracepoint", "tp_btf", true))
        .addProbe(new ProbeStatus("gso_tx", "tp_btf__qdisc_dequeue", "tracepoint", "tp_btf", false, true))
        .addProbe(new ProbeStatus("xdp_generic", "kprobe__do_xdp_generic", "kprobe", "kprobe", true))
        .addCallSite(new CallSiteStatus("validate_xmit_skb", "xmit", "validate_xmit_skb.isra.0", true))
        .addCallSite(new CallSiteStatus("tbf_segment", "qdisc", "tbf_enqueue", true))
        .addCallSite(new CallSiteStatus("cake_enqueue", "qdisc", "", false))
        .addProgram(new ProgramStats("tp_btf__consume_skb", 1_500_000_000L, 3000))
        .addProgram(new ProgramStats("kprobe__do_xdp_generic", 250, 1))
        .selfCostSampledSeconds(12.5)
        .buildInfo(new BuildInfo("0.1.0", "0.26.0", "6.18.0-test"))
        .build();
  }

  /** No device records at all: probes and build info must still be exported. */
  static TelemetrySnapshot noDevices() {
    return TelemetrySnapshot.builder()
        .takenAt(Instant.parse("2026-01-02T03:04:05Z"))
        .addProbe(new ProbeStatus("gso_tx", "tp_btf__consume_skb", "tracepoint", "tp_btf", false))
        .buildInfo(new BuildInfo("0.1.0", "0.26.0", "6.18.0-test"))
        .build();
  }
}

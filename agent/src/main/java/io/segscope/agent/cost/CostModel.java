package io.segscope.agent.cost;

import io.segscope.device.DeviceId;
import io.segscope.exporters.model.GsoDeviceStats;
import io.segscope.exporters.model.NativeHistogram;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.exporters.model.XdpDeviceStats;
import io.segscope.vocabulary.Cause;
import io.segscope.vocabulary.GsoType;
import io.segscope.vocabulary.Site;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Per-device cost over a window, from two cumulative snapshots. Pure: no kernel access.
 *
 * <p>Counters are cumulative since the probes attached. A device whose counters went backwards
 * between the two snapshots was forgotten and seen again (its map entry restarted): its window then
 * counts what it did since the restart. A device only in the earlier snapshot vanished and has no
 * cost; one only in the later snapshot appeared and counts everything it has.
 */
public final class CostModel {

  /**
   * The per-copy cost assumed where the probe mode cannot time generic-XDP copies: the median
   * receive-side linearization cost measured with an instrumented kernel (docs/kernel.md: 600 ns p50).
   */
  public static final double UNTIMED_XDP_COPY_NANOS = 600;

  private CostModel() {}

  /**
   * Costs keyed by device: {@link DeviceId#withoutCookie()} (inode, ifindex, as the records are
   * labelled; a snapshot never holds two namespaces of one inode, and the inventory is joined the same
   * way).
   */
  public static Map<DeviceId, DeviceCost> window(TelemetrySnapshot from, TelemetrySnapshot to) {
    double seconds = Duration.between(from.takenAt(), to.takenAt()).toNanos() / 1e9;
    if (!(seconds > 0)) {
      throw new IllegalArgumentException("cost window: the later snapshot (" + to.takenAt()
          + ") must be after the earlier one (" + from.takenAt() + ")");
    }
    Map<DeviceId, GsoDeviceStats> gsoBefore = new HashMap<>();
    from.gso().forEach(g -> gsoBefore.put(g.device().id().withoutCookie(), g));
    Map<DeviceId, XdpDeviceStats> xdpBefore = new HashMap<>();
    from.xdp().forEach(x -> xdpBefore.put(x.device().id().withoutCookie(), x));
    Map<DeviceId, GsoDeviceStats> gsoNow = new LinkedHashMap<>();
    to.gso().forEach(g -> gsoNow.put(g.device().id().withoutCookie(), g));
    Map<DeviceId, XdpDeviceStats> xdpNow = new LinkedHashMap<>();
    to.xdp().forEach(x -> xdpNow.put(x.device().id().withoutCookie(), x));

    Set<DeviceId> keys = new HashSet<>(gsoNow.keySet());
    keys.addAll(xdpNow.keySet());
    Map<DeviceId, DeviceCost> out = new LinkedHashMap<>();
    for (DeviceId k : keys) {
      out.put(k, cost(seconds, gsoBefore.get(k), gsoNow.get(k), xdpBefore.get(k), xdpNow.get(k)));
    }
    return out;
  }

  private static DeviceCost cost(double s, GsoDeviceStats g0, GsoDeviceStats g1, XdpDeviceStats x0,
      XdpDeviceStats x1) {
    var device = g1 != null ? g1.device() : x1.device();
    String gsoMode = g1 != null ? g1.mode() : "";
    double swSkbs = 0, swSegs = 0, swBytes = 0, off = 0, queuedBytes = 0;
    Map<Cause, Double> causes = new EnumMap<>(Cause.class);
    Map<Site, Double> sites = new EnumMap<>(Site.class);
    Map<GsoType, Double> types = new EnumMap<>(GsoType.class);
    NativeHistogram dur = Histograms.EMPTY_DURATION;
    NativeHistogram segs = Histograms.EMPTY_SEGMENTS;
    CpuEstimate gsoCpu = CpuEstimate.NONE;
    if (g1 != null) {
      boolean reset = g0 == null || g1.swSkbs() < g0.swSkbs() || g1.offloadedSkbs() < g0.offloadedSkbs()
          || g1.duration().count() < g0.duration().count();
      GsoDeviceStats base = reset ? null : g0;
      swSkbs = g1.swSkbs() - (base == null ? 0 : base.swSkbs());
      swSegs = g1.swSegments() - (base == null ? 0 : base.swSegments());
      swBytes = g1.swBytes() - (base == null ? 0 : base.swBytes());
      off = g1.offloadedSkbs() - (base == null ? 0 : base.offloadedSkbs());
      queuedBytes = Math.max(0, g1.queuedBytes() - (base == null ? 0 : base.queuedBytes()));
      for (Cause c : Cause.values()) {
        causes.put(c, (g1.cause(c) - (base == null ? 0 : base.cause(c))) / s);
      }
      for (Site x : Site.values()) {
        sites.put(x, Math.max(0, g1.site(x) - (base == null ? 0 : base.site(x))) / s);
      }
      for (GsoType t : GsoType.values()) {
        types.put(t, Math.max(0, g1.type(t) - (base == null ? 0 : base.type(t))) / s);
      }
      dur = base == null ? g1.duration() : g1.duration().minus(base.duration());
      segs = base == null ? g1.segmentsPerSkb() : g1.segmentsPerSkb().minus(base.segmentsPerSkb());
      gsoCpu = cpu(swSkbs, dur, g1.duration(), s, "software segmentations", gsoTiming(gsoMode));
    }
    XdpDelta xdp = XdpDelta.of(s, x0, x1);
    // super-packets segmented before the queue (IP output, UDP receive) never reach net_dev_queue whole
    double beforeQueue = swSkbs > 0 ? (sites.getOrDefault(Site.IP_OUTPUT_MTU, 0.0)
        + sites.getOrDefault(Site.UDP_RX, 0.0)) * s / swSkbs : 0;
    double traffic = (queuedBytes + swBytes * Math.min(1, beforeQueue)) / s;
    return new DeviceCost(device, gsoMode, s, swSkbs / s, swSegs / s, swBytes / s, off / s, traffic, causes, sites,
        types, dur, segs,
        gsoCpu, xdp.mode(), xdp.copied() / s, xdp.passed() / s, xdp.copiedBytes() / s, xdp.copyNanos(), xdp.cpu());
  }

  /** A device's generic-XDP copies over the window: counts, their timing and the CPU they cost. */
  private record XdpDelta(String mode, double copied, double passed, double copiedBytes, NativeHistogram copyNanos,
      CpuEstimate cpu) {
    /** From the readings at the window's start ({@code x0}) and end ({@code x1}, null: no XDP), {@code s} apart. */
    static XdpDelta of(double s, XdpDeviceStats x0, XdpDeviceStats x1) {
      double copied = 0, passed = 0, copiedBytes = 0;
      NativeHistogram copyNanos = Histograms.EMPTY_DURATION;
      CpuEstimate xdpCpu = CpuEstimate.NONE;
      String xdpMode = "";
      if (x1 != null) {
        xdpMode = x1.mode();
        boolean reset = x0 == null || x1.copiedSkbs() < x0.copiedSkbs() || x1.passedSkbs() < x0.passedSkbs();
        XdpDeviceStats base = reset ? null : x0;
        copied = x1.copiedSkbs() - (base == null ? 0 : base.copiedSkbs());
        passed = x1.passedSkbs() - (base == null ? 0 : base.passedSkbs());
        copiedBytes = x1.copiedBytes() - (base == null ? 0 : base.copiedBytes());
        NativeHistogram now = x1.copyDuration().orElse(Histograms.EMPTY_DURATION);
        copyNanos = base == null ? now : now.minus(base.copyDuration().orElse(Histograms.EMPTY_DURATION));
        if (copied > 0 && copyNanos.count() == 0) {
          xdpCpu = new CpuEstimate(copied * UNTIMED_XDP_COPY_NANOS / 1e9 / s, "estimated", Double.NaN,
              String.format("%.0f copies/s x %.0f ns (the %s mode cannot time copies; 600 ns is the median "
                  + "linearization cost measured with an instrumented kernel)", copied / s,
                  UNTIMED_XDP_COPY_NANOS, xdpMode));
        } else {
          xdpCpu = CostModel.cpu(copied, copyNanos, now, s, "generic-XDP copies",
              "timed from do_xdp_generic to the program run");
        }
      }
      return new XdpDelta(xdpMode, copied, passed, copiedBytes, copyNanos, xdpCpu);
    }
  }

  /** How a mode times a segmentation, for the CPU estimate's basis. */
  static String gsoTiming(String mode) {
    return switch (mode) {
      case "tracepoint" -> "timed from net_dev_queue (or the qdisc dequeue) to the free of the segmented original";
      case "kprobe", "fentry" -> "timed at entry and exit of __skb_gso_segment";
      default -> "timed by the " + mode + " probes";
    };
  }

  /**
   * The CPU of {@code events} (exact counts) in {@code s} seconds: their timed share in the window ({@code timed})
   * scaled to all of them; where the window timed none (no sampling window fell in it), the mean of every timing
   * since the start ({@code lifetime}) times the events.
   */
  private static CpuEstimate cpu(double events, NativeHistogram timed, NativeHistogram lifetime, double s,
      String what, String how) {
    if (events <= 0) {
      return CpuEstimate.NONE;
    }
    long n = timed.count();
    if (n == 0) {
      if (lifetime.count() > 0) {
        double mean = lifetime.sum() / lifetime.count();
        double error = Histograms.meanRelativeError(lifetime, Double.POSITIVE_INFINITY);
        return new CpuEstimate(events * mean / s, "extrapolated", error, String.format(
            "%.0f %s, none timed in this window: x the mean of %d timed earlier, %.0f ns%s (%s)", events, what,
            lifetime.count(), mean * 1e9, errorText(error), how));
      }
      return new CpuEstimate(0, "none", Double.NaN, events + " " + what + " but none timed");
    }
    double cores = timed.sum() / s;
    if (n >= events) {
      return new CpuEstimate(cores, "measured", 0, String.format("%d %s timed (%s)", n, what, how));
    }
    double scaled = cores * (events / n);
    double error = Histograms.meanRelativeError(timed, events);
    return new CpuEstimate(scaled, "extrapolated", error, String.format(
        "%d of %.0f %s timed (%.0f%%), scaled to all of them%s (%s)", n, events, what, 100.0 * n / events,
        errorText(error), how));
  }

  /** The sampling error in words: " (+/- 2.1 %, 95 % confidence from the timed sample)", or "" if unknown. */
  private static String errorText(double relativeError) {
    return Double.isNaN(relativeError) ? ""
        : String.format(" (+/- %.1f %%, 95 %% confidence from the timed sample)", 100 * relativeError);
  }

}

package io.segscope.agent.advice;

import io.segscope.agent.cost.DeviceCost;
import io.segscope.device.DeviceId;
import io.segscope.exporters.model.DeviceRef;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * Verified savings: what a recommendation's devices cost before and after its evidence stopped,
 * over comparable traffic. Pure.
 *
 * <p>A {@link Measure} sums, over the finding's devices, the software-segmented super-packets/s and
 * the CPU measured segmenting them (for {@code generic_xdp_copy}: the generic-XDP copies and their
 * CPU), and takes the traffic through the subject device: GSO bytes/s reaching its transmit path;
 * for {@code generic_xdp_copy}, the packets/s its generic-XDP program saw (copied and passed) — once
 * the program runs natively that path sees nothing, so its saving shows as {@code no_traffic_after}.
 *
 * <p><b>Comparable</b>: the after window carried between a quarter and four times the traffic of
 * the before window. The saving is then scaled to the before traffic, so that a fix that also
 * raised the throughput is not credited with costing more: {@code saving = cpu_before - cpu_after x
 * traffic_before / traffic_after}. Less than {@link #MIN_TRAFFIC} bytes/s ({@link #MIN_XDP_TRAFFIC} packets/s) (or no window after
 * the evidence stopped at all): {@code no_traffic_after}, nothing to compare (the evidence may have
 * stopped because the traffic did). Outside the band: {@code traffic_changed}, with one exception:
 * more than four times the traffic after, with the software segmentation (or copying) down to at most
 * {@link #GONE_SHARE} of its rate before, is {@code verified}. Removing software segmentation often lifts
 * the throughput it held back (3-10x measured in the lab's routed-MTU and UDP GSO fixes), and more traffic
 * with the evidence gone proves the fix more, not less; the saving is still scaled to the traffic before.
 */
public final class SavingCheck {
  /** The band of the traffic ratio (after / before) within which windows are comparable. */
  public static final double MAX_TRAFFIC_RATIO = 4;
  /**
   * Above the band, the after window's software rate at most this share of the before window's
   * counts as the evidence gone (at more traffic): verified.
   */
  public static final double GONE_SHARE = 0.05;
  /** Below this many bytes per second through the subject, a window carried no traffic. */
  public static final double MIN_TRAFFIC = 1000;
  /** The same for generic XDP, in packets per second. */
  public static final double MIN_XDP_TRAFFIC = 10;

  private SavingCheck() {}

  /**
   * One window's measure of a finding's devices.
   *
   * @param from the window's start
   * @param to its end
   * @param softwarePerSec software-segmented super-packets (or generic-XDP copies) per second, summed
   * @param cpuCores the CPU measured for them, summed
   * @param cpuBasis how the CPU was obtained at the subject (measured, extrapolated, estimated)
   * @param traffic the traffic through the subject device
   */
  public record Measure(Instant from, Instant to, double softwarePerSec, double cpuCores, String cpuBasis,
      double traffic) {}

  /**
   * The outcome for one closed recommendation.
   *
   * @param recommendation the recommendation as it was when it closed
   * @param closedAt when it closed
   * @param before the last window that found it at no less than 90 % of its highest rate
   * @param after the window after the evidence stopped with the most traffic, empty when none was
   *     measured
   * @param verdict {@code verified}, {@code traffic_changed} or {@code no_traffic_after}
   * @param savingCores the verified saving in cores (0 unless verified; negative: it costs more)
   */
  public record Verification(Recommendation recommendation, Instant closedAt, Measure before, Optional<Measure> after,
      String verdict, double savingCores) {

    public DeviceRef subject() {
      return recommendation.finding().subject();
    }

    /** after traffic / before traffic, NaN without an after window or before traffic. */
    public double trafficRatio() {
      return after.isEmpty() || before.traffic() <= 0 ? Double.NaN
          : after.get().traffic() / before.traffic();
    }
  }

  static boolean xdp(Finding f) {
    return f.rule().equals("generic_xdp_copy");
  }

  /** Whether the finding's traffic is counted in packets (generic XDP) rather than bytes. */
  public static boolean xdpRule(Finding f) {
    return xdp(f);
  }

  /** The finding's devices measured in one window. */
  static Measure measure(Finding f, Map<DeviceId, DeviceCost> costs, Instant from, Instant to) {
    double sw = 0;
    double cpu = 0;
    for (DeviceRef d : f.devices()) {
      DeviceCost c = costs.get(d.id().withoutCookie());
      if (c != null) {
        sw += xdp(f) ? c.xdpCopiedPerSec() : c.swSkbsPerSec();
        cpu += xdp(f) ? c.xdpCpu().cores() : c.gsoCpu().cores();
      }
    }
    DeviceCost s = costs.get(f.subject().id().withoutCookie());
    double traffic = s == null ? 0 : xdp(f) ? s.xdpCopiedPerSec() + s.xdpPassedPerSec() : s.gsoTrafficBytesPerSec();
    String basis = s == null ? "none" : xdp(f) ? s.xdpCpu().basis() : s.gsoCpu().basis();
    return new Measure(from, to, sw, cpu, basis, traffic);
  }

  /** The verdict on {@code before} against {@code after}. */
  static Verification verify(Recommendation r, Instant closedAt, Measure before, Optional<Measure> after) {
    if (after.isEmpty() || after.get().traffic() < (xdp(r.finding()) ? MIN_XDP_TRAFFIC : MIN_TRAFFIC)) {
      return new Verification(r, closedAt, before, after, "no_traffic_after", 0);
    }
    double ratio = before.traffic() > 0 ? after.get().traffic() / before.traffic()
        : Double.POSITIVE_INFINITY;
    boolean comparable = ratio >= 1 / MAX_TRAFFIC_RATIO && ratio <= MAX_TRAFFIC_RATIO;
    boolean goneAtMoreTraffic = ratio > MAX_TRAFFIC_RATIO && Double.isFinite(ratio)
        && after.get().softwarePerSec() <= GONE_SHARE * before.softwarePerSec();
    if (!comparable && !goneAtMoreTraffic) {
      return new Verification(r, closedAt, before, after, "traffic_changed", 0);
    }
    double saving = before.cpuCores() - after.get().cpuCores() / ratio;
    return new Verification(r, closedAt, before, after, "verified", saving);
  }
}

package io.segscope.agent.advice;

import io.segscope.agent.cost.DeviceCost;
import io.segscope.device.DeviceId;
import io.segscope.exporters.model.DeviceRef;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Verified savings: what a recommendation's path cost the host before and after its evidence stopped,
 * in what the user pays: the host's kernel CPU per unit of traffic through the subject device. Pure.
 *
 * <p>A {@link Measure} holds, over one window, the finding's software-segmented super-packets/s and the
 * CPU measured segmenting them (for {@code generic_xdp_copy}: the generic-XDP copies and their CPU), summed
 * over its devices; the traffic through the subject device (GSO bytes/s reaching its transmit path; for
 * {@code generic_xdp_copy}, the packets/s its generic-XDP program saw); and the host's kernel CPU over the
 * window ({@link io.segscope.agent.cost.HostCpu}: system + irq + softirq of all CPUs, in cores). Their
 * quotient, {@link Measure#cpuPerUnit()}, is the CPU per byte (per packet for generic XDP).
 *
 * <p>The verdict, in order: no window after, or less than {@link #MIN_TRAFFIC} bytes/s
 * ({@link #MIN_XDP_TRAFFIC} packets/s) in it: {@code no_traffic_after}. The after window carried less than
 * a quarter or more than four times the traffic before ({@link #MAX_TRAFFIC_RATIO}), except with the software
 * segmentation gone either above the band (the fix lifted the traffic) or below it while the host's kernel CPU
 * stayed at {@link #BUSY_SHARE} of its level before or more (the host kept working as hard and moved a
 * fraction of the bytes: the change made each byte dearer, as lowering a sender far below its path does):
 * {@code traffic_changed} (a fixed per-second cost spread over very different traffic is not comparable per
 * byte; a fixed cost does not keep half the host's kernel CPU busy when the traffic has gone). The software segmentation (or copying) after is more
 * than {@link #GONE_SHARE} of its rate before, or the host CPU of a window is unknown:
 * {@code inconclusive}. Otherwise the CPU per byte decides: down by more than {@link #NOISE}:
 * {@code verified}; up by more than that: {@code worse} (the change removed the segmentation but the
 * host pays more per byte, e.g. every sender above now builds smaller super-packets); within it:
 * {@code inconclusive}. The saving of {@code verified} and {@code worse} is the measured difference at the
 * traffic before: {@code (cpu_per_byte_before - cpu_per_byte_after) x traffic_before}, in cores (negative
 * for {@code worse}).
 */
public final class SavingCheck {
  /** The band of the traffic ratio (after / before) within which windows are comparable. */
  public static final double MAX_TRAFFIC_RATIO = 4;
  /**
   * Below the traffic band with the segmentation gone, the windows are still compared when the host's kernel
   * CPU after is at least this share of the CPU before.
   */
  public static final double BUSY_SHARE = 0.5;
  /** The software rate after at most this share of the rate before counts as the segmentation gone. */
  public static final double GONE_SHARE = 0.05;
  /** Below this many bytes per second through the subject, a window carried no traffic. */
  public static final double MIN_TRAFFIC = 1000;
  /** The same for generic XDP, in packets per second. */
  public static final double MIN_XDP_TRAFFIC = 10;
  /**
   * A change of the CPU per byte smaller than this share is within the noise of a host-wide measure: the
   * kernel work of everything else the host does in the same windows (docs/recommendations.md).
   */
  public static final double NOISE = 0.10;

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
   * @param hostCpuCores the host's kernel CPU over the window (system + irq + softirq), NaN when unknown
   */
  public record Measure(Instant from, Instant to, double softwarePerSec, double cpuCores, String cpuBasis,
      double traffic, double hostCpuCores) {

    /** A measure without the host's CPU. */
    public Measure(Instant from, Instant to, double softwarePerSec, double cpuCores, String cpuBasis, double traffic) {
      this(from, to, softwarePerSec, cpuCores, cpuBasis, traffic, Double.NaN);
    }

    /** The host's kernel CPU per unit of traffic (core-seconds per byte, or per packet), NaN when unknown. */
    public double cpuPerUnit() {
      return traffic > 0 && Double.isFinite(hostCpuCores) ? hostCpuCores / traffic : Double.NaN;
    }
  }

  /**
   * The outcome for one closed recommendation.
   *
   * @param recommendation the recommendation as it was when it closed
   * @param closedAt when it closed
   * @param before the last window that found it at no less than 90 % of its highest rate
   * @param after the window after the evidence stopped with the most traffic, empty when none was
   *     measured
   * @param verdict {@code verified}, {@code worse}, {@code inconclusive}, {@code traffic_changed} or
   *     {@code no_traffic_after}
   * @param savingCores the measured saving in cores for {@code verified} and {@code worse} (negative: it costs
   *     more), else 0
   * @param undo for {@code worse}: the commands that put back the settings the change altered (recorded
   *     before it), empty otherwise or when no recorded setting changed
   */
  public record Verification(Recommendation recommendation, Instant closedAt, Measure before, Optional<Measure> after,
      String verdict, double savingCores, List<Command> undo) {

    public Verification {
      undo = List.copyOf(undo);
    }

    public Verification(Recommendation recommendation, Instant closedAt, Measure before, Optional<Measure> after,
        String verdict, double savingCores) {
      this(recommendation, closedAt, before, after, verdict, savingCores, List.of());
    }

    public DeviceRef subject() {
      return recommendation.finding().subject();
    }

    /** after traffic / before traffic, NaN without an after window or before traffic. */
    public double trafficRatio() {
      return after.isEmpty() || before.traffic() <= 0 ? Double.NaN
          : after.get().traffic() / before.traffic();
    }

    /** after CPU per byte / before, NaN when either is unknown. */
    public double cpuPerUnitRatio() {
      double b = before.cpuPerUnit();
      return after.isEmpty() || !(b > 0) ? Double.NaN : after.get().cpuPerUnit() / b;
    }

    Verification withUndo(List<Command> commands) {
      return new Verification(recommendation, closedAt, before, after, verdict, savingCores, commands);
    }
  }

  static boolean xdp(Finding f) {
    return f.rule().equals("generic_xdp_copy");
  }

  /** Whether the finding's traffic is counted in packets (generic XDP) rather than bytes. */
  public static boolean xdpRule(Finding f) {
    return xdp(f);
  }

  /** The finding's devices measured in one window, with the host's kernel CPU over it (NaN: unknown). */
  static Measure measure(Finding f, Map<DeviceId, DeviceCost> costs, Instant from, Instant to, double hostCpuCores) {
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
    return new Measure(from, to, sw, cpu, basis, traffic, hostCpuCores);
  }

  /** The verdict on {@code before} against {@code after}. */
  static Verification verify(Recommendation r, Instant closedAt, Measure before, Optional<Measure> after) {
    if (after.isEmpty() || after.get().traffic() < (xdp(r.finding()) ? MIN_XDP_TRAFFIC : MIN_TRAFFIC)) {
      return new Verification(r, closedAt, before, after, "no_traffic_after", 0);
    }
    Measure a = after.get();
    double ratio = before.traffic() > 0 ? a.traffic() / before.traffic() : Double.POSITIVE_INFINITY;
    boolean gone = a.softwarePerSec() <= GONE_SHARE * before.softwarePerSec();
    boolean comparable = ratio >= 1 / MAX_TRAFFIC_RATIO && ratio <= MAX_TRAFFIC_RATIO;
    boolean lifted = gone && ratio > MAX_TRAFFIC_RATIO && Double.isFinite(ratio);
    boolean keptBusy = gone && ratio < 1 / MAX_TRAFFIC_RATIO && before.hostCpuCores() > 0
        && a.hostCpuCores() >= BUSY_SHARE * before.hostCpuCores();
    if (!comparable && !lifted && !keptBusy) {
      return new Verification(r, closedAt, before, after, "traffic_changed", 0);
    }
    double perBefore = before.cpuPerUnit();
    double perAfter = a.cpuPerUnit();
    if (!gone || !(perBefore > 0) || !(perAfter >= 0)) {
      return new Verification(r, closedAt, before, after, "inconclusive", 0);
    }
    double saving = (perBefore - perAfter) * before.traffic();
    double change = perAfter / perBefore;
    if (change <= 1 - NOISE) {
      return new Verification(r, closedAt, before, after, "verified", saving);
    }
    if (change >= 1 + NOISE) {
      return new Verification(r, closedAt, before, after, "worse", saving);
    }
    return new Verification(r, closedAt, before, after, "inconclusive", 0);
  }
}

package io.segscope.agent.cost;

import io.segscope.device.DeviceId;
import io.segscope.exporters.model.DeviceRef;
import io.segscope.exporters.model.NativeHistogram;
import io.segscope.vocabulary.Cause;
import io.segscope.vocabulary.GsoType;
import io.segscope.vocabulary.Site;
import java.util.Map;

/**
 * What segmentation and generic-XDP copies cost one device over one window: rates per second, CPU,
 * and the window's own histograms (deltas, not totals; durations in seconds).
 *
 * <p>{@code gsoTrafficBytesPerSec} is the device's GSO traffic: the bytes of the super-packets queued
 * on it plus those segmented before the queue (at IP output or UDP receive), whether segmented or not
 * (what the verified savings compare).
 */
public record DeviceCost(
    DeviceRef device,
    String gsoMode,
    double seconds,
    double swSkbsPerSec,
    double swSegmentsPerSec,
    double swBytesPerSec,
    double offloadedSkbsPerSec,
    double gsoTrafficBytesPerSec,
    Map<Cause, Double> causesPerSec,
    Map<Site, Double> sitesPerSec,
    Map<GsoType, Double> typesPerSec,
    NativeHistogram swDuration,
    NativeHistogram segmentsPerSkb,
    CpuEstimate gsoCpu,
    String xdpMode,
    double xdpCopiedPerSec,
    double xdpPassedPerSec,
    double xdpCopiedBytesPerSec,
    NativeHistogram xdpCopyDuration,
    CpuEstimate xdpCpu) {

  public DeviceCost {
    causesPerSec = Map.copyOf(causesPerSec);
    sitesPerSec = Map.copyOf(sitesPerSec);
    typesPerSec = Map.copyOf(typesPerSec);
  }

  /** The device's identity, as its record carries it. */
  public DeviceId id() {
    return device.id();
  }

  /** GSO super-packets per second that reached the device's transmit path: segmented or handed on intact. */
  public double gsoSkbsPerSec() {
    return swSkbsPerSec + offloadedSkbsPerSec;
  }

  /** Share of software segmentations of this GSO type, 0..1. */
  public double typeShare(GsoType t) {
    return swSkbsPerSec > 0 ? Math.min(1.0, typesPerSec.getOrDefault(t, 0.0) / swSkbsPerSec) : 0;
  }

  /** Share of software segmentations at this call site, 0..1. */
  public double siteShare(Site site) {
    return swSkbsPerSec > 0 ? Math.min(1.0, sitesPerSec.getOrDefault(site, 0.0) / swSkbsPerSec) : 0;
  }

  public double causePerSec(Cause c) {
    return causesPerSec.getOrDefault(c, 0.0);
  }

  /** Share of software segmentations with this cause, 0..1. */
  public double causeShare(Cause c) {
    return swSkbsPerSec > 0 ? Math.min(1.0, causePerSec(c) / swSkbsPerSec) : 0;
  }

  /** Quantile of the window's segmentation time in ns, NaN when nothing was timed. */
  public double swDurationQuantileNanos(double q) {
    return swDuration.quantile(q) * 1e9;
  }

  /** Quantile of the window's generic-XDP copy time in ns, NaN when nothing was timed. */
  public double xdpCopyQuantileNanos(double q) {
    return xdpCopyDuration.quantile(q) * 1e9;
  }
}

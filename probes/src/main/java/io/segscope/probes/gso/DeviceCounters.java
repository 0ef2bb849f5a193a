package io.segscope.probes.gso;

import java.util.Arrays;

/**
 * What the programs counted for one device since they were attached, summed over CPUs. Raw kernel
 * units (ns, bytes); histograms are bcc log2 slots (slot 0 holds 0, slot i holds [2^(i-1), 2^i - 1]).
 *
 * @param netns inode of the device's network namespace
 * @param kernelName the device name when the kernel first counted it (a fallback: the inventory names devices)
 * @param causes software segmentations per cause, indexed by {@link Cause#ordinal()}
 */
public record DeviceCounters(
    long netns,
    int ifindex,
    String kernelName,
    long swSkbs,
    long swSegments,
    long swBytes,
    long swTimed,
    long swNanos,
    long offloadedSkbs,
    long offloadedBytes,
    long[] causes,
    long[] durationSlots,
    long[] segmentSlots,
    long xdpCopied,
    long xdpPassed,
    long xdpCopiedBytes,
    long xdpTimed,
    long xdpNanos,
    long[] xdpDurationSlots) {

  /** Why the kernel segmented in software; order matches the programs' CAUSE_* constants. */
  public enum Cause {
    FEATURE_MISSING,
    GSO_MAX_SIZE,
    GSO_MAX_SEGS,
    CHECKSUM,
    OTHER
  }

  public DeviceCounters {
    causes = causes.clone();
    durationSlots = durationSlots.clone();
    segmentSlots = segmentSlots.clone();
    xdpDurationSlots = xdpDurationSlots.clone();
  }

  public long cause(Cause c) {
    return causes[c.ordinal()];
  }

  @Override
  public long[] causes() {
    return causes.clone();
  }

  @Override
  public long[] durationSlots() {
    return durationSlots.clone();
  }

  @Override
  public long[] segmentSlots() {
    return segmentSlots.clone();
  }

  @Override
  public long[] xdpDurationSlots() {
    return xdpDurationSlots.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DeviceCounters d
        && netns == d.netns && ifindex == d.ifindex && kernelName.equals(d.kernelName)
        && swSkbs == d.swSkbs && swSegments == d.swSegments && swBytes == d.swBytes
        && swTimed == d.swTimed && swNanos == d.swNanos && offloadedSkbs == d.offloadedSkbs
        && offloadedBytes == d.offloadedBytes && Arrays.equals(causes, d.causes)
        && Arrays.equals(durationSlots, d.durationSlots) && Arrays.equals(segmentSlots, d.segmentSlots)
        && xdpCopied == d.xdpCopied && xdpPassed == d.xdpPassed && xdpCopiedBytes == d.xdpCopiedBytes
        && xdpTimed == d.xdpTimed && xdpNanos == d.xdpNanos
        && Arrays.equals(xdpDurationSlots, d.xdpDurationSlots);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(netns) * 31 + ifindex;
  }

  @Override
  public String toString() {
    return "DeviceCounters[netns=" + netns + ", ifindex=" + ifindex + ", name=" + kernelName
        + ", swSkbs=" + swSkbs + ", swSegments=" + swSegments + ", swBytes=" + swBytes
        + ", offloadedSkbs=" + offloadedSkbs + ", causes=" + Arrays.toString(causes)
        + ", xdpCopied=" + xdpCopied + ", xdpPassed=" + xdpPassed + "]";
  }
}

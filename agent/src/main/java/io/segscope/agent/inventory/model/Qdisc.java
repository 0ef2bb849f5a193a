package io.segscope.agent.inventory.model;

import java.util.Optional;

/**
 * One queueing discipline as rtnetlink (RTM_NEWQDISC) describes it, with the parameters of the
 * kinds that segment GSO super-packets themselves.
 *
 * @param ifindex its device
 * @param handle its handle (major in the upper 16 bits)
 * @param parent its parent: {@link #ROOT}, the ingress/clsact hook, or a class
 * @param kind TCA_KIND ("tbf", "cake", "noqueue", ...)
 * @param tbf the token bucket's parameters for kind tbf
 * @param cake cake's parameters for kind cake
 */
public record Qdisc(int ifindex, int handle, int parent, String kind, Optional<Tbf> tbf, Optional<Cake> cake) {

  /** TC_H_ROOT (include/uapi/linux/pkt_sched.h). */
  public static final int ROOT = 0xFFFFFFFF;

  /**
   * tbf's parameters (struct tc_tbf_qopt and the 64-bit rates), in the units tc's command line takes.
   *
   * @param rateBytesPerSec the rate
   * @param peakBytesPerSec the peak rate, 0 when none
   * @param limitBytes the queue limit
   * @param burstBytes the bucket size: a packet longer than this is segmented (a GSO one) or dropped
   * @param mtuBytes the peak bucket's size (tc's {@code mtu}/minburst), 0 without a peak rate
   * @param overhead the rate table's per-packet overhead
   * @param mpu the rate table's minimum packet unit
   * @param linklayer TC_LINKLAYER_ETHERNET (1), ATM (2), or 0 (unaware)
   */
  public record Tbf(long rateBytesPerSec, long peakBytesPerSec, long limitBytes, long burstBytes, long mtuBytes,
      int overhead, int mpu, int linklayer) {}

  /**
   * cake's parameters.
   *
   * @param bandwidthBytesPerSec its shaping rate, 0 unlimited
   * @param splitGso whether it splits GSO super-packets (its default, {@code split-gso})
   */
  public record Cake(long bandwidthBytesPerSec, boolean splitGso) {}

  public boolean root() {
    return parent == ROOT;
  }

  /** The handle as tc writes it, e.g. {@code 8004:}. */
  public String handleText() {
    return Integer.toHexString(handle >>> 16) + ":"
        + ((handle & 0xffff) == 0 ? "" : Integer.toHexString(handle & 0xffff));
  }

  /** The parent as tc writes it: {@code root}, or {@code 1:10}. */
  public String parentText() {
    return root() ? "root" : Integer.toHexString(parent >>> 16) + ":" + Integer.toHexString(parent & 0xffff);
  }
}

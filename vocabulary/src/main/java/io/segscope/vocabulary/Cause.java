package io.segscope.vocabulary;

/** Why a GSO super-packet had to be segmented in software ({@code segscope_gso_sw_cause_skbs_total{cause=...}}); codes are the programs' {@code CAUSE_*} macros. */
public enum Cause implements Term {
  /** The device lacks the offload feature the packet's GSO type needs (e.g. TSO off). */
  FEATURE_MISSING,
  /** The packet is larger than the device's gso_max_size (gso_ipv4_max_size for IPv4). */
  GSO_MAX_SIZE,
  /** The packet has more segments than the device's gso_max_segs. */
  GSO_MAX_SEGS,
  /** The checksum could not be offloaded, which forces software segmentation. */
  CHECKSUM,
  /** Anything the probes cannot attribute to one of the other causes. */
  OTHER,
  /** A forwarded super-packet larger than the egress MTU, segmented at IP output. */
  MTU,
  /** A qdisc (tbf, cake, netem, taprio) segmented it itself. */
  QDISC,
  /** An encapsulated packet whose inner GSO type the device cannot offload under encapsulation (hw_enc_features). */
  TUNNEL_FEATURE_MISSING;

  @Override
  public String macroPrefix() {
    return "CAUSE_";
  }
}

package io.segscope.exporters.model;

/**
 * Why a GSO super-packet had to be segmented in software ({@code segscope_gso_sw_cause_skbs_total{cause=...}}). The label values are part of the metric contract.
 */
public enum GsoCause {
  /** The device lacks the offload feature the packet's GSO type needs (e.g. TSO off). */
  FEATURE_MISSING("feature_missing"),
  /** The packet is larger than the device's gso_max_size (gso_ipv4_max_size for IPv4). */
  GSO_MAX_SIZE("gso_max_size"),
  /** The packet has more segments than the device's gso_max_segs. */
  GSO_MAX_SEGS("gso_max_segs"),
  /** The checksum could not be offloaded, which forces software segmentation. */
  CHECKSUM("checksum"),
  /** Anything the probes cannot attribute to one of the other causes. */
  OTHER("other"),
  /** A forwarded super-packet larger than the egress MTU, segmented at IP output. */
  MTU("mtu"),
  /** A qdisc (tbf, cake, netem, taprio) segmented it itself. */
  QDISC("qdisc"),
  /** An encapsulated packet whose inner GSO type the device cannot offload under encapsulation (hw_enc_features). */
  TUNNEL_FEATURE_MISSING("tunnel_feature_missing");

  private final String label;

  GsoCause(String label) {
    this.label = label;
  }

  /** The value of the {@code cause} label. */
  public String label() {
    return label;
  }
}

package io.segscope.exporters.model;

/**
 * Why a GSO super-packet had to be segmented in software. The label values are part of the metric
 * contract ({@code segscope_gso_sw_cause_skbs_total{cause=...}}).
 */
public enum GsoCause {
  /** The device lacks the offload feature the packet's GSO type needs (e.g. TSO off). */
  FEATURE_MISSING("feature_missing"),
  /** The packet is larger than the device's gso_max_size. */
  GSO_MAX_SIZE("gso_max_size"),
  /** The packet has more segments than the device's gso_max_segs. */
  GSO_MAX_SEGS("gso_max_segs"),
  /** The checksum could not be offloaded, which forces software segmentation. */
  CHECKSUM("checksum"),
  /** Anything the probes cannot attribute to one of the causes above. */
  OTHER("other");

  private final String label;

  GsoCause(String label) {
    this.label = label;
  }

  /** The value of the {@code cause} label. */
  public String label() {
    return label;
  }
}

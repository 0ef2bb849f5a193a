package io.segscope.exporters.model;

/**
 * Where in the kernel a super-packet was segmented in software ({@code segscope_gso_sw_site_skbs_total{site=...}}). The label values are part of the metric contract.
 */
public enum GsoSite {
  /** validate_xmit_skb: the transmitting device could not take it whole. */
  XMIT("xmit"),
  /** ip(6)_finish_output_gso: a forwarded super-packet larger than the egress MTU. */
  IP_OUTPUT_MTU("ip_output_mtu"),
  /** A qdisc that segments (tbf, cake, netem, taprio). */
  QDISC("qdisc"),
  /** IPsec output. */
  XFRM("xfrm"),
  /** UDP GRO packets segmented again for a socket that did not ask for GRO. */
  UDP_RX("udp_rx"),
  /** Elsewhere: netfilter queue, Open vSwitch, tap, drivers. */
  OTHER("other");

  private final String label;

  GsoSite(String label) {
    this.label = label;
  }

  /** The value of the {@code site} label. */
  public String label() {
    return label;
  }
}

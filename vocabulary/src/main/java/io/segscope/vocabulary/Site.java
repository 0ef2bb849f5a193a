package io.segscope.vocabulary;

/** Where in the kernel a super-packet was segmented in software ({@code segscope_gso_sw_site_skbs_total{site=...}}); codes are the programs' {@code SITE_*} macros. */
public enum Site implements Term {
  /** validate_xmit_skb: the transmitting device could not take it whole. */
  XMIT,
  /** ip(6)_finish_output_gso: a forwarded super-packet larger than the egress MTU. */
  IP_OUTPUT_MTU,
  /** A qdisc that segments (tbf, cake, netem, taprio). */
  QDISC,
  /** IPsec output. */
  XFRM,
  /** UDP GRO packets segmented again for a socket that did not ask for GRO. */
  UDP_RX,
  /** Elsewhere: netfilter queue, Open vSwitch, tap, drivers. */
  OTHER;

  @Override
  public String macroPrefix() {
    return "SITE_";
  }
}

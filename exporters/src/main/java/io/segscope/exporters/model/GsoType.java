package io.segscope.exporters.model;

/**
 * The GSO type class of a software-segmented super-packet ({@code segscope_gso_sw_type_skbs_total{gso_type=...}}). The label values are part of the metric contract.
 */
public enum GsoType {
  /** TCP over IPv4. */
  TCP4("tcp4"),
  /** TCP over IPv6. */
  TCP6("tcp6"),
  /** UDP segmentation offload (UDP_SEGMENT senders, QUIC). */
  UDP_L4("udp_l4"),
  /** Inside a UDP tunnel (vxlan, geneve). */
  UDP_TUNNEL("udp_tunnel"),
  /** Inside GRE. */
  GRE("gre"),
  /** Inside IP-in-IP (ipip, sit, ip6tnl). */
  IPIP("ipip"),
  /** Fraglist GSO (forwarded UDP/TCP GRO lists). */
  FRAGLIST("fraglist"),
  /** Any other GSO type. */
  OTHER("other");

  private final String label;

  GsoType(String label) {
    this.label = label;
  }

  /** The value of the {@code gso_type} label. */
  public String label() {
    return label;
  }
}

package io.segscope.vocabulary;

/** The GSO type class of a software-segmented super-packet ({@code segscope_gso_sw_type_skbs_total{gso_type=...}}); codes are the programs' {@code GTYPE_*} macros. */
public enum GsoType implements Term {
  /** TCP over IPv4. */
  TCP4,
  /** TCP over IPv6. */
  TCP6,
  /** UDP segmentation offload (UDP_SEGMENT senders, QUIC). */
  UDP_L4,
  /** Inside a UDP tunnel (vxlan, geneve). */
  UDP_TUNNEL,
  /** Inside GRE. */
  GRE,
  /** Inside IP-in-IP (ipip, sit, ip6tnl). */
  IPIP,
  /** Fraglist GSO (forwarded UDP/TCP GRO lists). */
  FRAGLIST,
  /** Any other GSO type. */
  OTHER;

  @Override
  public String macroPrefix() {
    return "GTYPE_";
  }
}

package io.segscope.probes.wire;

/** The class of a software-segmented super-packet's GSO type (the `gso_type` label). Codes are the programs' {@code GTYPE_*} macros in {@code bpf/common.h}. */
public enum GsoType {
  TCP4(0, "tcp4"),
  TCP6(1, "tcp6"),
  UDP_L4(2, "udp_l4"),
  UDP_TUNNEL(3, "udp_tunnel"),
  GRE(4, "gre"),
  IPIP(5, "ipip"),
  FRAGLIST(6, "fraglist"),
  OTHER(7, "other");

  private final int code;
  private final String label;

  GsoType(int code, String label) {
    this.code = code;
    this.label = label;
  }

  /** The value the programs use ({@code GTYPE_<NAME>}). */
  public int code() {
    return code;
  }

  /** The metric label value. */
  public String label() {
    return label;
  }

  /** The C macro naming this value in {@code bpf/common.h}. */
  public String macro() {
    return "GTYPE_" + name();
  }
}

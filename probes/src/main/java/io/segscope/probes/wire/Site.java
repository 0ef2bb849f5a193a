package io.segscope.probes.wire;

/** Where in the kernel a super-packet was segmented in software (the `site` label). Codes are the programs' {@code SITE_*} macros in {@code bpf/common.h}. */
public enum Site {
  XMIT(0, "xmit"),
  IP_OUTPUT_MTU(1, "ip_output_mtu"),
  QDISC(2, "qdisc"),
  XFRM(3, "xfrm"),
  UDP_RX(4, "udp_rx"),
  OTHER(5, "other");

  private final int code;
  private final String label;

  Site(int code, String label) {
    this.code = code;
    this.label = label;
  }

  /** The value the programs use ({@code SITE_<NAME>}). */
  public int code() {
    return code;
  }

  /** The metric label value. */
  public String label() {
    return label;
  }

  /** The C macro naming this value in {@code bpf/common.h}. */
  public String macro() {
    return "SITE_" + name();
  }
}

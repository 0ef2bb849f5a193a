package io.segscope.probes.wire;

/** Why a super-packet was segmented in software (the `cause` label). Codes are the programs' {@code CAUSE_*} macros in {@code bpf/common.h}. */
public enum Cause {
  FEATURE_MISSING(0, "feature_missing"),
  GSO_MAX_SIZE(1, "gso_max_size"),
  GSO_MAX_SEGS(2, "gso_max_segs"),
  CHECKSUM(3, "checksum"),
  OTHER(4, "other"),
  MTU(5, "mtu"),
  QDISC(6, "qdisc"),
  TUNNEL_FEATURE_MISSING(7, "tunnel_feature_missing");

  private final int code;
  private final String label;

  Cause(int code, String label) {
    this.code = code;
    this.label = label;
  }

  /** The value the programs use ({@code CAUSE_<NAME>}). */
  public int code() {
    return code;
  }

  /** The metric label value. */
  public String label() {
    return label;
  }

  /** The C macro naming this value in {@code bpf/common.h}. */
  public String macro() {
    return "CAUSE_" + name();
  }
}

package io.segscope.probes.wire;

/** Events the programs could not fully attribute (the `kind` label of segscope_probe_diagnostic_total). Codes are the programs' {@code DIAG_*} macros in {@code bpf/common.h}. */
public enum Diagnostic {
  SEGMENTED_UNTIMED(0, "segmented_untimed"),
  COUNTS_FULL(1, "stats_map_full"),
  DETAIL_FULL(2, "detail_map_full"),
  GSO_NULL(3, "gso_returned_null"),
  GSO_ERROR(4, "gso_returned_error");

  private final int code;
  private final String label;

  Diagnostic(int code, String label) {
    this.code = code;
    this.label = label;
  }

  /** The value the programs use ({@code DIAG_<NAME>}). */
  public int code() {
    return code;
  }

  /** The metric label value. */
  public String label() {
    return label;
  }

  /** The C macro naming this value in {@code bpf/common.h}. */
  public String macro() {
    return "DIAG_" + name();
  }
}

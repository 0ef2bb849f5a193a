package io.segscope.vocabulary;

/** Events the programs could not fully attribute ({@code segscope_probe_diagnostic_total{kind=...}}); codes are the programs' {@code DIAG_*} macros. */
public enum Diagnostic implements Term {
  /** Counted, but its start was not seen on this CPU: not timed. */
  SEGMENTED_UNTIMED,
  /** The per-device counter map is full: not counted. */
  COUNTS_FULL("stats_map_full"),
  /** Counted, but its causes, sites and histograms not kept (the detail map is full). */
  DETAIL_FULL("detail_map_full"),
  /** kprobe/fentry: __skb_gso_segment returned NULL (not a segmentation). */
  GSO_NULL("gso_returned_null"),
  /** kprobe/fentry: __skb_gso_segment returned an error (not a segmentation). */
  GSO_ERROR("gso_returned_error"),
  /**
   * kprobe/fentry: the counting program found no call site in the return address or the trampoline's frame and
   * asked the kernel's unwinder ({@code bpf_get_stack}): counted as usual, at the unwinder's cost.
   */
  CALLER_UNWOUND;

  /** The label where it is not the name in lower case (the metric's values predate these names). */
  private final String label;

  Diagnostic() {
    this(null);
  }

  Diagnostic(String label) {
    this.label = label;
  }

  /** The value of the {@code kind} label. */
  @Override
  public String label() {
    return label != null ? label : Term.super.label();
  }

  @Override
  public String macroPrefix() {
    return "DIAG_";
  }
}

package io.segscope.probes;

import java.util.Map;

/**
 * A kernel path segscope measures. Each is planned, attached and labelled on its own: one path may run
 * in fentry mode while another falls back to tracepoints.
 */
public enum MeasuredPath {
  /** TX software segmentation ({@code __skb_gso_segment} with {@code tx_path}), and offloaded super-packets. */
  GSO_TX("gso_tx", Map.of()),
  /** Generic (skb-mode) XDP copies and linearizations. */
  XDP_GENERIC("xdp_generic", Map.of("bpf_prog_run_generic_xdp",
      "kernels before 5.15 have no such function, so the copy cannot be delimited (probing the copy"
          + " helpers inside do_xdp_generic instead is not implemented)"));

  private final String label;
  private final Map<String, String> absenceHints;

  MeasuredPath(String label, Map<String, String> absenceHints) {
    this.label = label;
    this.absenceHints = absenceHints;
  }

  /** {@code gso_tx} or {@code xdp_generic}: the {@code path} label. */
  public String label() {
    return label;
  }

  /** What it means for this path when {@code function} is missing from the kernel, "" if nothing special. */
  String absenceHint(String function) {
    return absenceHints.getOrDefault(function, "");
  }

  /**
   * The path of that label.
   *
   * @throws IllegalArgumentException for an unknown label
   */
  public static MeasuredPath of(String label) {
    for (MeasuredPath p : values()) {
      if (p.label.equals(label)) {
        return p;
      }
    }
    throw new IllegalArgumentException("find measured path '" + label + "': no such path (gso_tx, xdp_generic)");
  }
}

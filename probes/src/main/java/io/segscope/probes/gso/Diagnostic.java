package io.segscope.probes.gso;

/** Per-CPU diagnostic counters kept by the programs (index = position in the {@code diag} map). */
public enum Diagnostic {
  /** Segmented at validate_xmit_skb, but its net_dev_queue was not seen (e.g. queued before attach). */
  SEGMENTED_UNTRACKED("segmented_untracked"),
  /** Segmented on another CPU than the one that queued/dequeued it: counted, not timed. */
  SEGMENTED_OTHER_CPU("segmented_other_cpu"),
  /** The per-device map was full: the event was not counted. */
  STATS_MAP_FULL("stats_map_full"),
  /** kprobe/fentry: {@code __skb_gso_segment} returned NULL (nothing to segment, e.g. a re-validated DODGY skb). */
  GSO_RETURNED_NULL("gso_returned_null"),
  /** kprobe/fentry: {@code __skb_gso_segment} returned an ERR_PTR (segmentation failed, the skb is dropped). */
  GSO_RETURNED_ERROR("gso_returned_error");

  private final String label;

  Diagnostic(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}

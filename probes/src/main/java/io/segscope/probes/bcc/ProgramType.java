package io.segscope.probes.bcc;

/** The BPF program types the binding loads, with their uapi {@code enum bpf_prog_type} numbers. */
public enum ProgramType {
  KPROBE(2),
  TRACEPOINT(5),
  XDP(6),
  RAW_TRACEPOINT(17),
  /** fentry/fexit ({@code KFUNC_PROBE}/{@code KRETFUNC_PROBE}). */
  TRACING(26);

  private final int id;

  ProgramType(int id) {
    this.id = id;
  }

  /** The uapi {@code enum bpf_prog_type} value. */
  public int id() {
    return id;
  }
}

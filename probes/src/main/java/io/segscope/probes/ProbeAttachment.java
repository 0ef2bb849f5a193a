package io.segscope.probes;

/**
 * One program of one measured path and whether it runs.
 *
 * @param path what it measures: {@code gso_tx} or {@code xdp_generic}
 * @param program the BPF function name (also the {@code program} label of the bpf_stats metrics)
 * @param mode {@code tracepoint}, {@code kprobe} or {@code fentry}
 * @param target what it is attached to, e.g. {@code tracepoint:net:net_dev_queue}
 * @param attached whether it is attached now
 * @param detail why not, when not attached ("" otherwise)
 */
public record ProbeAttachment(String path, String program, String mode, String target, boolean attached,
    String detail) {}

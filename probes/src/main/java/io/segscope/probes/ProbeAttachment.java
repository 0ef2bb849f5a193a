package io.segscope.probes;

/**
 * One program of one measured path and whether it runs.
 *
 * @param path what it measures: {@code gso_tx} or {@code xdp_generic}
 * @param program the BPF function name (also the {@code program} label of the run-time metrics)
 * @param mode {@code tracepoint}, {@code kprobe} or {@code fentry}
 * @param target what it is attached to, e.g. {@code tp_btf:consume_skb}
 * @param attach the attach type: tp_btf, raw_tp, tracepoint, kprobe, kretprobe, fentry, fexit
 * @param attached whether it is attached now
 * @param onDemand attached only while needed (see {@link ProbeSession#setGenericXdpPresent})
 * @param detail why not, when not attached ("" otherwise)
 */
public record ProbeAttachment(String path, String program, String mode, String target, String attach,
    boolean attached, boolean onDemand, String detail) {}

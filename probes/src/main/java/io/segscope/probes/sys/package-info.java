/**
 * The BPF system calls, thin and without policy: {@code bpf(2)} ({@link io.segscope.probes.sys.Bpf}),
 * {@code perf_event_open(2)} ({@link io.segscope.probes.sys.PerfEvent}) and the tracefs kprobe events a
 * crashed run may leave ({@link io.segscope.probes.sys.StaleKprobeEvents}), all through the host's one libc
 * binding ({@code io.segscope.host.sys.Libc}). Everything above (loading a compiled object, attaching it,
 * reading its maps) is built on these calls; nothing in this package loads libbcc. Failures are {@code
 * io.segscope.host.sys.SysException}s that name the call, the object and the errno ("bpf BPF_PROG_LOAD
 * tp_btf_consume_skb: Permission denied (errno 1)").
 */
package io.segscope.probes.sys;

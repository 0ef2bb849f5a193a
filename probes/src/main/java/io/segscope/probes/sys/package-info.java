/**
 * The kernel-facing bottom layer: thin bindings of the system calls segscope needs ({@code bpf(2)},
 * {@code perf_event_open(2)}, {@code ioctl}, {@code close}; for the agent's inventory the socket
 * calls, {@code poll} and {@code setns}) through JNA ({@link io.segscope.probes.sys.Libc}, the one
 * libc binding), with no policy. {@link io.segscope.probes.sys.Errno} is the one way an errno is
 * put into words. Everything
 * above (loading a compiled object, attaching it, reading its maps) is built on these calls; nothing in
 * this package loads libbcc. Failures are {@link io.segscope.probes.sys.SysException}s that name the
 * call, the object and the errno ("bpf BPF_PROG_LOAD tp_btf_consume_skb: Permission denied (errno 1)").
 */
package io.segscope.probes.sys;

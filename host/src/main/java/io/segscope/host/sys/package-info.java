/**
 * The host's system calls, for everything that is not BPF: the one libc binding through JNA ({@link
 * io.segscope.host.sys.Libc}: {@code syscall}, {@code ioctl}, {@code close}, the socket calls, {@code poll},
 * {@code setns}), with no policy; {@link io.segscope.host.sys.Errno}, the one way an errno is put into
 * words; {@link io.segscope.host.sys.Cpus}, the possible CPUs (per-CPU map values). Failures are {@link
 * io.segscope.host.sys.SysException}s that name the call, the object and the errno. The BPF system calls
 * built on them ({@code bpf(2)}, {@code perf_event_open(2)}) are in {@code io.segscope.probes.sys}.
 */
package io.segscope.host.sys;

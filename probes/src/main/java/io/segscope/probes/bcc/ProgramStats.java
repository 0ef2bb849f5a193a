package io.segscope.probes.bcc;

/**
 * The kernel's run statistics of one loaded program ({@code bpf_prog_info.run_time_ns} and
 * {@code run_cnt}). They only grow while {@code kernel.bpf_stats_enabled=1}; with stats disabled
 * they stay at what was counted before (usually 0). -1 when the kernel's {@code bpf_prog_info} is
 * too old to carry them (before 5.1).
 *
 * @param function     the BCC function name the program was loaded from
 * @param fd           the program's file descriptor in this process
 * @param runTimeNanos total time spent running the program
 * @param runCount     number of runs
 */
public record ProgramStats(String function, int fd, long runTimeNanos, long runCount) {}

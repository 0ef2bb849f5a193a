package io.segscope.probes;

/**
 * The kernel's run statistics of one loaded program ({@code bpf_prog_info.run_time_ns}, {@code run_cnt}):
 * they grow only while bpf_stats is enabled; -1 on kernels whose bpf_prog_info lacks them.
 */
public record ProgramRunStats(String program, long runTimeNanos, long runCount) {}

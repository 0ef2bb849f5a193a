package io.segscope.exporters.model;

/**
 * The in-kernel cost of one BPF program as reported by bpf_stats. Both values are cumulative since
 * the program was loaded.
 *
 * @param program the program's name
 * @param runTimeNanos total run time in nanoseconds (not negative)
 * @param runCount number of runs (not negative)
 */
public record ProgramStats(String program, long runTimeNanos, long runCount) {
  public ProgramStats {
    Checks.notBlank(program, "ProgramStats.program");
    Checks.notNegative(runTimeNanos, "ProgramStats.runTimeNanos");
    Checks.notNegative(runCount, "ProgramStats.runCount");
  }
}

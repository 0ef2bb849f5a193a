package io.segscope.bench.part;

import java.util.List;

/**
 * Part 1: in-kernel cost per event of segscope's programs and of an equivalent bpftrace program, attached
 * side by side during one S1 iperf3 run.
 *
 * @param programs one row per tracepoint
 * @param segscopeRunNanos total run time of segscope's programs in the window
 * @param bpftraceRunNanos total run time of the bpftrace programs in the window
 * @param segmentedSkbs super-packets segmented in software in the window (all devices, from the agent)
 * @param timedSegmentations how many of those were timed
 * @param segmentationNanos their total segmentation time (segscope_gso_sw_duration_seconds_sum, all devices)
 * @param trafficGbps the S1 iperf3 throughput
 * @param windowSeconds length of the measured window
 * @param foreignPrograms other processes' programs attached to the same tracepoints during the run
 * @param probeModes the modes of the agent's attached probes (segscope_probe_attached), e.g. "tracepoint"
 */
public record CostResult(List<ProgramCost> programs, long segscopeRunNanos, long bpftraceRunNanos,
    double segmentedSkbs, double timedSegmentations, double segmentationNanos, double trafficGbps,
    double windowSeconds, List<String> foreignPrograms, String probeModes) {

  /**
   * One tracepoint.
   *
   * @param segscopeNsPerEvent run_time_ns / run_cnt of segscope's program in the window
   * @param bpftraceNsPerEvent the same for the bpftrace program on that tracepoint
   * @param bpftraceEmpty the bpftrace program there is an empty one (the measurement floor), not an equivalent
   */
  public record ProgramCost(String tracepoint, String segscopeProgram, long segscopeRuns, long segscopeNanos,
      double segscopeNsPerEvent, long bpftraceRuns, long bpftraceNanos, double bpftraceNsPerEvent,
      boolean bpftraceEmpty) {
    public double ratioToBpftrace() {
      return bpftraceNsPerEvent > 0 && !bpftraceEmpty ? segscopeNsPerEvent / bpftraceNsPerEvent : Double.NaN;
    }
  }

  /** ns/event of an empty program under bpf_stats on this machine, NaN when not measured. */
  public double floorNsPerEvent() {
    return programs.stream().filter(ProgramCost::bpftraceEmpty).mapToDouble(ProgramCost::bpftraceNsPerEvent)
        .findFirst().orElse(Double.NaN);
  }

  /** Mean time to segment one super-packet as the agent measured it, ns. */
  public double meanSegmentationNanos() {
    return timedSegmentations > 0 ? segmentationNanos / timedSegmentations : Double.NaN;
  }

  /** All of segscope's in-kernel time in the window over all the segmentation time it measured. */
  public double totalShareOfSegmentation() {
    double seg = timedSegmentations > 0 && segmentedSkbs > 0
        ? segmentationNanos * (segmentedSkbs / timedSegmentations) : 0;
    return seg > 0 ? segscopeRunNanos / seg : Double.NaN;
  }
}

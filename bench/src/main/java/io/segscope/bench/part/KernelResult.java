package io.segscope.bench.part;

import java.util.List;

/**
 * Part 1: the in-kernel cost of every segscope program in one S1 window with bpf_stats on, next to an
 * empty program of the same attach type on the same event (which also counts how often the kernel fires
 * it), and the software segmentation the agent measured in that window. The agent runs with
 * {@code --timing-window always}, so every program runs and every segmentation is timed; the counting
 * programs alone are what a host pays outside the sampling windows, and the default windows' average is
 * the counting programs plus the timing programs for {@link #DEFAULT_DUTY} of the time.
 *
 * @param mode the agent's probe mode (segscope_probe_attached's mode label)
 * @param attach how its tracepoint programs attach (tp_btf, raw_tp, tracepoint)
 * @param windowSeconds how long bpf_stats was on
 * @param gbps the S1 iperf3 throughput in the window
 * @param programs every segscope program that ran (or was attached) in the window
 * @param events one empty program per event
 * @param superPackets super-packets segmented in software in the window, all devices
 *     (segscope_gso_sw_skbs_total)
 * @param segments the segments they were cut into
 * @param timedSuperPackets those of them that were timed
 * @param segmentationNanos their segmentation time in total (segscope_gso_sw_duration_seconds_sum)
 * @param foreign other processes' BPF programs on the same events (they share the events, not the figures)
 */
public record KernelResult(String mode, String attach, double windowSeconds, double gbps, List<ProgramCost> programs,
    List<EventRate> events, long superPackets, long segments, long timedSuperPackets, double segmentationNanos,
    List<String> foreign, List<String> timingPrograms) {
  /** The share of the time the timing programs run by default while segmentation is seen: 1 s in every 10 s. */
  public static final double DEFAULT_DUTY = 1.0 / 10;

  public KernelResult {
    timingPrograms = timingPrograms == null ? List.of() : List.copyOf(timingPrograms);
  }

  /** Whether {@code program} is a timing program (attached in sampling windows only). */
  public boolean timing(String program) {
    return timingPrograms.contains(program);
  }

  /** Runs of the counting programs (always attached). */
  public long countingRuns() {
    return programs.stream().filter(p -> !timing(p.program())).mapToLong(ProgramCost::runs).sum();
  }

  /** Run time of the counting programs (always attached). */
  public long countingRunTimeNanos() {
    return programs.stream().filter(p -> !timing(p.program())).mapToLong(ProgramCost::runTimeNanos).sum();
  }

  /** Counting programs' runs per super-packet: what runs outside the sampling windows. */
  public double countingRunsPerSuperPacket() {
    return superPackets == 0 ? Double.NaN : (double) countingRuns() / superPackets;
  }

  /** Counting programs' run time ÷ segmentation time: the cost outside the sampling windows. */
  public double countingShareOfSegmentation() {
    return segmentationNanos > 0 ? countingRunTimeNanos() / segmentationNanos : Double.NaN;
  }

  /** The average share with the timing programs attached {@code duty} of the time. */
  public double shareAtDuty(double duty) {
    return segmentationNanos > 0
        ? (countingRunTimeNanos() + duty * (totalRunTimeNanos() - countingRunTimeNanos())) / segmentationNanos
        : Double.NaN;
  }

  /**
   * One segscope program in the window.
   *
   * @param program its C function, e.g. tp_btf__consume_skb
   * @param event the tracepoint it runs on
   */
  public record ProgramCost(String program, String event, long runs, long runTimeNanos) {
    public double nsPerRun() {
      return runs == 0 ? Double.NaN : (double) runTimeNanos / runs;
    }
  }

  /**
   * The empty program on one event in the window: its runs are the event's firings.
   *
   * @param segscopeHook whether a segscope program is on this event too
   */
  public record EventRate(String event, boolean segscopeHook, long runs, long runTimeNanos) {
    public double nsPerRun() {
      return runs == 0 ? Double.NaN : (double) runTimeNanos / runs;
    }
  }

  public long totalRuns() {
    return programs.stream().mapToLong(ProgramCost::runs).sum();
  }

  public long totalRunTimeNanos() {
    return programs.stream().mapToLong(ProgramCost::runTimeNanos).sum();
  }

  /** All segscope programs' runs per software-segmented super-packet. */
  public double runsPerSuperPacket() {
    return superPackets == 0 ? Double.NaN : (double) totalRuns() / superPackets;
  }

  /** All segscope programs' run time ÷ the segmentation time measured. */
  public double shareOfSegmentation() {
    return segmentationNanos > 0 ? totalRunTimeNanos() / segmentationNanos : Double.NaN;
  }

  /** Mean segmentation time of one super-packet, ns. */
  public double meanSegmentationNanos() {
    return timedSuperPackets == 0 ? Double.NaN : segmentationNanos / timedSuperPackets;
  }

  /** How often {@code event} fired per super-packet (empty program's runs). */
  public double firingsPerSuperPacket(String event) {
    return events.stream().filter(e -> e.event().equals(event)).findFirst()
        .map(e -> superPackets == 0 ? Double.NaN : (double) e.runs() / superPackets).orElse(Double.NaN);
  }

  /** The empty program on {@code event}, or null. */
  public EventRate event(String event) {
    return events.stream().filter(e -> e.event().equals(event)).findFirst().orElse(null);
  }
}

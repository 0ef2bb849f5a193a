package io.segscope.bench.part;

import java.util.List;

/**
 * Part 2: iperf3 throughput and CPU with and without the agent, in interleaved pairs.
 *
 * @param runs every iperf3 run in the order it ran
 * @param scenarios one summary per scenario
 * @param runSeconds the duration of each run
 * @param agentStartSeconds how long each agent start took until ready (the runs "with" begin after it)
 */
public record OverheadResult(List<Run> runs, List<Summary> scenarios, double runSeconds,
    List<Double> agentStartSeconds) {

  /**
   * One iperf3 run.
   *
   * @param senderCpu iperf3 end.cpu_utilization_percent.host_total (the client, sender), percent
   * @param receiverCpu end.cpu_utilization_percent.remote_total (the server, receiver), percent
   */
  public record Run(int pair, String scenario, boolean agent, double gbps, double senderCpu, double receiverCpu) {}

  /**
   * Per scenario, over the pairs: ratios with/without of throughput and CPU.
   *
   * @param throughputRatio median, min, max of (with / without) per pair
   * @param senderCpuRatio the same for sender CPU
   * @param receiverCpuRatio the same for receiver CPU
   * @param gbpsWith median throughput with the agent
   * @param gbpsWithout median throughput without
   */
  public record Summary(String scenario, int pairs, Spread throughputRatio, Spread senderCpuRatio,
      Spread receiverCpuRatio, double gbpsWith, double gbpsWithout) {}

  /** A median with the range around it. */
  public record Spread(double median, double min, double max) {}
}

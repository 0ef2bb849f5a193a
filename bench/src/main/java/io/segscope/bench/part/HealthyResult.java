package io.segscope.bench.part;

import java.util.List;

/**
 * Part 1d: a healthy host. The agent with default flags (no segmentation seen since its start, so no
 * timing window opens) and S0 traffic (the S1 topology, nothing segmented) with bpf_stats on and an
 * empty program of the agent's attach type on every event it can hook.
 *
 * @param seconds the stretch the runs cover
 * @param gbps the S0 iperf3 throughput in it
 * @param programs every segscope program the agent lists, with its runs and run time over the stretch
 *     (0 runs: detached, a timing program outside windows)
 * @param events how often each event fired (the empty program's runs) and what the empty program cost
 */
public record HealthyResult(double seconds, double gbps, List<KernelResult.ProgramCost> programs,
    List<KernelResult.EventRate> events) {

  /** The segscope programs that ran at all. */
  public List<String> ran() {
    return programs.stream().filter(p -> p.runs() > 0).map(KernelResult.ProgramCost::event).distinct().sorted()
        .toList();
  }

  /** segscope's program ns/run ÷ the empty program's on {@code event} (NaN when either did not run). */
  public double ratioToEmpty(String event) {
    double mine = programs.stream().filter(p -> p.event().equals(event) && p.runs() > 0)
        .mapToDouble(KernelResult.ProgramCost::nsPerRun).findFirst().orElse(Double.NaN);
    double empty = events.stream().filter(e -> e.event().equals(event)).mapToDouble(KernelResult.EventRate::nsPerRun)
        .findFirst().orElse(Double.NaN);
    return mine / empty;
  }

  /**
   * segscope's program runs per skb handed to a driver (net_dev_start_xmit's firings: every skb the host
   * transmitted, on every device of the path).
   */
  public double runsPerTransmittedSkb() {
    long xmit =
        events.stream().filter(e -> e.event().equals("net_dev_start_xmit")).mapToLong(KernelResult.EventRate::runs)
            .sum();
    return xmit == 0 ? Double.NaN : programs.stream().mapToLong(KernelResult.ProgramCost::runs).sum() / (double) xmit;
  }
}

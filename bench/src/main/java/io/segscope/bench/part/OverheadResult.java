package io.segscope.bench.part;

import io.segscope.bench.common.Stats;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * Part 2: interleaved pairs of (agent running, agent stopped), the order alternating inside each pair:
 * a UDP_SEGMENT sender's CPU per segment, iperf3 S0 and S1; and every agent start's timings.
 *
 * @param iperfSeconds length of each iperf3 run
 * @param udpSeconds length of each UDP round
 * @param runs every iperf3 run
 * @param udp every UDP round
 * @param starts every agent start of the part
 * @param udpFrozen per pair, one more UDP round in the half with the agent, its JVM stopped (SIGSTOP) and its
 *     BPF programs attached: what the programs cost the sender without the agent's user-space work
 */
public record OverheadResult(double iperfSeconds, double udpSeconds, List<Run> runs, List<UdpRun> udp,
    List<Start> starts, List<PpsRun> smallUdp, UdpRun timingReference, List<UdpRun> udpFrozen) {
  public OverheadResult {
    smallUdp = smallUdp == null ? List.of() : List.copyOf(smallUdp);
    udpFrozen = udpFrozen == null ? List.of() : List.copyOf(udpFrozen);
  }

  /** Without the frozen-agent rounds (results of earlier runs). */
  public OverheadResult(double iperfSeconds, double udpSeconds, List<Run> runs, List<UdpRun> udp, List<Start> starts,
      List<PpsRun> smallUdp, UdpRun timingReference) {
    this(iperfSeconds, udpSeconds, runs, udp, starts, smallUdp, timingReference, List.of());
  }

  /** Without the 64-byte UDP runs and the timing reference (results of earlier runs). */
  public OverheadResult(double iperfSeconds, double udpSeconds, List<Run> runs, List<UdpRun> udp, List<Start> starts) {
    this(iperfSeconds, udpSeconds, runs, udp, starts, List.of(), null);
  }

  /** Without the timing reference. */
  public OverheadResult(double iperfSeconds, double udpSeconds, List<Run> runs, List<UdpRun> udp, List<Start> starts,
      List<PpsRun> smallUdp) {
    this(iperfSeconds, udpSeconds, runs, udp, starts, smallUdp, null);
  }

  /**
   * One iperf3 UDP run of 64-byte datagrams at full rate over S0 (nothing segments): the sender's packets per
   * second, the per-packet cost of a healthy host.
   */
  public record PpsRun(int pair, boolean agent, double pps) {}

  /** Per pair: 64-byte UDP packets per second with ÷ without the agent. */
  public Spread smallUdpRatio() {
    List<Double> out = new ArrayList<>();
    for (PpsRun w : smallUdp) {
      if (w.agent()) {
        smallUdp.stream().filter(wo -> !wo.agent() && wo.pair() == w.pair() && wo.pps() > 0)
            .forEach(wo -> out.add(w.pps() / wo.pps()));
      }
    }
    return Spread.of(out);
  }

  /** Median packets per second of the 64-byte UDP runs with ({@code agent}) or without the agent. */
  public double medianSmallUdpPps(boolean agent) {
    List<Double> v = smallUdp.stream().filter(r -> r.agent() == agent).map(PpsRun::pps).toList();
    return v.isEmpty() ? Double.NaN : Stats.median(v);
  }

  /** One iperf3 run: Gbit/s and iperf3's own CPU figures (percent). */
  public record Run(int pair, String scenario, boolean agent, double gbps, double senderCpu, double receiverCpu) {}

  /**
   * One UDP round: what the sender did and its own CPU time; with the agent, what the agent measured of
   * the sender's device over the round (software segmentation: super-packets, timed, their time).
   */
  public record UdpRun(int pair, boolean agent, long sends, long segments, long cpuNanos, long wallNanos,
      long agentSuperPackets, long agentTimed, double agentSegmentationNanos) {
    public double cpuNanosPerSegment() {
      return segments == 0 ? Double.NaN : (double) cpuNanos / segments;
    }
  }

  /**
   * One agent start.
   *
   * @param firstScrapeSeconds spawn to the first /metrics 200 with its programs attached
   * @param readySeconds spawn to the first /readyz 200
   * @param attachSeconds what the agent logged for planning, compiling and attaching ("probes attached in N
   *     ms"), -1 when absent
   */
  public record Start(double firstScrapeSeconds, double readySeconds, double attachSeconds) {}

  /** Median, min and max of a sample. */
  public record Spread(int n, double median, double min, double max) {
    public static Spread of(List<Double> v) {
      if (v.isEmpty()) {
        return new Spread(0, Double.NaN, Double.NaN, Double.NaN);
      }
      Stats.Summary s = Stats.summarize(v);
      return new Spread(v.size(), s.p50(), s.min(), s.max());
    }
  }

  /** Per pair: iperf3 throughput with ÷ without the agent, for {@code scenario}. */
  public Spread throughputRatio(String scenario) {
    return Spread.of(pairRatios(scenario, Run::gbps));
  }

  public Spread senderCpuRatio(String scenario) {
    return Spread.of(pairRatios(scenario, Run::senderCpu));
  }

  public Spread receiverCpuRatio(String scenario) {
    return Spread.of(pairRatios(scenario, Run::receiverCpu));
  }

  /** Median Gbit/s of the runs with ({@code agent}) or without the agent. */
  public double medianGbps(String scenario, boolean agent) {
    List<Double> v = runs.stream().filter(r -> r.scenario().equals(scenario) && r.agent() == agent)
        .map(Run::gbps).toList();
    return v.isEmpty() ? Double.NaN : Stats.median(v);
  }

  private List<Double> pairRatios(String scenario, ToDoubleFunction<Run> f) {
    List<Double> out = new ArrayList<>();
    for (Run w : runs) {
      if (w.scenario().equals(scenario) && w.agent()) {
        for (Run wo : runs) {
          if (wo.scenario().equals(scenario) && !wo.agent() && wo.pair() == w.pair()) {
            out.add(f.applyAsDouble(w) / f.applyAsDouble(wo));
          }
        }
      }
    }
    return out;
  }

  /** Per pair: the sender's CPU ns per segment with the agent minus without. */
  public Spread udpCostPerSegment() {
    List<Double> out = new ArrayList<>();
    for (UdpRun w : udp) {
      if (w.agent()) {
        for (UdpRun wo : udp) {
          if (!wo.agent() && wo.pair() == w.pair()) {
            out.add(w.cpuNanosPerSegment() - wo.cpuNanosPerSegment());
          }
        }
      }
    }
    return Spread.of(out);
  }

  /**
   * Per pair: the sender's CPU ns per segment with the agent's programs attached and its JVM stopped, minus
   * without the agent: the programs' share of {@link #udpCostPerSegment()}; empty without frozen rounds.
   */
  public Spread udpFrozenCostPerSegment() {
    List<Double> out = new ArrayList<>();
    for (UdpRun f : udpFrozen) {
      for (UdpRun wo : udp) {
        if (!wo.agent() && wo.pair() == f.pair()) {
          out.add(f.cpuNanosPerSegment() - wo.cpuNanosPerSegment());
        }
      }
    }
    return Spread.of(out);
  }

  /** The sender's CPU ns per segment with the agent's JVM stopped and its programs attached. */
  public Spread udpFrozenNanosPerSegment() {
    return Spread.of(udpFrozen.stream().map(UdpRun::cpuNanosPerSegment).toList());
  }

  /** The sender's CPU ns per segment, with or without the agent. */
  public Spread udpNanosPerSegment(boolean agent) {
    return Spread.of(udp.stream().filter(u -> u.agent() == agent).map(UdpRun::cpuNanosPerSegment).toList());
  }

  /** Segments per UDP super-packet (the sender's own count). */
  public double udpSegmentsPerSuperPacket() {
    long sends = udp.stream().mapToLong(UdpRun::sends).sum();
    return sends == 0 ? Double.NaN : (double) udp.stream().mapToLong(UdpRun::segments).sum() / sends;
  }

  /**
   * The agent's mean segmentation time of one UDP super-packet, per round with the agent; where the default
   * timing windows timed none of the pairs' rounds (a round is shorter than a window's cycle), the one round of
   * an agent with {@code --timing-window always} after the pairs ({@link #timingReference}).
   */
  public Spread udpSegmentationNanos() {
    List<Double> v = udp.stream().filter(u -> u.agent() && u.agentTimed() > 0)
        .map(u -> u.agentSegmentationNanos() / u.agentTimed()).toList();
    if (v.isEmpty() && timingReference != null && timingReference.agentTimed() > 0) {
      v = List.of(timingReference.agentSegmentationNanos() / timingReference.agentTimed());
    }
    return Spread.of(v);
  }

  /** Spawn to the first scrape with programs attached, over every start. */
  public Spread firstScrape() {
    return Spread.of(starts.stream().map(Start::firstScrapeSeconds).toList());
  }
}

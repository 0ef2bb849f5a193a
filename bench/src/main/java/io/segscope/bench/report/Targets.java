package io.segscope.bench.report;

import static io.segscope.bench.report.Fmt.count;
import static io.segscope.bench.report.Fmt.num;

import io.segscope.bench.common.RunInfo;
import io.segscope.bench.common.Stats;
import io.segscope.bench.part.AccuracyResult;
import io.segscope.bench.part.ContainerResult;
import io.segscope.bench.part.GuestCostResult;
import io.segscope.bench.part.GuestResult;
import io.segscope.bench.part.HealthyResult;
import io.segscope.bench.part.JmhResult;
import io.segscope.bench.part.KernelResult;
import io.segscope.bench.part.OverheadResult;
import io.segscope.bench.part.SampledResult;
import io.segscope.bench.part.ScaleResult;
import java.util.ArrayList;
import java.util.List;

/**
 * Every target of the benchmark, judged from one run's results, and for a miss the explanation, built
 * from that run's own figures. A part that did not run (or failed) leaves its figures "not measured",
 * with the reason.
 */
final class Targets {
  static final int DEVICES = 1000;
  static final int GUEST_CPUS = 128;

  private final RunInfo run;
  private final KernelResult kernel;
  private final AccuracyResult accuracy;
  private final SampledResult sampled;
  private final HealthyResult healthy;
  private final OverheadResult overhead;
  private final ScaleResult scale;
  private final GuestResult guest;
  private final GuestCostResult guestCost;
  private final JmhResult jmh;
  private final ContainerResult container;

  Targets(RunInfo run, KernelResult kernel, AccuracyResult accuracy, SampledResult sampled, HealthyResult healthy,
      OverheadResult overhead, ScaleResult scale, GuestResult guest, GuestCostResult guestCost, JmhResult jmh,
      ContainerResult container) {
    this.healthy = healthy;
    this.guestCost = guestCost;
    this.run = run;
    this.kernel = kernel;
    this.accuracy = accuracy;
    this.sampled = sampled;
    this.overhead = overhead;
    this.scale = scale;
    this.guest = guest;
    this.jmh = jmh;
    this.container = container;
  }

  List<Check> checks() {
    KernelTargets k = new KernelTargets(kernel, this::missing);
    GuestTargets g = new GuestTargets(guest, guestCost, this::missing);
    ScaleTargets sc = new ScaleTargets(run, scale, jmh, this::missing);
    ContainerTargets ct = new ContainerTargets(run, scale, container, this::missing);
    List<Check> out = new ArrayList<>();
    out.add(k.runTimeShare());
    out.add(endToEnd());
    out.add(iperf("S0", 0.98));
    out.add(iperf("S1", 0.97));
    out.add(smallUdp());
    out.add(k.runsPerSuperPacket());
    out.add(healthyPrograms());
    out.add(healthyEarlyExit());
    out.add(sc.metrics(true));
    out.add(sc.metrics(false));
    out.add(sc.rss());
    out.add(g.guestShare("fentry", 2));
    out.add(g.guestShare("kprobe", 5));
    out.add(g.guestRuns());
    out.add(g.guestHealthy());
    out.add(g.guestUdp("fentry"));
    out.add(g.guestUdp("kprobe"));
    out.add(g.guestMemory());
    out.add(start());
    out.add(oracle());
    out.add(sampledEstimate());
    out.add(sampledQuantiles());
    out.add(ct.containerMemory(false));
    out.add(ct.containerMemory(true));
    out.add(ct.containerCpu(false));
    out.add(ct.containerCpu(true));
    return out;
  }

  private String missing(String part) {
    String failure = run.failures().get(part);
    if (failure != null) {
      return "part " + part + " failed: " + failure;
    }
    return run.parts().contains(part) ? "part " + part + " wrote no result" : "part " + part + " was not run";
  }

  // ---- end to end -----------------------------------------------------------------------------

  private Check endToEnd() {
    String figure = "end-to-end agent cost per software-segmented 64 KiB super-packet ÷ its segmentation time"
        + " (UDP_SEGMENT sender)";
    if (overhead == null || overhead.udp().isEmpty()) {
      return Check.notMeasured(figure, "≤ 10 %", missing("overhead"));
    }
    OverheadResult.Spread d = overhead.udpCostPerSegment();
    double segs = overhead.udpSegmentsPerSuperPacket();
    OverheadResult.Spread g = overhead.udpSegmentationNanos();
    if (g.n() == 0) {
      return Check.notMeasured(figure, "≤ 10 %", "the agent timed no segmentation of the UDP sender's super-packets");
    }
    if (d.median() < 0) {
      // less CPU with the agent than without: a cost this small is below what this run can resolve
      return Check.notMeasured(figure, "≤ 10 %", "the median per-segment difference with − without the agent is "
          + num(d.median(), 1) + " ns (" + d.n() + " pairs, from " + num(d.min(), 1) + " to " + num(d.max(), 1)
          + " ns): with the agent the sender used less CPU, so this run's noise is larger than the agent's cost;"
          + " part 1 measures the programs' own run time directly");
    }
    double cost = d.median() * segs;
    double ratio = cost / g.median();
    return Check.atMost(figure, 100 * ratio, 10, Fmt.pct(ratio, 1), "≤ 10 %", () -> {
      OverheadResult.Spread without = overhead.udpNanosPerSegment(false);
      long negative = pairDeltas().stream().filter(x -> x < 0).count();
      StringBuilder b = new StringBuilder();
      b.append("the agent added ").append(num(d.median(), 1)).append(" ns per segment to the sender's CPU (median of ")
          .append(d.n()).append(" pairs, per-pair differences ").append(num(d.min(), 1)).append(" to ")
          .append(num(d.max(), 1)).append(" ns; without the agent ").append(num(without.median(), 1))
          .append(" ns per segment), × ").append(num(segs, 0)).append(" segments = ").append(num(cost, 0))
          .append(" ns per super-packet, against ").append(num(g.median(), 0))
          .append(" ns of segmentation the agent measured per super-packet on the sender's veth")
          .append(overhead.udp().stream().anyMatch(u -> u.agent() && u.agentTimed() > 0) ? "."
              : " (in one more round with --timing-window always: the pairs' agents, on the default sampling"
                  + " windows, timed none of their rounds).");
      OverheadResult.Spread frozen = overhead.udpFrozenCostPerSegment();
      if (frozen.n() > 0) {
        b.append(" With the agent's JVM stopped (SIGSTOP) and its programs attached, the sender paid ")
            .append(num(frozen.median(), 1)).append(" ns per segment more than with no agent (median of ")
            .append(frozen.n()).append(" pairs, ").append(num(frozen.min(), 1)).append(" to ")
            .append(num(frozen.max(), 1)).append(" ns): the programs' share; the rest, ")
            .append(num(d.median() - frozen.median(), 1)).append(" ns, came with the agent's user-space work.");
      }
      if (kernel != null && kernel.superPackets() > 0) {
        b.append(" For comparison, segscope's programs' own run time in part 1 (TCP, S1, bpf_stats on) is ")
            .append(num(kernel.totalRunTimeNanos() / (double) kernel.superPackets(), 0))
            .append(" ns per super-packet.");
      }
      if (negative > 0) {
        b.append(" ").append(negative).append(" of ").append(d.n())
            .append(" pairs measured less CPU with the agent than without: on this machine the noise is of the")
            .append(" order of the effect.");
      }
      return b.toString();
    });
  }

  private List<Double> pairDeltas() {
    List<Double> out = new ArrayList<>();
    for (OverheadResult.UdpRun w : overhead.udp()) {
      for (OverheadResult.UdpRun wo : overhead.udp()) {
        if (w.agent() && !wo.agent() && w.pair() == wo.pair()) {
          out.add(w.cpuNanosPerSegment() - wo.cpuNanosPerSegment());
        }
      }
    }
    return out;
  }

  private Check iperf(String scenario, double target) {
    String t = "≥ " + num(target, 2);
    if (overhead == null || overhead.throughputRatio(scenario).n() == 0) {
      return Check.notMeasured("iperf3 throughput with ÷ without the agent, " + scenario, t, missing("overhead"));
    }
    OverheadResult.Spread r = overhead.throughputRatio(scenario);
    String figure = "iperf3 throughput with ÷ without the agent, " + scenario + " (median of " + r.n()
        + " interleaved pairs)";
    return Check.atLeast(figure, r.median(), target, num(r.median(), 3), t, () -> {
      long lost = overhead.runs().stream().filter(x -> x.scenario().equals(scenario) && x.agent())
          .filter(w -> overhead.runs().stream().anyMatch(wo -> wo.scenario().equals(scenario) && !wo.agent()
              && wo.pair() == w.pair() && w.gbps() < wo.gbps()))
          .count();
      StringBuilder b = new StringBuilder();
      b.append(lost).append(" of ").append(r.n()).append(" pairs lost throughput with the agent (ratios ")
          .append(num(r.min(), 3)).append(" to ").append(num(r.max(), 3)).append("; ")
          .append(num(overhead.medianGbps(scenario, true), 2)).append(" against ")
          .append(num(overhead.medianGbps(scenario, false), 2)).append(" Gbit/s).");
      if (r.max() > 1) {
        b.append(" The range reaches above 1: on this machine the size of the effect is uncertain.");
      }
      OverheadResult.Spread d = overhead.udpCostPerSegment();
      OverheadResult.Spread w = overhead.udpNanosPerSegment(false);
      if (d.n() > 0 && w.median() > 0) {
        b.append(" The UDP sender of the same pairs puts the agent's cost at ")
            .append(Fmt.pct(d.median() / w.median(), 1))
            .append(" of the CPU per segment, i.e. a throughput ratio of about ").append(num(w.median()
                / (w.median() + d.median()), 3))
            .append(" where the sender's CPU is the limit.");
      }
      b.append(" Load average at the start of the run: ").append(num(run.loadBefore()[0], 2)).append(".");
      return b.toString();
    });
  }

  private Check smallUdp() {
    String t = "≥ 0.95";
    if (overhead == null || overhead.smallUdpRatio().n() == 0) {
      return Check.notMeasured("64-byte UDP packets/s with ÷ without the agent, S0 (healthy: nothing segments)", t,
          overhead == null ? missing("overhead") : "no 64-byte UDP pair in this run");
    }
    OverheadResult.Spread r = overhead.smallUdpRatio();
    String figure = "64-byte UDP packets/s with ÷ without the agent, S0 (healthy: nothing segments; median of "
        + r.n() + " interleaved pairs)";
    return Check.atLeast(figure, r.median(), 0.95, num(r.median(), 3), t, () -> "iperf3 -u -l 64 -b 0 over S0, the"
        + " sender's packets per second: ratios " + num(r.min(), 3) + " to " + num(r.max(), 3) + "; "
        + count(overhead.medianSmallUdpPps(true)) + " against " + count(overhead.medianSmallUdpPps(false))
        + " packets/s. On a healthy host only the counting programs run (tracepoint mode: consume_skb on every"
        + " freed skb, kfree_skb on drops); the timing programs' windows never open.");
  }

  private Check start() {
    String target = "≤ 5 s";
    if (overhead == null || overhead.starts().isEmpty()) {
      return Check.notMeasured("start to first scrape with probes attached", target, missing("overhead"));
    }
    OverheadResult.Spread s = overhead.firstScrape();
    return Check.atMost("start to first scrape with probes attached (median of " + s.n() + " starts)", s.median(), 5,
        num(s.median(), 2) + " s", target, () -> {
          List<Double> attach = overhead.starts().stream().map(OverheadResult.Start::attachSeconds)
              .filter(a -> a >= 0).toList();
          StringBuilder b = new StringBuilder();
          b.append("median ").append(num(s.median(), 2)).append(" s of ").append(s.n()).append(" starts (")
              .append(num(s.min(), 2)).append(" to ").append(num(s.max(), 2)).append(" s)");
          if (!attach.isEmpty()) {
            b.append("; the agent logs a median of ").append(num(Stats.median(attach), 2))
                .append(" s from planning to attached probes (compile in a child JVM included); the rest is the JVM's")
                .append(" start, class loading and the first map read");
          }
          return b.append(".").toString();
        });
  }

  private Check oracle() {
    String target = "≤ 0.1 %";
    if (accuracy == null) {
      return Check.notMeasured("counts vs the independent oracle (bpftrace)", target, missing("kernel"));
    }
    long devices = accuracy.devices().stream().filter(AccuracyResult.DeviceCount::counted).count();
    String figure = "counts vs the independent oracle (bpftrace), worst of 4 counts on " + devices
        + (devices == 1 ? " lab device" : " lab devices") + ", S1 and S2";
    double worst = accuracy.worstError();
    return Check.atMost(figure, 100 * worst, 0.1, Fmt.pct(worst, 3), target, () -> {
      List<String> off = new ArrayList<>();
      for (AccuracyResult.DeviceCount d : accuracy.devices()) {
        if (d.worstError() > 0.001) {
          off.add(d.scenario() + " " + d.device() + ": super-packets " + count(d.agentSkbs()) + " / "
              + count(d.oracleSkbs()) + ", segments " + count(d.agentSegments()) + " / " + count(d.oracleSegments())
              + ", bytes " + count(d.agentBytes()) + " / " + count(d.oracleBytes()) + ", offloaded "
              + count(d.agentOffloaded()) + " / " + count(d.oracleOffloaded()));
        }
      }
      return "agent / oracle where they differ: " + String.join("; ", off) + ".";
    });
  }

  // ---- a healthy host ---------------------------------------------------------------------------

  private static final java.util.Set<String> HEALTHY_ALLOWED = java.util.Set.of("consume_skb", "kfree_skb");

  private Check healthyPrograms() {
    String figure = "segscope programs that run on a healthy host (S0, default flags: no timing window opens)";
    String target = "consume_skb (and kfree_skb on drops) only";
    if (healthy == null) {
      return Check.notMeasured(figure, target, missing("kernel"));
    }
    List<String> ran = healthy.ran();
    boolean met = HEALTHY_ALLOWED.containsAll(ran);
    String measured = (ran.isEmpty() ? "none" : String.join(", ", ran)) + "; "
        + num(healthy.runsPerTransmittedSkb(), 2) + " runs per transmitted skb";
    return met ? new Check(figure, measured, target, Check.Verdict.MET, "")
        : new Check(figure, measured, target, Check.Verdict.MISSED, "programs outside consume_skb/kfree_skb ran: "
            + ran.stream().filter(e -> !HEALTHY_ALLOWED.contains(e)).toList()
            + " (a timing window opened: something on the host segmented in software while the agent ran)");
  }

  private Check healthyEarlyExit() {
    String figure = "consume_skb counting program ns/run ÷ empty tp_btf program's, healthy host (S0: every run an"
        + " early exit), same run";
    if (healthy == null) {
      return Check.notMeasured(figure, "≤ 1.3x", missing("kernel"));
    }
    double r = healthy.ratioToEmpty("consume_skb");
    return Check.atMost(figure, r, 1.3, num(r, 2) + "x", "≤ 1.3x", () -> {
      StringBuilder b = new StringBuilder();
      for (var p : healthy.programs()) {
        if (p.event().equals("consume_skb")) {
          b.append(p.program()).append(" ").append(num(p.nsPerRun(), 1)).append(" ns per run over ")
              .append(count(p.runs())).append(" runs");
        }
      }
      healthy.events().stream().filter(e -> e.event().equals("consume_skb")).findFirst().ifPresent(e -> b
          .append(", the empty program ").append(num(e.nsPerRun(), 1)).append(" ns over ").append(count(e.runs())));
      return b.append(": bpf_stats' own clock reads are in both; the difference is the call-site test.").toString();
    });
  }

  // ---- sampled timing -------------------------------------------------------------------------

  private String sampledFigure(String what) {
    return what + ", S1 over " + (sampled == null ? "60" : num(sampled.seconds(), 0))
        + " s, default timing windows, vs the bpftrace oracle timing every segmentation";
  }

  private Check sampledEstimate() {
    String figure = sampledFigure("estimated segmentation time (exact count × the windows' mean)");
    if (sampled == null) {
      return Check.notMeasured(figure, "within 5 %", missing("kernel"));
    }
    SampledResult r = sampled;
    double e = r.estimateError();
    return Check.atMost(figure, 100 * e, 5, Fmt.pct(e, 2), "within 5 %", () -> "the windows timed "
        + count(r.agentTimed()) + " of " + count(r.agentSkbs()) + " super-packets at a mean of "
        + num(r.agentTimedNanos() / r.agentTimed(), 0) + " ns; the oracle's mean over all "
        + count(r.oracleCount()) + " is " + num((double) r.oracleSumNanos() / r.oracleCount(), 0)
        + " ns, so the time in the windows was not typical of the rest (the agent states ± "
        + Fmt.pct(r.apiRelativeError(), 1) + " from the sample's spread alone); counts: agent "
        + count(r.agentSkbs()) + ", oracle " + count(r.oracleCount()) + ".");
  }

  private Check sampledQuantiles() {
    String figure = sampledFigure("p50 / p90 / p99 from the windows (worst)");
    if (sampled == null) {
      return Check.notMeasured(figure, "within 10 %", missing("kernel"));
    }
    SampledResult r = sampled;
    double e = r.worstQuantileError();
    return Check.atMost(figure, 100 * e, 10, Fmt.pct(e, 1), "within 10 %", () -> {
      StringBuilder b = new StringBuilder("agent / exact:");
      for (int i = 0; i < SampledResult.QUANTILES.length; i++) {
        b.append(i == 0 ? " " : ", ").append("p").append(num(SampledResult.QUANTILES[i] * 100, 0)).append(" ")
            .append(num(r.apiQuantilesNanos()[i], 0)).append(" / ")
            .append(num(r.exactQuantileNanos(SampledResult.QUANTILES[i]), 0)).append(" ns");
      }
      return b.append("; the windows timed ").append(count(r.agentTimed())).append(" of ")
          .append(count(r.agentSkbs())).append(" super-packets.").toString();
    });
  }
}

package io.segscope.bench.report;

import static io.segscope.bench.report.Fmt.count;
import static io.segscope.bench.report.Fmt.mib;
import static io.segscope.bench.report.Fmt.num;

import io.segscope.bench.agent.JvmMemory;
import io.segscope.bench.common.RunInfo;
import io.segscope.bench.common.Stats;
import io.segscope.bench.kernel.BpfFdinfo;
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
import java.util.Map;
import java.util.Optional;

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
    List<Check> out = new ArrayList<>();
    out.add(runTimeShare());
    out.add(endToEnd());
    out.add(iperf("S0", 0.98));
    out.add(iperf("S1", 0.97));
    out.add(smallUdp());
    out.add(runsPerSuperPacket());
    out.add(healthyPrograms());
    out.add(healthyEarlyExit());
    out.add(metrics(true));
    out.add(metrics(false));
    out.add(rss());
    out.add(guestShare("fentry", 2));
    out.add(guestShare("kprobe", 5));
    out.add(guestRuns());
    out.add(guestHealthy());
    out.add(guestUdp("fentry"));
    out.add(guestUdp("kprobe"));
    out.add(guestMemory());
    out.add(start());
    out.add(oracle());
    out.add(sampledEstimate());
    out.add(sampledQuantiles());
    out.add(containerMemory(false));
    out.add(containerMemory(true));
    out.add(containerCpu(false));
    out.add(containerCpu(true));
    return out;
  }

  private String missing(String part) {
    String failure = run.failures().get(part);
    if (failure != null) {
      return "part " + part + " failed: " + failure;
    }
    return run.parts().contains(part) ? "part " + part + " wrote no result" : "part " + part + " was not run";
  }

  // ---- in-kernel ------------------------------------------------------------------------------

  private static final String WINDOWS_APART = "consume_skb fired fewer times than the agent counted super-packets"
      + " (every software-segmented one is freed there): the counters and the run statistics did not cover the"
      + " same stretch, so no per-super-packet figure of this run is judged";

  /** In tracepoint mode every software-segmented super-packet is freed by consume_skb: fewer firings = bad window. */
  private boolean windowsApart() {
    double consume = kernel.firingsPerSuperPacket("consume_skb");
    return kernel.mode().equals("tracepoint") && !Double.isNaN(consume) && consume < 0.99;
  }

  private Check runTimeShare() {
    String figure = "segscope programs' run time ÷ segmentation time measured, S1 (" + modeText()
        + "; default timing windows: counting programs always, timing programs 1 s in every 10 s)";
    if (kernel == null || kernel.superPackets() == 0) {
      return Check.notMeasured(figure, "≤ 5 %", kernel == null ? missing("kernel")
          : "no super-packet was segmented in software in the window");
    }
    double avg = kernel.shareAtDuty(KernelResult.DEFAULT_DUTY);
    double share = 100 * avg;
    if (windowsApart()) {
      return new Check(figure, Fmt.pct(avg, 2), "≤ 5 %", Check.Verdict.NOT_MEASURED, WINDOWS_APART);
    }
    return Check.atMost(figure, share, 5, Fmt.pct(avg, 2), "≤ 5 %", () -> {
      String windows = "Outside the sampling windows (the counting programs alone) "
          + Fmt.pct(kernel.countingShareOfSegmentation(), 2) + "; inside a window (every program, as with"
          + " --timing-window always, which this window ran with) " + Fmt.pct(kernel.shareOfSegmentation(), 2)
          + "; the default windows' average " + Fmt.pct(avg, 2) + ". ";
      return windows + runTimeShareDetail();
    });
  }

  private String runTimeShareDetail() {
    {
      double n = kernel.superPackets();
      double perSp = kernel.totalRunTimeNanos() / n;
      double floor = floorPerSuperPacket();
      StringBuilder b = new StringBuilder();
      b.append("segscope's programs ran ").append(count(kernel.totalRuns())).append(" times for ")
          .append(num(kernel.totalRunTimeNanos() / 1e6, 1)).append(" ms in the ").append(num(kernel.windowSeconds(), 1))
          .append(" s window, while the kernel segmented ").append(count(n)).append(" super-packets in software in ")
          .append(num(kernel.segmentationNanos() / 1e6, 1)).append(" ms (").append(num(kernel.meanSegmentationNanos()
              / 1000, 2))
          .append(" µs each): ").append(num(kernel.runsPerSuperPacket(), 1))
          .append(" runs costing ").append(num(perSp, 0)).append(" ns per super-packet. Empty ")
          .append(kernel.attach()).append(" programs on the same events cost ").append(num(floor, 0))
          .append(" ns per super-packet here (").append(Fmt.pct(floor / kernel.meanSegmentationNanos(), 1))
          .append(" of the segmentation time): the floor of hooking events that fire this often, bpf_stats' own")
          .append(" accounting included. Above the empty programs:");
      for (KernelResult.ProgramCost p : kernel.programs()) {
        KernelResult.EventRate e = kernel.event(p.event());
        if (p.runs() == 0 || e == null) {
          continue;
        }
        b.append(" ").append(p.program()).append(" ").append(num(p.nsPerRun() - e.nsPerRun(), 0))
            .append(" ns per run × ").append(num(p.runs() / n, 2)).append(" runs = ")
            .append(num((p.nsPerRun() - e.nsPerRun()) * p.runs() / n, 0)).append(" ns per super-packet;");
      }
      b.setLength(b.length() - 1);
      b.append(".");
      onDemandXdp().ifPresent(p -> b.append(" ").append(p.program()).append(" ran ").append(count(p.runs()))
          .append(" times: it is attached only while a generic XDP program exists on the host, and one did in this")
          .append(" window; without it the rest cost ").append(Fmt.pct((kernel.totalRunTimeNanos() - p.runTimeNanos())
              / kernel.segmentationNanos(), 2))
          .append(" of the segmentation time."));
      return b.toString();
    }
  }

  /** The generic-XDP program, when it ran in the window (attached on demand). */
  private Optional<KernelResult.ProgramCost> onDemandXdp() {
    return kernel.programs().stream().filter(p -> p.event().equals("netif_receive_skb") && p.runs() > 0).findFirst();
  }

  /** ns per super-packet that empty programs on segscope's hooked events cost in the window. */
  private double floorPerSuperPacket() {
    double total = 0;
    for (KernelResult.ProgramCost p : kernel.programs()) {
      KernelResult.EventRate e = kernel.event(p.event());
      if (p.runs() > 0 && e != null && e.runs() > 0) {
        total += e.nsPerRun() * p.runs();
      }
    }
    return total / kernel.superPackets();
  }

  private String modeText() {
    return kernel == null ? "tracepoint mode" : kernel.mode() + " mode, " + kernel.attach();
  }

  private Check runsPerSuperPacket() {
    String figure = "segscope BPF program runs per software-segmented super-packet outside the timing windows, S1"
        + " (the counting programs' run_cnt ÷ super-packets)";
    if (kernel == null || kernel.superPackets() == 0) {
      return Check.notMeasured(figure, "≤ 5.5", kernel == null ? missing("kernel")
          : "no super-packet was segmented in software in the window");
    }
    double runs = kernel.countingRunsPerSuperPacket();
    if (windowsApart()) {
      return new Check(figure, num(runs, 1), "≤ 5.5", Check.Verdict.NOT_MEASURED, WINDOWS_APART);
    }
    return Check.atMost(figure, runs, 5.5, num(runs, 1), "≤ 5.5", () -> {
      StringBuilder b = new StringBuilder();
      b.append("Inside a timing window every program runs: ").append(num(kernel.runsPerSuperPacket(), 1))
          .append(" runs per super-packet. ");
      double floor = 0;
      List<String> parts = new ArrayList<>();
      for (KernelResult.ProgramCost p : kernel.programs()) {
        if (p.runs() == 0) {
          continue;
        }
        double fires = kernel.firingsPerSuperPacket(p.event());
        floor += fires;
        parts.add(p.event() + " fires " + num(fires, 2) + " times");
      }
      b.append("per super-packet segmented in software here, ").append(String.join(", ", parts))
          .append(" (empty programs' runs ÷ ").append(count(kernel.superPackets()))
          .append(" super-packets): hooking these events costs at least ").append(num(floor, 1))
          .append(" runs per super-packet, whatever the programs do.");
      double consume = kernel.firingsPerSuperPacket("consume_skb");
      if (!Double.isNaN(consume)) {
        b.append(" Of the consume_skb firings, 1 per super-packet is the segmentation itself; the other ")
            .append(num(consume - 1, 2)).append(" free other skbs and leave at the call-site check.");
      }
      double xmit = kernel.firingsPerSuperPacket("net_dev_start_xmit");
      double rx = kernel.firingsPerSuperPacket("netif_receive_skb");
      if (!Double.isNaN(xmit) && !Double.isNaN(rx)) {
        b.append(" For comparison, the per-segment events segscope does not hook fire ").append(num(xmit, 1))
            .append(" (net_dev_start_xmit) and ").append(num(rx, 1)).append(" (netif_receive_skb) times per")
            .append(" super-packet.");
      }
      onDemandXdp().ifPresent(p -> b.append(" ").append(p.program()).append(" ran ")
          .append(num(p.runs() / (double) kernel.superPackets(), 1)).append(" times per super-packet because a generic")
          .append(" XDP program existed on the host in this window; without it ")
          .append(num((kernel.totalRuns() - p.runs()) / (double) kernel.superPackets(), 1)).append(" runs."));
      b.append(" Fewer needs a hook on the segmentation itself rather than on events shared with other packets");
      b.append(kernel.mode().equals("tracepoint") ? " (this run is in tracepoint mode: kprobe/fentry mode hooks"
          + " __skb_gso_segment)." : ".");
      return b.toString();
    });
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

  // ---- scale ----------------------------------------------------------------------------------

  private String atDevices(ScaleResult.Level top) {
    return top.fleetDevices() == DEVICES ? "at 1,000 devices" : "at " + count(top.fleetDevices())
        + " devices (this run's largest; the target is at 1,000)";
  }

  private Check metrics(boolean p50) {
    String target = p50 ? "≤ 5 ms" : "≤ 20 ms";
    String q = p50 ? "p50" : "p99";
    ScaleResult.Level top = scale == null ? null : scale.top();
    if (top == null) {
      return Check.notMeasured("/metrics " + q + " at 1,000 devices (gzip, as Prometheus asks)", target,
          missing("scale"));
    }
    String figure = "/metrics " + q + " " + atDevices(top) + " (gzip, as Prometheus asks)";
    double v = p50 ? top.metricsGzip().ms().p50() : top.metricsGzip().ms().p99();
    return verdictAt(top, Check.atMost(figure, v, p50 ? 5 : 20, num(v, 1) + " ms", target, () -> {
      ScaleResult.Level low = scale.levels().get(0);
      double lowV = p50 ? low.metricsGzip().ms().p50() : low.metricsGzip().ms().p99();
      StringBuilder b = new StringBuilder();
      b.append("at ").append(count(top.fleetDevices())).append(" devices the gzip body is ")
          .append(Fmt.kib(top.metricsGzip().bytes())).append(" (").append(count(top.series()))
          .append(" series), ").append(q).append(" ").append(num(v, 1)).append(" ms; uncompressed ")
          .append(Fmt.kib(top.metricsPlain().bytes())).append(", ").append(q).append(" ")
          .append(num(p50 ? top.metricsPlain().ms().p50() : top.metricsPlain().ms().p99(), 1)).append(" ms. At ")
          .append(count(low.fleetDevices())).append(" devices the gzip ").append(q).append(" is ")
          .append(num(lowV, 1)).append(" ms");
      double perDevice = 1000 * (v - lowV) / Math.max(1, top.fleetDevices() - low.fleetDevices());
      if (perDevice > 0) {
        b.append(", so it grows ").append(num(perDevice, 1)).append(" µs per device.");
      } else {
        b.append(", no less than at ").append(count(top.fleetDevices()))
            .append(": the devices do not explain it here, the machine's noise does.");
      }
      JmhResult.Score s = jmhScore("scrapeGzip", DEVICES);
      if (s != null) {
        b.append(" Serving the cached bytes of one gzip scrape for 1,000 devices takes ")
            .append(num(s.score(), 0)).append(" ").append(s.unit()).append(" in the JVM (JMH, below): the rest is")
            .append(" the HTTP server, the loopback transfer and the client.");
      }
      b.append(" Load average at the start of the run: ").append(num(run.loadBefore()[0], 2))
          .append(" (").append(q.equals("p99") ? "a p99 of " + top.metricsGzip().ms().n()
              + " requests is their slowest few" : "other processes share the 2 cores")
          .append(").");
      return b.toString();
    }));
  }

  /** A check measured below 1,000 devices is reported, never judged. */
  private static Check verdictAt(ScaleResult.Level top, Check c) {
    if (top.fleetDevices() == DEVICES || c.verdict() == Check.Verdict.NOT_MEASURED) {
      return c;
    }
    return new Check(c.figure(), c.measured(), c.target(), Check.Verdict.NOT_MEASURED,
        "measured at " + count(top.fleetDevices()) + " devices only (a --quick run)");
  }

  private JmhResult.Score jmhScore(String benchmark, int devices) {
    if (jmh == null) {
      return null;
    }
    return jmh.scores().stream().filter(s -> s.benchmark().equals(benchmark) && s.devices() == devices).findFirst()
        .orElse(null);
  }

  private Check rss() {
    ScaleResult.Level top = scale == null ? null : scale.top();
    if (top == null) {
      return Check.notMeasured("agent RSS at 1,000 devices", "≤ 160 MiB", missing("scale"));
    }
    double r = top.rssBytes() / 1048576.0;
    return verdictAt(top, Check.atMost("agent RSS " + atDevices(top) + " (VmRSS after the requests; launcher flags "
        + scale.javaOptions() + ")", r, 160, mib(top.rssBytes()), "≤ 160 MiB", () -> {
          StringBuilder b = new StringBuilder();
          b.append("RSS ").append(mib(top.rssBytes())).append(" (peak ").append(mib(top.peakRssBytes()))
              .append(", ").append(mib(top.loadRssBytes())).append(" under S1 load).");
          JvmMemory j = scale.jvm();
          if (j != null) {
            b.append(" ").append(JvmText.breakdown(j)).append(" ").append(JvmText.floor(j, 160L << 20));
          }
          return b.toString();
        }));
  }

  // ---- container ------------------------------------------------------------------------------

  private String containerDevices() {
    return container.fleetDevices() == DEVICES ? "at 1,000 devices" : "at " + count(container.fleetDevices())
        + " devices";
  }

  /** Memory of the container as deployed against the manifest's memory limit: the cgroup's charge, or VmRSS. */
  private Check containerMemory(boolean rss) {
    String what = rss ? "agent RSS in the container as deployed (VmRSS)"
        : "container memory as deployed (its memory cgroup's charge, which the limit is held against)";
    if (container == null) {
      return Check.notMeasured(what + " at 1,000 devices", "≤ the manifest's memory limit", missing("container"));
    }
    long v = rss ? container.rssBytes() : container.cgroupMemoryBytes();
    String target = "≤ " + mib(container.memoryLimitBytes()) + " (the manifest's limit)";
    return Check.atMost(what + " " + containerDevices(), v, container.memoryLimitBytes(), mib(v), target,
        () -> "the container's memory cgroup held " + mib(container.cgroupMemoryBytes()) + " (peak "
            + mib(container.peakCgroupMemoryBytes()) + ", working set " + mib(container.workingSetBytes())
            + "), the agent's VmRSS " + mib(container.rssBytes()) + " (peak " + mib(container.peakRssBytes())
            + "): above the limit the kernel OOM-kills the container.");
  }

  /** CPU of the container as deployed against the manifest's CPU request: idle, or scraped at the ServiceMonitor's interval. */
  private Check containerCpu(boolean scraped) {
    String what = scraped ? "container CPU as deployed while Prometheus scrapes /metrics"
        : "container CPU as deployed, idle (no scrape; the kubelet's probes only)";
    if (container == null) {
      return Check.notMeasured(what + " at 1,000 devices", "≤ the manifest's CPU request", missing("container"));
    }
    double v = scraped ? container.scrapedCores() : container.idleCores();
    String figure = what + " " + containerDevices() + " (cgroup CPU time over " + num(scraped
        ? container.scrapedSeconds() : container.idleSeconds(), 0) + " s"
        + (scraped ? ", a scrape every "
            + num(container.scrapeIntervalSeconds(), 0) + " s" : "")
        + ")";
    String target = "≤ " + num(container.cpuRequestCores(), 3) + " cores (the manifest's request)";
    return Check.atMost(figure, v, container.cpuRequestCores(), num(v, 3) + " cores", target, () -> {
      StringBuilder b = new StringBuilder();
      b.append("idle ").append(num(container.idleCores(), 3)).append(" cores, scraped ")
          .append(num(container.scrapedCores(), 3)).append(" cores (").append(container.scrapes())
          .append(" scrapes, p50 ").append(num(container.scrapeMs().p50(), 1)).append(" ms, ")
          .append(Fmt.kib(container.scrapeBytes())).append(" gzip each), against the ")
          .append(num(container.cpuRequestCores(), 3)).append(" requested. Idle is the agent's own work: a map read")
          .append(" every interval, the inventory, the kubelet's probes; the scale part's idle figure (outside a")
          .append(" container, same devices) is ");
      ScaleResult.Level top = scale == null ? null : scale.top();
      b.append(top == null ? "not in this run" : num(top.idleCores(), 3) + " cores").append(". The request is")
          .append(" what the scheduler reserves, not a cap (the limit, ").append(num(container.cpuLimitCores(), 3))
          .append(" cores, is): above it the container only competes for spare CPU. Load average at the start")
          .append(" of the run: ").append(num(run.loadBefore()[0], 2)).append('.');
      return b.toString();
    });
  }

  // ---- kprobe and fentry mode in the guest (emulated) -------------------------------------------

  private static final String EMULATED = "Debian 6.1 guest, qemu TCG, one vCPU: emulated";

  /** The mode's figures, or why there are none. */
  private Optional<GuestCostResult.ModeCost> guestMode(String mode) {
    if (guestCost == null || !guestCost.failure().isEmpty() && guestCost.modes().isEmpty()) {
      return Optional.empty();
    }
    return guestCost.modes().stream().filter(m -> m.mode().equals(mode)).findFirst();
  }

  private String guestMissing() {
    if (guestCost == null) {
      return missing("guest");
    }
    return guestCost.failure().isEmpty() ? "the guest's cost boot measured no such mode"
        : "the guest's cost boot failed: " + guestCost.failure();
  }

  private Check guestShare(String mode, double limit) {
    String figure = mode + " mode (" + EMULATED + "), S1: programs' run time ÷ segmentation time (default timing"
        + " windows: counting program always, timing programs 1 s in every 10 s)";
    String target = "≤ " + num(limit, 0) + " %";
    Optional<GuestCostResult.ModeCost> m = guestMode(mode);
    if (m.isEmpty() || guestCost.segmentation() == null || m.get().outside() == null || m.get().inside() == null) {
      return Check.notMeasured(figure, target, guestMissing());
    }
    GuestCostResult.ModeCost c = m.get();
    GuestCostResult.SegmentationTime t = guestCost.segmentation();
    double avg = c.averageShare(t);
    Check k = Check.atMost(figure, 100 * avg, limit, Fmt.pct(avg, 2) + " (outside the windows "
        + Fmt.pct(c.outside().shareOf(t), 2) + ", inside one " + Fmt.pct(c.inside().shareOf(t), 2) + ")", target,
        () -> guestShareDetail(c, t));
    if (c.outside().windowTouched()) {
      return new Check(k.figure(), k.measured(), k.target(), Check.Verdict.NOT_MEASURED, "a sampling window opened"
          + " during the outside stretch (a timing program ran in each of its tries): the counting programs were not"
          + " measured alone. "
          + guestShareDetail(c, t));
    }
    return k;
  }

  static String guestShareDetail(GuestCostResult.ModeCost c, GuestCostResult.SegmentationTime t) {
    StringBuilder b = new StringBuilder();
    b.append("All emulated. The mean __skb_gso_segment took ").append(num(t.meanNanos() / 1000, 1))
        .append(" µs (as the agent timed it in ").append(t.mode()).append(" mode with --timing-window always, ")
        .append(count(t.calls())).append(" calls in ").append(num(t.seconds(), 1)).append(" s of S1). ");
    for (var e : new Object[][] {{"Outside the windows", c.outside()}, {"With every program attached (a window)",
        c.inside()}}) {
      GuestCostResult.Stretch s = (GuestCostResult.Stretch) e[1];
      b.append(e[0]).append(": ").append(count(s.segmented())).append(" super-packets segmented, ")
          .append(count(s.runs())).append(" program runs (").append(num(s.runsPerSuperPacket(), 2))
          .append(" per super-packet) for ").append(num(s.runTimeNanos() / 1e6, 1)).append(" ms, ")
          .append(count(s.unwound())).append(" call sites from the unwinder");
      List<String> per = new ArrayList<>();
      for (GuestCostResult.ProgramCost p : s.programs()) {
        per.add(p.program() + " " + count(p.runs()) + " × " + num(p.runs() > 0 ? (double) p.runTimeNanos() / p.runs()
            : Double.NaN, 0) + " ns");
      }
      b.append(per.isEmpty() ? "" : " (" + String.join(", ", per) + ")").append(": ")
          .append(Fmt.pct(s.shareOf(t), 2));
      GuestCostResult.SegmentationTime y = s.yardstick(t);
      if (y != t && y != null) {
        b.append(" of ").append(num(y.meanNanos() / 1000, 1)).append(" µs per segmentation as this agent timed it")
            .append(" next to it (").append(count(y.calls())).append(" calls; the emulated vCPU's speed moves with")
            .append(" the host's load)");
      }
      b.append(". ");
    }
    b.append("The default windows' average: ").append(num(100 * (1 - c.windowShare()), 0))
        .append(" % of the time outside, ")
        .append(num(100 * c.windowShare(), 0)).append(" % inside.");
    return b.toString();
  }

  private Check guestRuns() {
    String figure = "fentry mode (" + EMULATED + "): program runs per software-segmented super-packet outside the"
        + " timing windows, S1";
    Optional<GuestCostResult.ModeCost> m = guestMode("fentry");
    if (m.isEmpty() || m.get().outside() == null || m.get().outside().segmented() == 0) {
      return Check.notMeasured(figure, "≤ 1.2", m.isEmpty() ? guestMissing() : "nothing was segmented in the stretch");
    }
    GuestCostResult.Stretch s = m.get().outside();
    Optional<GuestCostResult.ModeCost> k = guestMode("kprobe");
    String kprobe = k.isPresent() && k.get().outside() != null ? "; kprobe mode " + num(k.get().outside()
        .runsPerSuperPacket(), 2) : "";
    Check c = Check.atMost(figure, s.runsPerSuperPacket(), 1.2, num(s.runsPerSuperPacket(), 2) + kprobe, "≤ 1.2",
        () -> count(s.runs()) + " runs for " + count(s.segmented()) + " super-packets: " + s.programs());
    if (s.windowTouched()) {
      return new Check(c.figure(), c.measured(), c.target(), Check.Verdict.NOT_MEASURED, "a sampling window opened"
          + " during the outside stretch (a timing program ran in each of its tries): the runs include the window's. "
          + count(s.runs()) + " runs for " + count(s.segmented()) + " super-packets: " + s.programs());
    }
    return c;
  }

  private Check guestHealthy() {
    String figure = "programs run on a healthy host outside windows, fentry / kprobe mode (" + EMULATED
        + "; 10 s of S0 TCP, kfree_skb excepted: it fires on drops only)";
    Optional<GuestCostResult.ModeCost> f = guestMode("fentry");
    Optional<GuestCostResult.ModeCost> k = guestMode("kprobe");
    if (f.isEmpty() || k.isEmpty()) {
      return Check.notMeasured(figure, "none / none", guestMissing());
    }
    long fr = beyondDrops(f.get().healthyRuns());
    long kr = beyondDrops(k.get().healthyRuns());
    String measured = runsText(f.get().healthyRuns()) + " / " + runsText(k.get().healthyRuns());
    return Check.atMost(figure, fr + kr, 0, measured, "none / none", () -> "programs that ran: fentry "
        + f.get().healthyRuns() + ", kprobe " + k.get().healthyRuns());
  }

  /** Runs of every program but kfree_skb's (kernel names keep 15 characters: {@code tp_btf__kfree_s}). */
  static long beyondDrops(java.util.Map<String, Long> runs) {
    return runs.entrySet().stream().filter(e -> !e.getKey().contains("kfree_s"))
        .mapToLong(java.util.Map.Entry::getValue)
        .sum();
  }

  private static String runsText(java.util.Map<String, Long> runs) {
    if (runs.isEmpty()) {
      return "none";
    }
    List<String> out = new ArrayList<>();
    runs.forEach((p, n) -> out.add(p + " " + count(n)));
    return String.join(", ", out);
  }

  private Check guestUdp(String mode) {
    String figure = "64-byte UDP packets/s, agent running ÷ stopped, healthy S0, " + mode + " mode (" + EMULATED + ")";
    Optional<GuestCostResult.ModeCost> m = guestMode(mode);
    if (m.isEmpty() || m.get().pairs().isEmpty()) {
      return Check.notMeasured(figure, "≥ 0.99", guestMissing());
    }
    GuestCostResult.ModeCost c = m.get();
    List<Double> r = c.pairs().stream().map(GuestCostResult.PpsPair::ratio).sorted().toList();
    String f = figure + "; median of " + r.size() + " interleaved pairs";
    return Check.atLeast(f, c.ppsRatio(), 0.99, num(c.ppsRatio(), 3), "≥ 0.99", () -> guestUdpDetail(c));
  }

  static String guestUdpDetail(GuestCostResult.ModeCost c) {
    List<Double> r = c.pairs().stream().map(GuestCostResult.PpsPair::ratio).sorted().toList();
    List<Double> with = c.pairs().stream().map(GuestCostResult.PpsPair::withPps).toList();
    List<Double> without = c.pairs().stream().map(GuestCostResult.PpsPair::withoutPps).toList();
    return "iperf3 -u -l 64 -b 0 over S0 (emulated), the sender's packets per second: ratios " + num(r.get(0), 3)
        + " to " + num(r.get(r.size() - 1), 3) + "; medians " + count(Stats.median(with)) + " running against "
        + count(Stats.median(without)) + " stopped. The agent is stopped with SIGSTOP, not exited (a start takes "
        + num(c.startSeconds(), 0) + " s under emulation): its programs stay attached in both halves and ran "
        + runsText(c.pairRuns()) + " over all the rounds, so the ratio is the agent's user-space work on a healthy"
        + " host.";
  }

  private Check guestMemory() {
    String figure = "kernel BPF map memory at 1,000 devices with 128 possible CPUs (Debian 6.1 guest: Percpu + Slab"
        + " growth)";
    if (guest == null) {
      return Check.notMeasured(figure, "≤ 64 MiB", missing("guest"));
    }
    if (!guest.failure().isEmpty()) {
      return Check.notMeasured(figure, "≤ 64 MiB", "the guest run failed: " + guest.failure());
    }
    String f = "kernel BPF map memory at " + count(guest.fleetDevicesCounted()) + " devices with "
        + guest.possibleCpus() + " possible CPUs (Debian " + guest.kernel() + " guest, -smp " + guest.smp()
        + ": Percpu + Slab growth)";
    double grown = guest.grownBytes() / 1048576.0;
    Check c = Check.atMost(f, grown, 64, mib(guest.grownBytes()), "≤ 64 MiB", () -> "the kernel's memlock of the"
        + " agent's maps there is " + mib(guest.memlockBytes()) + " (before 6.4 the maximum a map may hold, not"
        + " its use). " + MapText.perMap(guest.maps(), guest.possibleCpus(), guest.fleetDevicesCounted()));
    if (guest.fleetDevices() != DEVICES || guest.possibleCpus() != GUEST_CPUS) {
      return new Check(c.figure(), c.measured(), c.target(), Check.Verdict.NOT_MEASURED, "measured at "
          + count(guest.fleetDevices()) + " devices and " + guest.possibleCpus() + " possible CPUs, not 1,000 and 128");
    }
    return c;
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

  /** Map type names of the uapi enum bpf_map_type, for the report. */
  static String mapType(int type) {
    return switch (type) {
      case 1 -> "hash";
      case 2 -> "array";
      case 5 -> "per-CPU hash";
      case 6 -> "per-CPU array";
      case 9 -> "LRU hash";
      case 10 -> "LRU per-CPU hash";
      default -> "type " + type;
    };
  }

  static boolean perCpu(int type) {
    return type == 5 || type == 6 || type == 10;
  }

  /** Texts about maps. */
  static final class MapText {
    private MapText() {}

    /** What each map costs per entry at {@code cpus} possible CPUs, and the total for {@code devices} entries. */
    static String perMap(List<BpfFdinfo.BpfMap> maps, int cpus, int devices) {
      StringBuilder b = new StringBuilder("Per entry at ").append(cpus).append(" possible CPUs:");
      for (BpfFdinfo.BpfMap m : maps) {
        if (m.maxEntries() < 2) {
          continue;
        }
        long value = (m.valueSize() + 7L) / 8 * 8;
        long perEntry = perCpu(m.type()) ? value * cpus : value;
        b.append(" ").append(mapType(m.type())).append(" with ").append(m.valueSize()).append(" B values and ")
            .append(count(m.maxEntries())).append(" entries at most ").append((m.flags() & 1) != 0
                ? "(no preallocation)" : "(preallocated)")
            .append(": ").append(Fmt.kib(perEntry))
            .append(" per entry, ").append(mib((double) perEntry * devices)).append(" if all ")
            .append(count(devices)).append(" devices have one;");
      }
      b.setLength(b.length() - 1);
      return b.append(".").toString();
    }
  }

  /** Texts about a JVM's memory. */
  static final class JvmText {
    private JvmText() {}

    /**
     * What the heap's size can and cannot explain: everything but the committed heap, plus the live heap,
     * is the least RSS any heap setting leaves (the committed heap counted as resident).
     */
    static String floor(JvmMemory j, long targetBytes) {
      long rest = Math.max(0, j.rssBytes() - j.heapCommittedBytes());
      long least = rest + j.heapLiveBytes();
      String s = "Everything but the Java heap takes " + mib(rest) + " of that start's RSS; with the heap no larger"
          + " than what is live, its RSS would be about " + mib(least);
      if (least > targetBytes) {
        return s + ", still above " + mib(targetBytes) + ": no heap setting meets the target, the live heap and the"
            + " JVM's own memory must shrink.";
      }
      return s + ", within " + mib(targetBytes) + ": the heap's sizing is what misses the target.";
    }

    static String breakdown(JvmMemory j) {
      Map<String, Long> c = j.nmtCommittedBytes();
      long heap = c.getOrDefault("Java Heap", 0L);
      long classes = c.getOrDefault("Class", 0L) + c.getOrDefault("Metaspace", 0L);
      long code = c.getOrDefault("Code", 0L);
      long cds = c.getOrDefault("Shared class space", 0L);
      long threads = c.getOrDefault("Thread", 0L);
      long gc = c.getOrDefault("GC", 0L);
      long rest = j.nmtTotalBytes() - heap - classes - code - cds - threads - gc;
      long outside = j.rssBytes() - j.nmtTotalBytes();
      StringBuilder b = new StringBuilder();
      b.append("A second start with Native Memory Tracking (RSS ").append(mib(j.rssBytes())).append("): Java heap ")
          .append(mib(heap)).append(" committed, of which ").append(mib(j.heapLiveBytes()))
          .append(" live after a full collection (").append(mib(j.heapUsedBytes())).append(" used before it);")
          .append(" classes and metaspace ").append(mib(classes)).append("; JIT code ").append(mib(code))
          .append("; shared class archive ").append(mib(cds)).append("; thread stacks ").append(mib(threads))
          .append(" (").append(j.threads()).append(" threads); GC ").append(mib(gc)).append("; other JVM ")
          .append(mib(rest)).append("; outside NMT (library code, native allocations of libraries) ")
          .append(mib(outside)).append(". The largest live classes: ").append(String.join(", ", j.topClasses()))
          .append(".");
      if (heap > 0 && heap - j.heapLiveBytes() > (long) (0.5 * heap)) {
        b.append(" The heap holds ").append(mib(heap - j.heapLiveBytes()))
            .append(" more than is live: the collector grew it for the start's garbage and keeps it.");
      }
      return b.toString();
    }
  }
}

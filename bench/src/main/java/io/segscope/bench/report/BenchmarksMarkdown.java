package io.segscope.bench.report;

import io.segscope.bench.Results;
import io.segscope.bench.RunInfo;
import io.segscope.bench.part.AccuracyResult;
import io.segscope.bench.part.CostResult;
import io.segscope.bench.part.JmhResult;
import io.segscope.bench.part.OverheadResult;
import io.segscope.bench.part.ScaleResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Renders BENCHMARKS.md from one run's raw results: the machine, every figure next to its target, a table
 * per part, and for every missed target by how much and what would close it ({@link Misses}).
 */
public final class BenchmarksMarkdown {
  static final String PART1 = "1. In-kernel cost";
  static final String PART2 = "2. End-to-end overhead";
  static final String PART3 = "3. Accuracy";
  static final String PART4 = "4. Scale";

  private final RunInfo run;
  private final CostResult cost;
  private final AccuracyResult accuracy;
  private final OverheadResult overhead;
  private final ScaleResult scale;
  private final JmhResult jmh;
  private final StringBuilder md = new StringBuilder();

  BenchmarksMarkdown(RunInfo run, CostResult cost, AccuracyResult accuracy, OverheadResult overhead,
      ScaleResult scale, JmhResult jmh) {
    this.run = run;
    this.cost = cost;
    this.accuracy = accuracy;
    this.overhead = overhead;
    this.scale = scale;
    this.jmh = jmh;
  }

  /** Reads the run's results from {@code results} and writes the report to {@code file}. */
  public static void write(Results results, Path file) {
    RunInfo run = results.read("run", RunInfo.class);
    if (run == null) {
      throw new IllegalStateException("render " + file + ": " + results.dir() + " has no run.json");
    }
    String text = new BenchmarksMarkdown(run, results.read("cost", CostResult.class),
        results.read("accuracy", AccuracyResult.class), results.read("overhead", OverheadResult.class),
        results.read("scale", ScaleResult.class), results.read("jmh", JmhResult.class)).render();
    try {
      Files.writeString(file, text);
    } catch (IOException e) {
      throw new IllegalStateException("write " + file + ": " + e.getMessage(), e);
    }
  }

  String render() {
    List<Check> checks = checks();
    header();
    summary(checks);
    costSection();
    overheadSection();
    accuracySection();
    scaleSection();
    jmhSection();
    missesSection(checks);
    md.append("## How to reproduce\n\n`sudo scripts/bench` (this run: ").append(Fmt.num(run.seconds() / 60, 1))
        .append(" min plus the build; see README, \"Benchmarks\"). ")
        .append("Raw results of this run: `").append(run.resultsDir()).append("/` (not committed).\n");
    return md.toString();
  }

  List<Check> checks() {
    List<Check> out = new ArrayList<>();
    if (cost != null) {
      for (CostResult.ProgramCost p : cost.programs()) {
        if (p.segscopeRuns() == 0) {
          continue; // not exercised by this traffic (shown in the part's table)
        }
        out.add(Check.atMost("cost.ns." + p.tracepoint(), PART1, "ns/event, " + p.tracepoint(),
            p.segscopeNsPerEvent(), 100, false, "ns", 0));
      }
      double worst = cost.programs().stream().filter(p -> p.segscopeRuns() > 0)
          .mapToDouble(CostResult.ProgramCost::segscopeNsPerEvent).max().orElse(0);
      out.add(Check.atMost("cost.share.event", PART1, "costliest program's ns/event ÷ mean segmentation time",
          100 * worst / cost.meanSegmentationNanos(), 1, true, "%", 2));
      out.add(Check.atMost("cost.share.total", PART1,
          "all segscope programs' run time ÷ all segmentation time measured, in the S1 window",
          100 * cost.totalShareOfSegmentation(), 1, true, "%", 2));
    }
    if (overhead != null) {
      for (OverheadResult.Summary s : overhead.scenarios()) {
        out.add(Check.atLeast("overhead." + s.scenario(), PART2, "iperf3 throughput with ÷ without agent, "
            + s.scenario() + " (median of " + s.pairs() + " pairs)", s.throughputRatio().median(), 0.99, 3));
      }
    }
    if (accuracy != null) {
      for (AccuracyResult.DeviceAccuracy d : accuracy.devices()) {
        if (d.oracleSkbs() + d.agentSkbs() + d.oracleOffloaded() + d.agentOffloaded() == 0) {
          continue;
        }
        out.add(Check.atMost("accuracy." + d.scenario() + "." + d.device(), PART3,
            "worst relative error of 4 counts, " + d.scenario() + " " + d.device(), 100 * d.worstError(), 1, false,
            "%", 3));
      }
    }
    if (scale != null && !scale.levels().isEmpty()) {
      ScaleResult.Level top = scale.levels().get(scale.levels().size() - 1);
      out.add(Check.atMost("scale.metrics.p50", PART4, "/metrics p50 at " + top.fleetDevices() + " fleet devices",
          top.metrics().ms().p50(), 20, true, "ms", 1));
      out.add(Check.atMost("scale.metrics.p99", PART4, "/metrics p99 at " + top.fleetDevices() + " fleet devices",
          top.metrics().ms().p99(), 20, true, "ms", 1));
      double rss = scale.levels().stream().mapToDouble(l -> Math.max(l.idleRssBytes(), l.loadRssBytes())).max()
          .orElse(0) / (1024.0 * 1024.0);
      out.add(Check.atMost("scale.rss", PART4, "agent RSS, largest seen (idle or under load, any level)", rss, 256,
          true, "MiB", 1));
      double first = scale.levels().stream().mapToDouble(ScaleResult.Level::firstScrapeSeconds).max().orElse(0);
      out.add(Check.atMost("scale.first", PART4, "start to first successful scrape, slowest level", first, 5, false,
          "s", 2));
    }
    return out;
  }

  private void header() {
    var m = run.machine();
    md.append("# segscope benchmarks\n\n");
    md.append("Generated by `scripts/bench` from one run; every figure is measured on this machine in this run")
        .append(" (ratios side by side, never against numbers from elsewhere).")
        .append(run.quick() ? " **Quick mode: development settings, not representative.**" : "").append("\n\n");
    md.append("| | |\n| --- | --- |\n");
    row("date (UTC)", run.startedAt());
    row("machine", m.cpus() + " CPUs (" + m.cpuModel() + "), " + Fmt.num(m.memoryBytes() / 1073741824.0, 1)
        + " GiB memory; shared with other engineers' tests during the run");
    row("load average (1/5/15 min)", load(run.loadBefore()) + " at start, " + load(run.loadAfter()) + " at end");
    row("kernel", m.kernel());
    row("probe mode", cost != null && !cost.probeModes().isEmpty()
        ? cost.probeModes() + " (the mode label of the agent's segscope_probe_attached series)"
        : run.probeMode() + " (the only mode the agent has on this kernel)");
    row("JVM", m.java());
    row("suite duration", Fmt.num(run.seconds() / 60, 1) + " min");
    if (cost != null) {
      row("other programs on the same tracepoints",
          cost.foreignPrograms().isEmpty() ? "none" : String.join("; ", cost.foreignPrograms()));
    }
    if (!run.failures().isEmpty()) {
      run.failures().forEach((p, e) -> row("**part " + p + " FAILED**", e.replace("|", "\\|").replace("\n", " ")));
    }
    md.append('\n');
  }

  private static String load(double[] l) {
    return Fmt.num(l[0], 2) + " / " + Fmt.num(l[1], 2) + " / " + Fmt.num(l[2], 2);
  }

  private void summary(List<Check> checks) {
    md.append("## Every figure against its target\n\n| part | figure | measured | target | |\n")
        .append("| --- | --- | --- | --- | --- |\n");
    for (Check c : checks) {
      md.append("| ").append(c.part()).append(" | ").append(c.figure()).append(" | ").append(c.measured())
          .append(" | ").append(c.target()).append(" | ").append(c.met() ? "met" : "**missed** by " + c.missBy())
          .append(" |\n");
    }
    md.append('\n');
  }

  private void costSection() {
    md.append("## ").append(PART1).append(" per event\n\n");
    if (cost == null) {
      md.append("Not run.\n\n");
      return;
    }
    md.append("segscope's programs and an equivalent bpftrace program (`bench/src/main/resources/io/segscope/bench/")
        .append("equivalent.bt`: same tracepoints, same in-flight tracking, same per-device counters and histograms)")
        .append(" attached together, `kernel.bpf_stats_enabled=1`, during one S1 iperf3 run (")
        .append(Fmt.num(cost.trafficGbps(), 2)).append(" Gbit/s, window ").append(Fmt.num(cost.windowSeconds(), 1))
        .append(" s). ns/event = Δrun_time_ns / Δrun_cnt from `bpftool prog show`; every run counts, including the")
        .append(" early exits (most events are not GSO skbs).\n\n");
    md.append("| tracepoint | segscope runs | segscope ns/event | bpftrace runs | bpftrace ns/event | segscope ÷ bpftrace |\n")
        .append("| --- | ---: | ---: | ---: | ---: | ---: |\n");
    for (CostResult.ProgramCost p : cost.programs()) {
      md.append("| ").append(p.tracepoint()).append(" | ").append(Fmt.count(p.segscopeRuns())).append(" | ")
          .append(p.segscopeRuns() > 0 ? Fmt.num(p.segscopeNsPerEvent(), 1) : "— (not exercised)").append(" | ")
          .append(p.bpftraceRuns() > 0 ? Fmt.count(p.bpftraceRuns()) : "—").append(" | ")
          .append(p.bpftraceRuns() > 0 ? Fmt.num(p.bpftraceNsPerEvent(), 1) : "—")
          .append(p.bpftraceEmpty() ? " (empty program: the floor)" : "").append(" | ")
          .append(p.bpftraceRuns() > 0 && !p.bpftraceEmpty() ? Fmt.num(p.ratioToBpftrace(), 2) : "—").append(" |\n");
    }
    md.append("\nThe floor: an empty bpftrace program on `").append("netif_receive_skb").append("` costs ")
        .append(Fmt.num(cost.floorNsPerEvent(), 1)).append(" ns/event here, i.e. what one run of any program")
        .append(" costs on this machine under bpf_stats (dispatch plus the run-time accounting itself, which")
        .append(" reads the clock twice per run). qdisc_dequeue only fires on devices with a queue: veth has none.\n");
    md.append("\nSegmentation measured by the agent in the same window (all devices): ")
        .append(Fmt.count(cost.segmentedSkbs())).append(" super-packets, ")
        .append(Fmt.count(cost.timedSegmentations())).append(" timed, mean ")
        .append(Fmt.num(cost.meanSegmentationNanos() / 1000, 2)).append(" µs each. segscope's programs ran ")
        .append(Fmt.num(cost.segscopeRunNanos() / 1e6, 1)).append(" ms in total in the window (bpftrace's: ")
        .append(Fmt.num(cost.bpftraceRunNanos() / 1e6, 1)).append(" ms), i.e. ")
        .append(Fmt.pct(cost.totalShareOfSegmentation(), 2))
        .append(" of the segmentation time it measured (all runs of all programs, for every packet on the host,")
        .append(" against the segmentation time alone).\n\n");
  }

  private void overheadSection() {
    md.append("## ").append(PART2).append("\n\n");
    if (overhead == null) {
      md.append("Not run.\n\n");
      return;
    }
    md.append("iperf3 TCP, ").append(Fmt.num(overhead.runSeconds(), 0)).append(" s per run, S0 (the S1 topology ")
        .append("with consistent settings: nothing segmented in software) and S1 (uplink gso_max_size 16384). ")
        .append("Pairs of (agent attached, agent stopped), order alternating inside each pair; the agent is ")
        .append("started fresh for each pair (ready after a median of ")
        .append(Fmt.num(io.segscope.bench.Stats.median(overhead.agentStartSeconds()), 1))
        .append(" s). CPU is iperf3's own `cpu_utilization_percent` (host_total = sender, remote_total = ")
        .append("receiver). Ratios are with ÷ without per pair: median [min – max].\n\n");
    md.append("| scenario | pairs | Gbit/s with | Gbit/s without | throughput ratio | sender CPU ratio | receiver CPU ratio |\n")
        .append("| --- | ---: | ---: | ---: | --- | --- | --- |\n");
    for (OverheadResult.Summary s : overhead.scenarios()) {
      md.append("| ").append(s.scenario()).append(" | ").append(s.pairs()).append(" | ")
          .append(Fmt.num(s.gbpsWith(), 2)).append(" | ").append(Fmt.num(s.gbpsWithout(), 2)).append(" | ")
          .append(spread(s.throughputRatio())).append(" | ").append(spread(s.senderCpuRatio())).append(" | ")
          .append(spread(s.receiverCpuRatio())).append(" |\n");
    }
    md.append("\nEvery run: `overhead-runs.csv` in the raw results. The CPU ratios scatter widely: iperf3 samples")
        .append(" its own process's CPU time, and on 2 shared cores the softirq work of a veth path lands on whichever")
        .append(" process is running; read them as noise unless a run is repeated on a quiet machine.\n\n");
  }

  private static String spread(OverheadResult.Spread s) {
    return Fmt.num(s.median(), 3) + " [" + Fmt.num(s.min(), 3) + " – " + Fmt.num(s.max(), 3) + "]";
  }

  private void accuracySection() {
    md.append("## ").append(PART3).append(" against an independent oracle\n\n");
    if (accuracy == null) {
      md.append("Not run.\n\n");
      return;
    }
    md.append("In the same run as part 1, after S1: S2 and S0 traffic too. Agent = Δ of its counters between a")
        .append(" scrape before and after the traffic. Oracle = `bench/src/main/resources/io/segscope/bench/oracle.bt`:")
        .append(" every skb freed by `consume_skb` that still carries a GSO size, keyed by the freeing call site")
        .append(" as bpftrace itself symbolises it (`validate_xmit_skb*` = segmented in software), netns inode")
        .append(" and device name read through BTF; offloaded = GSO skbs at `net_dev_start_xmit`. It shares no")
        .append(" code, map or address range with segscope.\n\n");
    md.append("| scenario | device (role) | sw skbs agent / oracle | segments agent / oracle | bytes agent / oracle")
        .append(" | offloaded agent / oracle | worst error |\n| --- | --- | --- | --- | --- | --- | ---: |\n");
    for (AccuracyResult.DeviceAccuracy d : accuracy.devices()) {
      md.append("| ").append(d.scenario()).append(" | ").append(d.device()).append(" (").append(d.role())
          .append(") | ").append(pair(d.agentSkbs(), d.oracleSkbs())).append(" | ")
          .append(pair(d.agentSegments(), d.oracleSegments())).append(" | ")
          .append(pair(d.agentBytes(), d.oracleBytes())).append(" | ")
          .append(pair(d.agentOffloaded(), d.oracleOffloaded())).append(" | ")
          .append(Fmt.pct(d.worstError(), 3)).append(" |\n");
    }
    md.append("\nsegmented_untracked diagnostics in the window: ").append(Fmt.count(accuracy.segmentedUntracked()))
        .append(". GSO skbs freed elsewhere on lab devices (not segmentation; e.g. received GRO skbs): ")
        .append(accuracy.otherFreeSites().isEmpty() ? "none" : sites(accuracy.otherFreeSites())).append(".\n\n");
  }

  private static String sites(Map<String, Long> m) {
    List<String> out = new ArrayList<>();
    m.forEach((k, v) -> out.add("`" + k + "` " + Fmt.count(v)));
    return String.join(", ", out);
  }

  private static String pair(double a, double o) {
    return Fmt.count(a) + " / " + Fmt.count(o);
  }

  private void scaleSection() {
    md.append("## ").append(PART4).append("\n\n");
    if (scale == null) {
      md.append("Not run.\n\n");
      return;
    }
    md.append("Veth pairs across 4 lab namespaces (fleet), plus the S1 topology for load. Every fleet device ")
        .append("sent 256 KiB over TCP to its peer, so each has the full GSO label set besides device_info/limits/")
        .append("features. The inventory counts every device of the host (other engineers' namespaces included).")
        .append(" Agent read interval ").append(scale.interval()).append("; latency over sequential requests")
        .append(" after 5 warm-up requests; CPU from /proc/PID/stat (1.0 = one core).\n\n");
    md.append("| fleet devices | inventory devices | GSO devices (fleet) | series | first scrape (probes attach) | ready | /metrics p50 / p99 | /metrics size")
        .append(" | /api/v1/devices p50 / p99 | size | RSS idle / load | CPU idle / load |\n")
        .append("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (ScaleResult.Level l : scale.levels()) {
      md.append("| ").append(l.fleetDevices()).append(" | ").append(l.inventoryDevices()).append(" | ")
          .append(l.gsoDevices()).append(" (").append(l.fleetGsoDevices()).append(") | ")
          .append(Fmt.count(l.metricsSeries())).append(" | ").append(Fmt.num(l.firstScrapeSeconds(), 2)).append(" s (")
          .append(Fmt.num(l.probesAttachSeconds(), 2)).append(" s) | ")
          .append(Fmt.num(l.readySeconds(), 2)).append(" s | ")
          .append(Fmt.num(l.metrics().ms().p50(), 1)).append(" / ").append(Fmt.num(l.metrics().ms().p99(), 1))
          .append(" ms | ").append(Fmt.kib(l.metrics().payloadBytes())).append(" | ")
          .append(Fmt.num(l.devicesApi().ms().p50(), 1)).append(" / ").append(Fmt.num(l.devicesApi().ms().p99(), 1))
          .append(" ms | ").append(Fmt.kib(l.devicesApi().payloadBytes())).append(" | ")
          .append(Fmt.mib(l.idleRssBytes())).append(" / ").append(Fmt.mib(l.loadRssBytes())).append(" | ")
          .append(Fmt.num(l.idleCores(), 3)).append(" / ").append(Fmt.num(l.loadCores(), 3)).append(" |\n");
    }
    md.append("\nRequests: ").append(scale.levels().get(0).metrics().ms().n())
        .append(" per endpoint and level; every sample in `scale-requests.csv`. The agent's CPU is its process")
        .append(" time only: the BPF programs run in the context of the packets' senders and receivers (part 1).")
        .append(" \"probes attach\" is what the agent logs for compiling and attaching its programs with libbcc.\n\n");
    ScaleResult.CompileMemory cm = scale.compileMemory();
    if (cm != null) {
      md.append("Where the RSS comes from (`io.segscope.bench.agent.CompileMemory`: a JVM with the agent's flags")
          .append(" that only opens the agent's probe session): RSS ").append(Fmt.mib(cm.before()[0] * 1024.0))
          .append(" before, ").append(Fmt.mib(cm.attached()[0] * 1024.0)).append(" after libbcc compiled and attached")
          .append(" the programs (anonymous ").append(Fmt.mib(cm.attached()[1] * 1024.0)).append(", file-backed ")
          .append(Fmt.mib(cm.attached()[2] * 1024.0)).append(": libLLVM/libclang code), ")
          .append(Fmt.mib(cm.trimmed()[0] * 1024.0)).append(" after glibc `malloc_trim(0)`.\n\n");
    }
  }

  private void jmhSection() {
    md.append("## 5. Java hot paths (JMH)\n\n");
    if (jmh == null) {
      md.append("Not run.\n\n");
      return;
    }
    md.append("`bench/src/main/java/io/segscope/bench/jmh/HotPathBenchmarks.java`, synthetic host on 2 CPUs ")
        .append("(every device offloads GSO; every tenth b-side device also segments in software); ")
        .append(jmh.settings()).append(". One operation = all devices once.\n\n");
    md.append("| benchmark | devices | time per operation | ± (99.9 %) | per device | allocated per operation |\n")
        .append("| --- | ---: | ---: | ---: | ---: | ---: |\n");
    for (JmhResult.Score s : jmh.scores()) {
      md.append("| ").append(s.benchmark()).append(" | ").append(s.devices()).append(" | ")
          .append(Fmt.num(s.score(), 1)).append(' ').append(s.unit()).append(" | ").append(Fmt.num(s.error(), 1))
          .append(" | ").append(Fmt.num(s.score() * 1000 / s.devices(), 0)).append(" ns | ")
          .append(Double.isNaN(s.allocatedBytesPerOp()) ? "n/a" : Fmt.kib(s.allocatedBytesPerOp())).append(" |\n");
    }
    md.append("\ndecode = DeviceStatsDecoder.decode of every per-CPU entry; assemble = SnapshotAssembler + ")
        .append("InventoryView (names, device infos); render = MetricsRegistry.render of a new snapshot on the ")
        .append("reader (OpenMetrics + gzip and text 0.0.4); scrape = one scrape as Prometheus gets it (cached ")
        .append("snapshot bytes + the JVM/self families, gzip); scrapeText = the same in text 0.0.4 without gzip; ")
        .append("readAndScrape = decode + assemble + render + scrape; advise = CostModel.window + ")
        .append("Recommender.evaluate.\n\n");
  }

  private void missesSection(List<Check> checks) {
    md.append("## Misses, and what would close them\n\n");
    List<Check> missed = checks.stream().filter(c -> !c.met()).toList();
    if (missed.isEmpty()) {
      md.append("None: every target was met in this run.\n\n");
      return;
    }
    for (Check c : missed) {
      md.append("- **").append(c.figure()).append("**: ").append(c.measured()).append(" against ")
          .append(c.target()).append(", missed by ").append(c.missBy()).append(". ")
          .append(Misses.explain(c, cost, overhead, accuracy, scale, jmh)).append("\n");
    }
    md.append('\n');
  }

  private void row(String k, String v) {
    md.append("| ").append(k).append(" | ").append(v).append(" |\n");
  }
}

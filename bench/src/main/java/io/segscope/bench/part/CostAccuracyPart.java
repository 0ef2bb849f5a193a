package io.segscope.bench.part;

import io.segscope.bench.PromText;
import io.segscope.bench.Results;
import io.segscope.bench.agent.AgentProcess;
import io.segscope.bench.kernel.BpfStatsSwitch;
import io.segscope.bench.kernel.Bpftool;
import io.segscope.bench.kernel.BpftraceRun;
import io.segscope.lab.DeviceAt;
import io.segscope.lab.IperfResult;
import io.segscope.lab.Lab;
import io.segscope.lab.Scenarios;
import io.segscope.lab.Topology;
import io.segscope.probes.ksym.Kallsyms;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.logging.Logger;

/**
 * Parts 1 and 3 in one run. The agent, an equivalent bpftrace program (resource {@code equivalent.bt}) and
 * the bpftrace oracle ({@code oracle.bt}) are attached together with {@code kernel.bpf_stats_enabled=1};
 * then S1 traffic (the window for in-kernel cost), then S2 and S0 traffic; the agent's counter deltas over
 * all three are compared per device with the oracle's counts.
 */
public final class CostAccuracyPart {
  private static final Logger LOG = Logger.getLogger(CostAccuracyPart.class.getName());
  /** Where equivalent.bt has an empty program (the floor), not an equivalent of segscope's. */
  static final String FLOOR_TRACEPOINT = "netif_receive_skb";
  static final List<String> TRACEPOINTS = List.of("net_dev_queue", "qdisc_dequeue", "consume_skb",
      "net_dev_start_xmit", "netif_receive_skb");
  private static final Duration SETTLE = Duration.ofMillis(2500); // > 2 agent read intervals of 1 s

  private final BenchConfig config;
  private final Results results;

  public CostAccuracyPart(BenchConfig config, Results results) {
    this.config = config;
    this.results = results;
  }

  /** Runs both parts and writes {@code cost.json} and {@code accuracy.json}. */
  public void run() throws Exception {
    try (Lab lab = Lab.create("bench-cost-accuracy")) {
      Topology s1 = Scenarios.s1GsoMismatch(lab, false);
      Topology s2 = Scenarios.s2OffloadLost(lab, false);
      Topology s0 = Scenarios.s1GsoMismatch(lab, true);
      try (BpfStatsSwitch stats = BpfStatsSwitch.enable();
          AgentProcess agent = AgentProcess.start(config.agentJar(), results.dir().resolve("agent-cost.log"),
              "--interval", "1s")) {
        agent.awaitReady(Duration.ofSeconds(120));
        LOG.fine("kernel.bpf_stats_enabled was " + stats.previous() + "; 1 until the end of this part");
        try (BpftraceRun equivalent = BpftraceRun.start("equivalent", equivalentScript(), results.dir());
            BpftraceRun oracle = BpftraceRun.start("oracle", resource("oracle.bt"), results.dir())) {
          equivalent.awaitAttached(Duration.ofSeconds(60));
          oracle.awaitAttached(Duration.ofSeconds(60));
          Map<String, Integer> ours = byTracepoint(agent.pid());
          Map<String, Integer> theirs = byTracepoint(equivalent.pid());
          List<String> foreign = foreign(Set.of(agent.pid(), equivalent.pid(), oracle.pid()));
          sleep(SETTLE);

          PromText before = agent.scrape();
          Map<Integer, Bpftool.ProgStat> p0 = Bpftool.programs();
          long t0 = System.nanoTime();
          IperfResult s1run = lab.iperf(s1.sender(), s1.receiver(), s1.receiverAddr(), config.costTraffic());
          sleep(SETTLE);
          Map<Integer, Bpftool.ProgStat> p1 = Bpftool.programs();
          long t1 = System.nanoTime();
          PromText mid = agent.scrape();
          LOG.info(String.format("S1: %.2f Gbit/s", s1run.gbitsPerSecond()));

          lab.iperf(s2.sender(), s2.receiver(), s2.receiverAddr(), config.costTraffic());
          lab.iperf(s0.sender(), s0.receiver(), s0.receiverAddr(), config.costTraffic());
          sleep(SETTLE);
          PromText after = agent.scrape();
          Map<String, Map<String, Long>> oracleMaps = oracle.stop();
          equivalent.stop();

          CostResult cost = cost(ours, theirs, p0, p1, before, mid, s1run, (t1 - t0) / 1e9, foreign);
          results.write("cost", cost);
          AccuracyResult accuracy = accuracy(List.of(s1, s2, s0), before, after, oracleMaps);
          results.write("accuracy", accuracy);
        }
        agent.stop();
      }
    }
  }

  private static CostResult cost(Map<String, Integer> ours, Map<String, Integer> theirs,
      Map<Integer, Bpftool.ProgStat> p0, Map<Integer, Bpftool.ProgStat> p1, PromText before, PromText mid,
      IperfResult traffic, double window, List<String> foreign) {
    List<CostResult.ProgramCost> rows = new ArrayList<>();
    long oursTotal = 0;
    long theirsTotal = 0;
    for (String tp : TRACEPOINTS) {
      Integer o = ours.get(tp);
      if (o == null) {
        continue;
      }
      long[] od = delta(p0, p1, o);
      long[] td = theirs.containsKey(tp) ? delta(p0, p1, theirs.get(tp)) : new long[] {0, 0};
      oursTotal += od[0];
      theirsTotal += td[0];
      rows.add(new CostResult.ProgramCost(tp, p1.get(o).name(), od[1], od[0], perEvent(od),
          td[1], td[0], perEvent(td), tp.equals(FLOOR_TRACEPOINT)));
    }
    double skbs = delta(before, mid, "segscope_gso_sw_skbs_total");
    double timed = delta(before, mid, "segscope_gso_sw_duration_seconds_count");
    double segNanos = delta(before, mid, "segscope_gso_sw_duration_seconds_sum") * 1e9;
    java.util.SortedSet<String> modes = new java.util.TreeSet<>();
    for (PromText.Sample s : mid.samples("segscope_probe_attached")) {
      if (s.value() == 1 && s.labels().containsKey("mode")) {
        modes.add(s.labels().get("mode"));
      }
    }
    return new CostResult(rows, oursTotal, theirsTotal, skbs, timed, segNanos, traffic.gbitsPerSecond(), window,
        foreign, String.join(", ", modes));
  }

  private static double perEvent(long[] d) {
    return d[1] > 0 ? (double) d[0] / d[1] : Double.NaN;
  }

  /** {run_time_ns, run_cnt} of program {@code id} between two reads. */
  private static long[] delta(Map<Integer, Bpftool.ProgStat> p0, Map<Integer, Bpftool.ProgStat> p1, int id) {
    Bpftool.ProgStat a = p0.get(id);
    Bpftool.ProgStat b = p1.get(id);
    if (a == null || b == null) {
      throw new IllegalStateException("read bpf_stats of program " + id + ": it was unloaded during the run");
    }
    return new long[] {b.runTimeNanos() - a.runTimeNanos(), b.runCount() - a.runCount()};
  }

  private static double delta(PromText a, PromText b, String metric) {
    return b.sum(metric, Map.of()) - a.sum(metric, Map.of());
  }

  private static Map<String, Integer> byTracepoint(long pid) {
    Map<String, Integer> out = new HashMap<>();
    for (Bpftool.Attachment a : Bpftool.tracepointsOf(pid)) {
      out.put(a.tracepoint(), a.progId());
    }
    if (out.isEmpty()) {
      throw new IllegalStateException("find the tracepoint programs of process " + pid + ": bpftool perf show"
          + " lists none");
    }
    return out;
  }

  /** Programs of other processes on the tracepoints measured here (they share the traffic's events). */
  private static List<String> foreign(Set<Long> mine) {
    Map<Long, List<String>> byPid = new TreeMap<>();
    for (Bpftool.Attachment a : Bpftool.tracepoints()) {
      if (!mine.contains(a.pid()) && TRACEPOINTS.contains(a.tracepoint())) {
        byPid.computeIfAbsent(a.pid(), k -> new ArrayList<>()).add(a.tracepoint());
      }
    }
    List<String> out = new ArrayList<>();
    byPid.forEach((pid, tps) -> out.add("pid " + pid + " (" + comm(pid) + "): " + String.join(", ", tps)));
    return out;
  }

  private static String comm(long pid) {
    try {
      return java.nio.file.Files.readString(java.nio.file.Path.of("/proc", Long.toString(pid), "comm")).trim();
    } catch (IOException e) {
      return "exited";
    }
  }

  private static AccuracyResult accuracy(List<Topology> topologies, PromText before, PromText after,
      Map<String, Map<String, Long>> oracle) {
    Map<String, Long> freedSkbs = new HashMap<>();
    Map<String, Long> freedSegs = new HashMap<>();
    Map<String, Long> freedBytes = new HashMap<>();
    Map<String, Long> otherSites = new TreeMap<>();
    Set<Long> labNetns = new HashSet<>();
    topologies.forEach(t -> t.devices().values().forEach(d -> labNetns.add(d.ns().inode())));
    fold(oracle.get("@freed_skbs"), freedSkbs, otherSites, labNetns);
    fold(oracle.get("@freed_segs"), freedSegs, new TreeMap<>(), labNetns);
    fold(oracle.get("@freed_bytes"), freedBytes, new TreeMap<>(), labNetns);
    Map<String, Long> xmit = oracle.getOrDefault("@xmit_gso_skbs", Map.of());

    List<AccuracyResult.DeviceAccuracy> rows = new ArrayList<>();
    for (Topology t : topologies) {
      Map<DeviceAt, String> roles = new LinkedHashMap<>();
      t.devices().forEach((role, d) -> roles.merge(d, role, (a, b) -> a + "/" + b));
      roles.forEach((d, role) -> {
        String key = d.ns().inode() + "," + d.name();
        Map<String, String> labels = Map.of("netns", Long.toString(d.ns().inode()), "device", d.name());
        rows.add(new AccuracyResult.DeviceAccuracy(t.name(), role, d.ns().inode(), d.name(),
            delta(before, after, "segscope_gso_sw_skbs_total", labels), freedSkbs.getOrDefault(key, 0L),
            delta(before, after, "segscope_gso_sw_segments_total", labels), freedSegs.getOrDefault(key, 0L),
            delta(before, after, "segscope_gso_sw_bytes_total", labels), freedBytes.getOrDefault(key, 0L),
            delta(before, after, "segscope_gso_offloaded_skbs_total", labels), xmit.getOrDefault(key, 0L)));
      });
    }
    double untracked = after.sum("segscope_probe_diagnostic_total", Map.of("kind", "segmented_untracked"))
        - before.sum("segscope_probe_diagnostic_total", Map.of("kind", "segmented_untracked"));
    return new AccuracyResult(rows, otherSites, untracked);
  }

  private static double delta(PromText a, PromText b, String metric, Map<String, String> labels) {
    return b.sum(metric, labels) - a.sum(metric, labels);
  }

  /**
   * Sums the oracle's "site,netns,device" keys into "netns,device" for the segmentation site
   * (validate_xmit_skb or a clone of it); other sites on lab namespaces go to {@code other}.
   */
  static void fold(Map<String, Long> map, Map<String, Long> seg, Map<String, Long> other, Set<Long> labNetns) {
    if (map == null) {
      return;
    }
    map.forEach((k, v) -> {
      String[] f = k.split(",", 3);
      if (f.length != 3) {
        throw new IllegalArgumentException("parse oracle key `" + k + "`: expected site,netns,device");
      }
      String site = f[0];
      String dev = f[1] + "," + f[2];
      if (site.equals("validate_xmit_skb") || site.startsWith("validate_xmit_skb.")) {
        seg.merge(dev, v, Long::sum);
      } else if (f[1].matches("\\d+") && labNetns.contains(Long.parseLong(f[1]))) {
        other.merge(site + " on " + f[2], v, Long::sum);
      }
    });
  }

  /** equivalent.bt with the validate_xmit_skb address ranges of this kernel filled in. */
  static String equivalentScript() throws Exception {
    List<Kallsyms.Symbol> vxs = Kallsyms.load().functionAndClones("validate_xmit_skb");
    if (vxs.isEmpty()) {
      throw new IllegalStateException("find validate_xmit_skb in /proc/kallsyms: absent (no root, or kptr_restrict)");
    }
    List<String> checks = new ArrayList<>();
    for (Kallsyms.Symbol s : vxs) {
      checks.add(String.format("($l >= (uint64)0x%x && $l < (uint64)0x%x)", s.start(), s.end()));
    }
    return resource("equivalent.bt").replace("@VXS_CHECK@", String.join(" || ", checks));
  }

  static String resource(String name) throws IOException {
    try (InputStream in = CostAccuracyPart.class.getResourceAsStream("/io/segscope/bench/" + name)) {
      if (in == null) {
        throw new IOException("read resource " + name + ": missing from the jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static void sleep(Duration d) throws InterruptedException {
    Thread.sleep(d.toMillis());
  }
}

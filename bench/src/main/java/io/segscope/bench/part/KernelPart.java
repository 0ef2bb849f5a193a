package io.segscope.bench.part;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.bench.agent.AgentProcess;
import io.segscope.bench.common.Results;
import io.segscope.bench.kernel.BpfFdinfo;
import io.segscope.bench.kernel.BpftraceRun;
import io.segscope.bench.kernel.EmptyPrograms;
import io.segscope.bench.kernel.Exec;
import io.segscope.bench.kernel.ProgramNames;
import io.segscope.lab.DeviceAt;
import io.segscope.lab.IperfResult;
import io.segscope.lab.Lab;
import io.segscope.lab.Scenarios;
import io.segscope.lab.Tools;
import io.segscope.lab.Topology;
import io.segscope.probes.BpfStats;
import io.segscope.testkit.PromText;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.logging.Logger;

/**
 * Part 1 (in-kernel cost) and part 1b (counts against the oracle), one agent in tracepoint mode:
 *
 * <ol>
 *   <li>cost window: empty programs of the agent's attach type on every event it hooks and on the
 *       per-segment events it does not (net_dev_start_xmit, netif_receive_skb); bpf_stats on
 *       ({@code BPF_ENABLE_STATS}, only for the window); one S1 iperf3 run; every program's Δrun_time_ns
 *       and Δrun_cnt, and the agent's Δ of software segmentation (count, segments, time) over the same
 *       traffic;
 *   <li>oracle window: bpf_stats off again, empty programs gone, the bpftrace oracle attached; S1 and
 *       S2 traffic; every lab device's counts from the agent against the oracle's.
 *   <li>sampled timing (part 1c, a second agent with default flags: timing in windows): S1 for six
 *       kernel windows (60 s) while the bpftrace duration oracle times every segmentation on the uplink;
 *       the agent's estimate (exact count × the windows' mean) and its quantiles against the exact ones.
 * </ol>
 */
public final class KernelPart {
  private static final Logger LOG = Logger.getLogger(KernelPart.class.getName());
  /** Per-segment and per-packet events segscope no longer hooks: their rates say what that saves. */
  static final List<String> PER_PACKET_EVENTS = List.of("net_dev_start_xmit", "netif_receive_skb");
  static final Duration READ_WAIT = Duration.ofSeconds(30);

  private final BenchConfig config;
  private final Results results;

  public KernelPart(BenchConfig config, Results results) {
    this.config = config;
    this.results = results;
  }

  public void run() throws Exception {
    try (Lab lab = Lab.create("bench-kernel")) {
      Topology s1 = Scenarios.s1GsoMismatch(lab, false);
      Topology s2 = Scenarios.s2OffloadLost(lab, false);
      try (AgentProcess agent = AgentProcess.start(config.launcher(), config.agentJar(),
          results.dir().resolve("agent-kernel.log"), List.of(), "--probe-mode", "tracepoint",
          "--timing-window", "always")) {
        agent.awaitReady(Duration.ofSeconds(120));
        // warm up: the path, and the on-demand timing program that segmentation attaches
        lab.iperf(s1.sender(), s1.receiver(), s1.receiverAddr(), Duration.ofSeconds(2));
        agent.scrapeAfter(Instant.now(), READ_WAIT);
        agent.awaitQuiet(0.05, Duration.ofMillis(500), Duration.ofSeconds(20));
        KernelResult cost = costWindow(lab, s1, agent);
        results.write("kernel", cost);
        LOG.info(String.format("kernel: %d runs of segscope programs per super-packet, %.2f %% of segmentation time",
            Math.round(cost.runsPerSuperPacket()), 100 * cost.shareOfSegmentation()));
        AccuracyResult accuracy = oracleWindow(lab, List.of(s1, s2), agent);
        results.write("accuracy", accuracy);
        LOG.info(String.format("oracle: worst error %.4f %%", 100 * accuracy.worstError()));
        agent.stop();
      }
      SampledResult sampled = new SampledPart(config, results).run(lab, s1, Scenarios.s1GsoMismatch(lab, true));
      results.write("sampled", sampled);
      LOG.info(String.format("sampled timing: estimate %.2f %% from the exact sum, quantiles within %.2f %%",
          100 * sampled.estimateError(), 100 * sampled.worstQuantileError()));
    }
  }

  private KernelResult costWindow(Lab lab, Topology s1, AgentProcess agent) throws Exception {
    PromText m = agent.scrape();
    Map<String, String> attached = attachedPrograms(m);
    String mode = label(m, "mode");
    String attach = label(m, "attach");
    Set<String> events = new LinkedHashSet<>(attached.values());
    events.addAll(PER_PACKET_EVENTS);
    Set<String> hooked = hookedEvents(m);
    Map<Integer, String> names = ProgramNames.kernelNames();
    try (EmptyPrograms empties = EmptyPrograms.attach(List.copyOf(events), attach)) {
      List<String> foreign = foreign(events, Set.of(agent.pid(), ProcessHandle.current().pid()));
      Instant before = Instant.now();
      PromText m0 = agent.scrapeAfter(before, READ_WAIT);
      IperfResult traffic;
      Map<String, BpfFdinfo.Program> p0;
      Map<String, BpfFdinfo.Program> p1;
      Map<String, long[]> e0;
      Map<String, long[]> e1;
      long t0;
      long t1;
      PromText m1;
      // The agent's counters move only when it reads its maps (every interval): the programs' runs are
      // taken right after the read before the traffic (m0) and right after the first read after it (m1),
      // so runs and super-packets cover the same stretch (background traffic of other labs included in
      // both), not a short traffic window against a longer read-to-read one.
      try (BpfStats stats = BpfStats.enable()) {
        p0 = ProgramNames.match(attached.keySet(), BpfFdinfo.of(agent.pid()).programs(), names);
        e0 = empties.stats();
        t0 = System.nanoTime();
        traffic = lab.iperf(s1.sender(), s1.receiver(), s1.receiverAddr(), config.kernelWindow());
        m1 = agent.scrapeAfter(Instant.now(), READ_WAIT);
        e1 = empties.stats();
        p1 = ProgramNames.match(attached.keySet(), BpfFdinfo.of(agent.pid()).programs(), names);
        t1 = System.nanoTime();
      }
      List<KernelResult.ProgramCost> programs = programCosts(attached, p0, p1);
      List<KernelResult.EventRate> rates = new ArrayList<>();
      for (String event : events) {
        long[] a = e0.get(event);
        long[] b = e1.get(event);
        rates.add(new KernelResult.EventRate(event, hooked.contains(event), b[1] - a[1], b[0] - a[0]));
      }
      return new KernelResult(mode, attach, (t1 - t0) / 1e9, traffic.gbitsPerSecond(), programs, rates,
          Math.round(delta(m0, m1, "segscope_gso_sw_skbs_total", Map.of())),
          Math.round(delta(m0, m1, "segscope_gso_sw_segments_total", Map.of())),
          Math.round(delta(m0, m1, "segscope_gso_sw_duration_seconds_count", Map.of())),
          delta(m0, m1, "segscope_gso_sw_duration_seconds_sum", Map.of()) * 1e9, foreign, timingPrograms(m));
    }
  }

  /** The events an agent's program is attached to now (segscope_probe_attached 1). */
  private static Set<String> hookedEvents(PromText m) {
    Set<String> hooked = new LinkedHashSet<>();
    for (PromText.Sample s : m.samples("segscope_probe_attached")) {
      if (s.value() == 1) {
        hooked.add(event(s.labels().getOrDefault("program", "")));
      }
    }
    return hooked;
  }

  /** Each loaded program's runs and run time between two fdinfo readings ({@code attached}: program to event). */
  private static List<KernelResult.ProgramCost> programCosts(Map<String, String> attached,
      Map<String, BpfFdinfo.Program> p0, Map<String, BpfFdinfo.Program> p1) {
    List<KernelResult.ProgramCost> programs = new ArrayList<>();
    attached.forEach((program, event) -> {
      BpfFdinfo.Program b = p1.get(program);
      if (b == null) {
        return; // not loaded (an on-demand program the agent has not needed)
      }
      BpfFdinfo.Program a = p0.get(program);
      long time = b.runTimeNanos() - (a == null ? 0 : a.runTimeNanos());
      long runs = b.runCount() - (a == null ? 0 : a.runCount());
      programs.add(new KernelResult.ProgramCost(program, event, runs, time));
    });
    return programs;
  }

  /** The timing programs (attached in sampling windows only), by the events they hook: see ProgramSpec. */
  static final Set<String> TIMING_EVENTS = Set.of("net_dev_queue", "qdisc_dequeue");

  /** The agent's timing programs. */
  static List<String> timingPrograms(PromText m) {
    return attachedPrograms(m).entrySet().stream().filter(e -> TIMING_EVENTS.contains(e.getValue()))
        .map(Map.Entry::getKey).toList();
  }

  /** program (C function) → the event it runs on, of every tracepoint program the agent lists. */
  static Map<String, String> attachedPrograms(PromText m) {
    Map<String, String> out = new TreeMap<>();
    for (PromText.Sample s : m.samples("segscope_probe_attached")) {
      String program = s.labels().getOrDefault("program", "");
      String event = event(program);
      if (!event.isEmpty()) {
        out.put(program, event);
      }
    }
    if (out.isEmpty()) {
      throw new IllegalStateException("list the agent's programs: segscope_probe_attached names no tracepoint program");
    }
    return out;
  }

  /** The tracepoint of a tracepoint program's C function ({@code tp_btf__X}, {@code raw_tp__X}, {@code tp__X}); "" else. */
  static String event(String program) {
    for (String prefix : List.of("tp_btf__", "raw_tp__", "tp__")) {
      if (program.startsWith(prefix)) {
        return program.substring(prefix.length());
      }
    }
    return "";
  }

  /** The one value {@code key} has on the attached segscope_probe_attached series (e.g. mode, attach). */
  static String label(PromText m, String key) {
    Set<String> values = new LinkedHashSet<>();
    for (PromText.Sample s : m.samples("segscope_probe_attached")) {
      if (s.value() == 1 && !event(s.labels().getOrDefault("program", "")).isEmpty()) {
        values.add(s.labels().getOrDefault(key, ""));
      }
    }
    if (values.size() != 1) {
      throw new IllegalStateException("read the agent's " + key + ": its attached tracepoint programs say " + values);
    }
    return values.iterator().next();
  }

  private AccuracyResult oracleWindow(Lab lab, List<Topology> scenarios, AgentProcess agent) throws Exception {
    try (BpftraceRun oracle = BpftraceRun.start("oracle", resource("oracle.bt"), results.dir())) {
      oracle.awaitAttached(Duration.ofSeconds(60));
      PromText before = agent.scrapeAfter(Instant.now(), READ_WAIT);
      for (Topology t : scenarios) {
        lab.iperf(t.sender(), t.receiver(), t.receiverAddr(), config.kernelWindow());
      }
      PromText after = agent.scrapeAfter(Instant.now(), READ_WAIT);
      return accuracy(scenarios, before, after, oracle.stop());
    }
  }

  static AccuracyResult accuracy(List<Topology> scenarios, PromText before, PromText after,
      Map<String, Map<String, Long>> oracle) {
    Map<String, Long> skbs = segmented(oracle.get("@freed_skbs"));
    Map<String, Long> segs = segmented(oracle.get("@freed_segs"));
    Map<String, Long> bytes = segmented(oracle.get("@freed_bytes"));
    Map<String, Long> xmit = oracle.getOrDefault("@xmit_gso_skbs", Map.of());
    List<AccuracyResult.DeviceCount> rows = new ArrayList<>();
    for (Topology t : scenarios) {
      Map<DeviceAt, String> roles = new LinkedHashMap<>();
      t.devices().forEach((role, d) -> roles.merge(d, role, (a, b) -> a + "/" + b));
      roles.forEach((d, role) -> {
        String key = d.ns().inode() + "," + d.name();
        Map<String, String> labels = Map.of("netns", Long.toString(d.ns().inode()), "device", d.name());
        rows.add(new AccuracyResult.DeviceCount(t.name(), role, d.ns().inode(), d.name(),
            Math.round(delta(before, after, "segscope_gso_sw_skbs_total", labels)), skbs.getOrDefault(key, 0L),
            Math.round(delta(before, after, "segscope_gso_sw_segments_total", labels)), segs.getOrDefault(key, 0L),
            Math.round(delta(before, after, "segscope_gso_sw_bytes_total", labels)), bytes.getOrDefault(key, 0L),
            Math.round(delta(before, after, "segscope_gso_offloaded_skbs_total", labels)),
            xmit.getOrDefault(key, 0L)));
      });
    }
    double untracked = delta(before, after, "segscope_probe_diagnostic_total", Map.of("kind", "segmented_untracked"));
    return new AccuracyResult(rows, untracked);
  }

  /**
   * The oracle's "site,netns,device" keys summed into "netns,device" for the segmentation site
   * (validate_xmit_skb or a compiler clone of it, e.g. validate_xmit_skb.isra.0).
   */
  static Map<String, Long> segmented(Map<String, Long> map) {
    Map<String, Long> out = new HashMap<>();
    if (map == null) {
      return out;
    }
    map.forEach((k, v) -> {
      String[] f = k.split(",", 3);
      if (f.length != 3) {
        throw new IllegalArgumentException("parse oracle key `" + k + "`: expected site,netns,device");
      }
      if (f[0].equals("validate_xmit_skb") || f[0].startsWith("validate_xmit_skb.")) {
        out.merge(f[1] + "," + f[2], v, Long::sum);
      }
    });
    return out;
  }

  static double delta(PromText a, PromText b, String metric, Map<String, String> labels) {
    return b.sum(metric, labels) - a.sum(metric, labels);
  }

  /**
   * Other processes' BPF programs on {@code events}: raw and BTF-typed tracepoint links held by any
   * process, and classic tracepoint attachments (bpftool perf show).
   */
  static List<String> foreign(Set<String> events, Set<Long> mine) {
    Map<Long, Set<String>> byPid = new TreeMap<>();
    try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), p -> p.getFileName().toString()
        .matches("\\d+"))) {
      for (Path p : procs) {
        long pid = Long.parseLong(p.getFileName().toString());
        if (mine.contains(pid)) {
          continue;
        }
        try {
          for (BpfFdinfo.Link l : BpfFdinfo.of(pid).links()) {
            if (events.contains(l.tracepoint())) {
              byPid.computeIfAbsent(pid, k -> new LinkedHashSet<>()).add(l.tracepoint());
            }
          }
        } catch (IllegalStateException e) {
          // the process ended meanwhile
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("list /proc: " + e.getMessage(), e);
    }
    String perf = Exec.run(List.of(Tools.require("bpftool"), "-j", "perf", "show"));
    try {
      for (var n : new ObjectMapper().readTree(perf)) {
        String tp = n.path("tracepoint").asText("");
        long pid = n.path("pid").asLong();
        if (events.contains(tp) && !mine.contains(pid)) {
          byPid.computeIfAbsent(pid, k -> new LinkedHashSet<>()).add(tp);
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("parse bpftool perf show: " + e.getMessage(), e);
    }
    List<String> out = new ArrayList<>();
    byPid.forEach((pid, tps) -> out.add("pid " + pid + " (" + comm(pid) + "): " + String.join(", ", tps)));
    return out;
  }

  private static String comm(long pid) {
    try {
      return Files.readString(Path.of("/proc", Long.toString(pid), "comm")).trim();
    } catch (IOException e) {
      return "exited";
    }
  }

  static String resource(String name) throws IOException {
    try (InputStream in = KernelPart.class.getResourceAsStream("/io/segscope/bench/" + name)) {
      if (in == null) {
        throw new IOException("read resource " + name + ": missing from the jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}

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
 * Parts 1c and 1d, with a second agent on the default flags (tracepoint mode, timing in windows): a healthy host
 * first (which programs run on S0 before anything was segmented, and consume_skb's early exit next to an empty
 * program's), then the sampled timing of S1 against the bpftrace oracle that times every segmentation
 * ({@code durations.bt}). Run by {@link KernelPart} in its lab.
 */
final class SampledPart {
  private static final Logger LOG = Logger.getLogger(SampledPart.class.getName());

  private final BenchConfig config;
  private final Results results;

  SampledPart(BenchConfig config, Results results) {
    this.config = config;
    this.results = results;
  }

  /**
   * durations.bt's END: the duration still pending on each CPU (aggregated at that CPU's next net_dev_queue,
   * which the end of the traffic leaves out), aggregated as the probes would have.
   */
  static String flushPending(int cpus) {
    StringBuilder b = new StringBuilder();
    for (int c = 0; c < cpus; c++) {
      String end = "@pend_end[" + c + "]";
      String d = "(" + end + " - @pend_start[" + c + "])";
      String loc = "ksym(@pend_loc[" + c + "])";
      b.append("  if (").append(end).append(" > 0) {\n")
          .append("    @n[").append(loc).append("] = count();\n")
          .append("    @sum[").append(loc).append("] = sum(").append(d).append(");\n")
          .append("    @q[").append(loc).append(", ").append(d).append(" / 64] = count();\n")
          .append("  }\n");
    }
    return b.toString();
  }

  /** The kernel's possible CPUs (/sys/devices/system/cpu/possible, e.g. "0-1"), the keys cpu can take. */
  static int possibleCpus() {
    try {
      String s = Files.readString(Path.of("/sys/devices/system/cpu/possible")).strip();
      int max = 0;
      for (String part : s.split(",")) {
        String[] r = part.split("-");
        max = Math.max(max, Integer.parseInt(r[r.length - 1].strip()));
      }
      return max + 1;
    } catch (IOException | RuntimeException e) {
      return Runtime.getRuntime().availableProcessors();
    }
  }

  /** The advice window of the sampled agent: longer than its life before the API is read, so it covers it all. */
  private static final Duration SAMPLED_ADVICE_WINDOW = Duration.ofMinutes(10);

  /**
   * Part 1c. The perf tracepoints are held (a bpftrace run with empty programs) from before the agent
   * attaches, so the oracle's programs, which share the kernel's perf probe, run before the agent's at
   * both ends of the interval and each tool's own work falls alike outside the other's interval.
   */
  SampledResult run(Lab lab, Topology s1, Topology s0) throws Exception {
    DeviceAt uplink = s1.device("uplink");
    long netns = uplink.ns().inode();
    int ifindex = new ObjectMapper().readTree(lab.exec(uplink.ns(), "ip", "-j", "link", "show", "dev",
        uplink.name())).get(0).path("ifindex").asInt();
    Map<String, String> dev = Map.of("netns", Long.toString(netns), "device", uplink.name());
    Duration traffic = config.kernelWindow().multipliedBy(6);
    String hold = "tracepoint:net:net_dev_queue {}\ntracepoint:skb:consume_skb {}\ntracepoint:skb:kfree_skb {}\n";
    try (BpftraceRun holding = BpftraceRun.start("hold", hold, results.dir())) {
      holding.awaitAttached(Duration.ofSeconds(60));
      try (AgentProcess agent = AgentProcess.start(config.launcher(), config.agentJar(),
          results.dir().resolve("agent-sampled.log"), List.of(), "--probe-mode", "tracepoint",
          "--advice-window", SAMPLED_ADVICE_WINDOW.toSeconds() + "s")) {
        agent.awaitReady(Duration.ofSeconds(120));
        HealthyResult healthy = healthyWindow(lab, s0, agent);
        results.write("healthy", healthy);
        LOG.info(String.format("healthy host: programs that ran %s, %.3f runs per transmitted skb, consume_skb %.2fx"
            + " the empty program", healthy.ran(), healthy.runsPerTransmittedSkb(),
            healthy.ratioToEmpty("consume_skb")));
        String script = KernelPart.resource("durations.bt").replace("IFINDEX", Integer.toString(ifindex))
            .replace("NETNS", Long.toString(netns)).replace("FLUSH_PENDING", flushPending(possibleCpus()));
        try (BpftraceRun oracle = BpftraceRun.start("durations", script, results.dir(), 1 << 20)) {
          oracle.awaitAttached(Duration.ofSeconds(60));
          PromText before = agent.scrapeAfter(Instant.now(), KernelPart.READ_WAIT);
          lab.iperf(s1.sender(), s1.receiver(), s1.receiverAddr(), traffic);
          PromText after = agent.scrapeAfter(Instant.now(), KernelPart.READ_WAIT);
          var response = agent.get("/api/v1/devices?netns=" + netns, "application/json", false);
          Map<String, Map<String, Long>> maps = oracle.stop();
          var gso = apiCost(response.body(), uplink.name()).path("gso");
          double[] q = {gso.path("duration_p50_ns").asDouble(Double.NaN),
              gso.path("duration_p90_ns").asDouble(Double.NaN), gso.path("duration_p99_ns").asDouble(Double.NaN)};
          double error = gso.path("cpu_relative_error").isNumber() ? gso.path("cpu_relative_error").asDouble()
              : Double.NaN;
          long count = segmentedAtXmit(maps.get("@n"));
          long sum = segmentedAtXmit(maps.get("@sum"));
          TreeMap<Long, Long> steps = new TreeMap<>();
          maps.getOrDefault("@q", Map.of()).forEach((k, v) -> {
            int comma = k.lastIndexOf(',');
            if (comma > 0 && isXmit(k.substring(0, comma))) {
              steps.merge(Long.parseLong(k.substring(comma + 1).trim()), v, Long::sum);
            }
          });
          return new SampledResult(traffic.toMillis() / 1e3,
              Math.round(KernelPart.delta(before, after, "segscope_gso_sw_skbs_total", dev)),
              Math.round(KernelPart.delta(before, after, "segscope_gso_sw_duration_seconds_count", dev)),
              KernelPart.delta(before, after, "segscope_gso_sw_duration_seconds_sum", dev) * 1e9,
              KernelPart.delta(before, after, "segscope_timing_sampled_seconds_total", Map.of()),
              KernelPart.delta(before, after, "segscope_probe_diagnostic_total", Map.of("kind", "segmented_untimed")),
              q, error,
              count, sum, steps);
        }
      }
    }
  }

  /**
   * Part 1d, with the agent of part 1c before any segmentation it saw: S0 (nothing segments, so no timing
   * window opens) with bpf_stats on and empty programs beside the agent's on every event it can hook.
   */
  private HealthyResult healthyWindow(Lab lab, Topology s0, AgentProcess agent) throws Exception {
    PromText m = agent.scrape();
    Map<String, String> attached = KernelPart.attachedPrograms(m);
    Set<String> events = new LinkedHashSet<>(attached.values());
    events.addAll(KernelPart.PER_PACKET_EVENTS);
    Map<Integer, String> names = ProgramNames.kernelNames();
    try (EmptyPrograms empties = EmptyPrograms.attach(List.copyOf(events), KernelPart.label(m, "attach"))) {
      Map<String, BpfFdinfo.Program> p0;
      Map<String, BpfFdinfo.Program> p1;
      Map<String, long[]> e0;
      Map<String, long[]> e1;
      IperfResult traffic;
      long t0;
      long t1;
      try (BpfStats stats = BpfStats.enable()) {
        p0 = ProgramNames.match(attached.keySet(), BpfFdinfo.of(agent.pid()).programs(), names);
        e0 = empties.stats();
        t0 = System.nanoTime();
        traffic = lab.iperf(s0.sender(), s0.receiver(), s0.receiverAddr(), config.kernelWindow());
        e1 = empties.stats();
        p1 = ProgramNames.match(attached.keySet(), BpfFdinfo.of(agent.pid()).programs(), names);
        t1 = System.nanoTime();
      }
      List<KernelResult.ProgramCost> programs = new ArrayList<>();
      attached.forEach((program, event) -> {
        BpfFdinfo.Program a = p0.get(program);
        BpfFdinfo.Program b = p1.get(program);
        long runs = b == null ? 0 : b.runCount() - (a == null ? 0 : a.runCount());
        long time = b == null ? 0 : b.runTimeNanos() - (a == null ? 0 : a.runTimeNanos());
        programs.add(new KernelResult.ProgramCost(program, event, runs, time));
      });
      List<KernelResult.EventRate> rates = new ArrayList<>();
      for (String event : events) {
        long[] a = e0.get(event);
        long[] b = e1.get(event);
        rates.add(new KernelResult.EventRate(event, attached.containsValue(event), b[1] - a[1], b[0] - a[0]));
      }
      return new HealthyResult((t1 - t0) / 1e9, traffic.gbitsPerSecond(), programs, rates);
    }
  }

  /** The {@code cost} of device {@code name} in an /api/v1/devices answer (missing node when absent). */
  static com.fasterxml.jackson.databind.JsonNode apiCost(byte[] body, String name) throws IOException {
    for (var d : new ObjectMapper().readTree(body).path("devices")) {
      if (d.path("name").asText().equals(name)) {
        return d.path("cost");
      }
    }
    throw new IllegalStateException("the agent's /api/v1/devices lists no device " + name);
  }

  /** The oracle's per-call-site values summed over validate_xmit_skb and its clones. */
  static long segmentedAtXmit(Map<String, Long> bySite) {
    return bySite == null ? 0 : bySite.entrySet().stream().filter(e -> isXmit(e.getKey()))
        .mapToLong(Map.Entry::getValue).sum();
  }

  private static boolean isXmit(String site) {
    return site.equals("validate_xmit_skb") || site.startsWith("validate_xmit_skb.");
  }
}

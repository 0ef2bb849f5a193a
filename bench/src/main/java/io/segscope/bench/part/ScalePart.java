package io.segscope.bench.part;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.bench.agent.AgentProcess;
import io.segscope.bench.agent.JvmMemory;
import io.segscope.bench.agent.ProcessUsage;
import io.segscope.bench.common.Results;
import io.segscope.bench.common.Stats;
import io.segscope.bench.kernel.BpfFdinfo;
import io.segscope.bench.scale.DeviceFleet;
import io.segscope.bench.scale.Spray;
import io.segscope.host.sys.Cpus;
import io.segscope.lab.IperfResult;
import io.segscope.lab.Lab;
import io.segscope.lab.Scenarios;
import io.segscope.lab.Topology;
import io.segscope.testkit.PromText;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Part 3. For each device count: grow the veth fleet, start the agent with the launcher's flags (default
 * configuration), send TCP over every fleet device in both directions (so every device has map entries
 * and the full GSO series), wait for a map read after it, then: /metrics as Prometheus asks (gzip) and
 * without compression, alternating request by request; /api/v1/devices; RSS, peak RSS and the kernel's
 * memlock of the agent's maps; CPU idle and under S1 load. At the largest count a second agent with
 * Native Memory Tracking says where its memory goes.
 */
public final class ScalePart {
  private static final Logger LOG = Logger.getLogger(ScalePart.class.getName());
  private static final ObjectMapper JSON = new ObjectMapper();
  static final int GROUPS = 2;
  static final int SPRAY_BYTES = 256 * 1024;
  private static final Duration IDLE = Duration.ofSeconds(5);
  private static final Duration LOAD = Duration.ofSeconds(6);
  private static final int WARMUP_REQUESTS = 5;

  private final BenchConfig config;
  private final Results results;

  public ScalePart(BenchConfig config, Results results) {
    this.config = config;
    this.results = results;
  }

  public ScaleResult run() throws Exception {
    List<ScaleResult.Level> levels = new ArrayList<>();
    List<List<Object>> samples = new ArrayList<>();
    samples.add(List.of("fleet_devices", "path", "variant", "request", "ms", "bytes"));
    JvmMemory jvm = null;
    try (Lab lab = Lab.create("bench-scale")) {
      Topology s1 = Scenarios.s1GsoMismatch(lab, false);
      DeviceFleet fleet = new DeviceFleet(lab, GROUPS);
      Spray spray = new Spray(lab, config.benchJar(), results.dir());
      for (int devices : config.scaleLevels()) {
        long t0 = System.nanoTime();
        fleet.growTo(devices / 2);
        LOG.info(String.format("fleet of %d devices built in %.1f s", fleet.devices(), (System.nanoTime() - t0) / 1e9));
        levels.add(level(lab, fleet, spray, s1, samples));
      }
      jvm = jvmMemory(fleet, spray);
    }
    ScaleResult result = new ScaleResult("5s (default)", Cpus.possible(), config.launcher().javaOptionsLine(), levels,
        jvm);
    results.write("scale", result);
    results.csv("scale-requests", samples);
    return result;
  }

  /**
   * Timing always: every device's queued count (and so its GSO series and map entries) is kept, the most the
   * agent can hold; with the default windows a fleet that never segments would have none.
   */
  private static final String[] ALWAYS = {"--timing-window", "always"};

  private ScaleResult.Level level(Lab lab, DeviceFleet fleet, Spray spray, Topology s1, List<List<Object>> samples)
      throws Exception {
    try (AgentProcess agent = AgentProcess.start(config.launcher(), config.agentJar(),
        results.dir().resolve("agent-scale-" + fleet.devices() + ".log"), List.of(), ALWAYS)) {
      agent.awaitReady(Duration.ofSeconds(180));
      spray.over(fleet, SPRAY_BYTES);
      PromText metrics = agent.scrapeAfter(Instant.now(), Duration.ofSeconds(30));
      int counted = countedFleetDevices(metrics, fleet);
      int inventory = inventoryDevices(agent);
      agent.awaitQuiet(0.05, Duration.ofMillis(500), Duration.ofSeconds(20));

      ProcessUsage i0 = agent.usage();
      Thread.sleep(IDLE.toMillis());
      ProcessUsage i1 = agent.usage();

      ScaleResult.Latency[] m = metricsLatency(agent, fleet.devices(), samples);
      ScaleResult.Latency d = latency(agent, "/api/v1/devices", "json", null, false, fleet.devices(), samples);
      ProcessUsage after = agent.usage();
      List<BpfFdinfo.BpfMap> maps = BpfFdinfo.of(agent.pid()).maps();

      CompletableFuture<IperfResult> load = CompletableFuture.supplyAsync(
          () -> lab.iperf(s1.sender(), s1.receiver(), s1.receiverAddr(), LOAD));
      Thread.sleep(1500);
      ProcessUsage l0 = agent.usage();
      Thread.sleep(LOAD.toMillis() - 2500);
      ProcessUsage l1 = agent.usage();
      IperfResult loaded = load.get(60, TimeUnit.SECONDS);
      long peak = ProcessUsage.peakRss(agent.pid());
      PromText end = agent.scrape();
      double reads = end.sum("segscope_map_read_seconds_count", Map.of());
      double readSeconds = reads == 0 ? Double.NaN : end.sum("segscope_map_read_seconds_sum", Map.of()) / reads;
      agent.stop();
      LOG.info(String.format("%d devices: /metrics gzip p50 %.1f ms, plain p50 %.1f ms; RSS %.1f MiB; maps %.1f MiB",
          fleet.devices(), m[0].ms().p50(), m[1].ms().p50(), after.rssBytes() / 1048576.0,
          maps.stream().mapToLong(BpfFdinfo.BpfMap::memlockBytes).sum() / 1048576.0));
      return new ScaleResult.Level(fleet.devices(), inventory, counted, metrics.samples().size(),
          agent.firstScrapeSeconds(), m[0], m[1], d, after.rssBytes(), peak, i1.coresSince(i0), l1.rssBytes(),
          l1.coresSince(l0), loaded.gbitsPerSecond(), maps, readSeconds);
    }
  }

  /** A second agent at the largest level with Native Memory Tracking on: where its memory is. */
  private JvmMemory jvmMemory(DeviceFleet fleet, Spray spray) throws Exception {
    try (AgentProcess agent = AgentProcess.start(config.launcher(), config.agentJar(),
        results.dir().resolve("agent-scale-nmt.log"), List.of("-XX:NativeMemoryTracking=summary"), ALWAYS)) {
      agent.awaitReady(Duration.ofSeconds(180));
      spray.over(fleet, SPRAY_BYTES);
      agent.scrapeAfter(Instant.now(), Duration.ofSeconds(30));
      for (int i = 0; i < 2 * WARMUP_REQUESTS; i++) {
        agent.get("/metrics", AgentProcess.PROMETHEUS_ACCEPT, i % 2 == 0);
      }
      JvmMemory jvm = JvmMemory.of(agent.pid());
      agent.stop();
      return jvm;
    } catch (RuntimeException e) {
      LOG.warning("measure where the agent's memory goes: " + e.getMessage());
      return null;
    }
  }

  /** Fleet devices that have GSO series in {@code m}. */
  static int countedFleetDevices(PromText m, DeviceFleet fleet) {
    Set<Long> fleetNs = new HashSet<>();
    fleet.aNamespaces().forEach(n -> fleetNs.add(n.inode()));
    fleet.bNamespaces().forEach(n -> fleetNs.add(n.inode()));
    Set<String> seen = new HashSet<>();
    for (PromText.Sample s : m.samples("segscope_gso_offloaded_skbs_total")) {
      String ns = s.labels().getOrDefault("netns", "");
      if (ns.matches("\\d+") && fleetNs.contains(Long.parseLong(ns))) {
        seen.add(ns + "/" + s.labels().get("device"));
      }
    }
    return seen.size();
  }

  private static int inventoryDevices(AgentProcess agent) throws IOException {
    HttpResponse<byte[]> r = agent.get("/api/v1/devices", null, false);
    if (r.statusCode() != 200) {
      throw new IllegalStateException("read /api/v1/devices: status " + r.statusCode());
    }
    JsonNode devices = JSON.readTree(r.body()).path("devices");
    if (!devices.isArray()) {
      throw new IllegalStateException("read /api/v1/devices: no devices array");
    }
    return devices.size();
  }

  /** /metrics with gzip and without, request by request in turn: {gzip, plain}. */
  private ScaleResult.Latency[] metricsLatency(AgentProcess agent, int level, List<List<Object>> samples)
      throws IOException {
    boolean[] variants = {true, false};
    List<List<Double>> ms = List.of(new ArrayList<>(), new ArrayList<>());
    HttpResponse<?>[] last = new HttpResponse<?>[2];
    for (int i = 0; i < WARMUP_REQUESTS; i++) {
      for (boolean gzip : variants) {
        agent.get("/metrics", AgentProcess.PROMETHEUS_ACCEPT, gzip);
      }
    }
    for (int i = 0; i < config.latencyRequests(); i++) {
      for (int v = 0; v < 2; v++) {
        long t0 = System.nanoTime();
        HttpResponse<byte[]> r = agent.get("/metrics", AgentProcess.PROMETHEUS_ACCEPT, variants[v]);
        double t = (System.nanoTime() - t0) / 1e6;
        if (r.statusCode() != 200) {
          throw new IllegalStateException("GET /metrics: status " + r.statusCode());
        }
        ms.get(v).add(t);
        last[v] = r;
        samples.add(List.of(level, "/metrics", variants[v] ? "gzip" : "plain", i, t, r.body().length));
      }
    }
    ScaleResult.Latency[] out = new ScaleResult.Latency[2];
    for (int v = 0; v < 2; v++) {
      @SuppressWarnings("unchecked")
      HttpResponse<byte[]> r = (HttpResponse<byte[]>) last[v];
      out[v] = new ScaleResult.Latency("/metrics", variants[v] ? "gzip" : "plain", Stats.summarize(ms.get(v)),
          r.body().length, r.headers().firstValue("Content-Type").orElse(""),
          r.headers().firstValue("Content-Encoding").orElse(""));
    }
    return out;
  }

  private ScaleResult.Latency latency(AgentProcess agent, String path, String variant, String accept, boolean gzip,
      int level, List<List<Object>> samples) throws IOException {
    for (int i = 0; i < WARMUP_REQUESTS; i++) {
      agent.get(path, accept, gzip);
    }
    List<Double> ms = new ArrayList<>();
    HttpResponse<byte[]> r = null;
    for (int i = 0; i < config.latencyRequests(); i++) {
      long t0 = System.nanoTime();
      r = agent.get(path, accept, gzip);
      double t = (System.nanoTime() - t0) / 1e6;
      if (r.statusCode() != 200) {
        throw new IllegalStateException("GET " + path + ": status " + r.statusCode());
      }
      ms.add(t);
      samples.add(List.of(level, path, variant, i, t, r.body().length));
    }
    return new ScaleResult.Latency(path, variant, Stats.summarize(ms), r.body().length,
        r.headers().firstValue("Content-Type").orElse(""), r.headers().firstValue("Content-Encoding").orElse(""));
  }
}

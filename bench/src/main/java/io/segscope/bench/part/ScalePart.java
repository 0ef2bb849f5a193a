package io.segscope.bench.part;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.bench.PromText;
import io.segscope.bench.Results;
import io.segscope.bench.Stats;
import io.segscope.bench.agent.AgentProcess;
import io.segscope.bench.agent.ProcessUsage;
import io.segscope.bench.scale.DeviceFleet;
import io.segscope.bench.scale.TcpSpray;
import io.segscope.lab.IperfResult;
import io.segscope.lab.Lab;
import io.segscope.lab.Netns;
import io.segscope.lab.Scenarios;
import io.segscope.lab.Tools;
import io.segscope.lab.Topology;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Part 4. For each fleet size: build the veth fleet, start the agent (default read interval) and time its
 * start, drive a little TCP traffic over every fleet device in both directions (so each has the full GSO
 * label set), then measure idle CPU and RSS, the latency and size of /metrics and /api/v1/devices, and CPU
 * and RSS under S1 iperf3 load.
 */
public final class ScalePart {
  private static final Logger LOG = Logger.getLogger(ScalePart.class.getName());
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int GROUPS = 2;
  private static final int SPRAY_PORT = 7000;
  private static final int SPRAY_BYTES = 256 * 1024;
  private static final Duration READ_WAIT = Duration.ofSeconds(6); // > the default 5 s read interval
  private static final Duration IDLE = Duration.ofSeconds(10);
  private static final Duration LOAD = Duration.ofSeconds(8);
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
    samples.add(List.of("fleet_devices", "path", "request", "ms", "bytes"));
    try (Lab lab = Lab.create("bench-scale")) {
      Topology s1 = Scenarios.s1GsoMismatch(lab, false);
      DeviceFleet fleet = new DeviceFleet(lab, GROUPS);
      for (int devices : config.scaleLevels()) {
        long t0 = System.nanoTime();
        fleet.growTo(devices / 2);
        LOG.info(String.format("fleet of %d devices built in %.1f s", fleet.devices(), (System.nanoTime() - t0) / 1e9));
        levels.add(level(lab, fleet, s1, samples));
      }
    }
    ScaleResult result = new ScaleResult(levels, "5s (default)", compileMemory());
    results.write("scale", result);
    results.csv("scale-requests", samples);
    return result;
  }

  private ScaleResult.Level level(Lab lab, DeviceFleet fleet, Topology s1, List<List<Object>> samples)
      throws Exception {
    Path log = results.dir().resolve("agent-scale-" + fleet.devices() + ".log");
    try (AgentProcess agent = AgentProcess.start(config.agentJar(), log)) {
      agent.awaitReady(Duration.ofSeconds(180));
      LOG.info(String.format("%d devices: first scrape %.2f s, ready %.2f s", fleet.devices(),
          agent.firstScrapeSeconds(), agent.readySeconds()));
      spray(lab, fleet);
      Thread.sleep(READ_WAIT.toMillis());

      PromText metrics = agent.scrape();
      Set<String> gso = new HashSet<>();
      Set<Long> fleetNs = new HashSet<>();
      fleet.aNamespaces().forEach(n -> fleetNs.add(n.inode()));
      fleet.bNamespaces().forEach(n -> fleetNs.add(n.inode()));
      int fleetGso = 0;
      for (PromText.Sample s : metrics.samples("segscope_gso_offloaded_skbs_total")) {
        if (gso.add(s.labels().get("netns") + "/" + s.labels().get("device"))
            && fleetNs.contains(Long.parseLong(s.labels().get("netns")))) {
          fleetGso++;
        }
      }
      int inventory = inventoryDevices(agent);

      ProcessUsage i0 = agent.usage();
      Thread.sleep(IDLE.toMillis());
      ProcessUsage i1 = agent.usage();

      ScaleResult.Latency m = latency(agent, "/metrics", fleet.devices(), samples);
      ScaleResult.Latency d = latency(agent, "/api/v1/devices", fleet.devices(), samples);

      CompletableFuture<IperfResult> load = CompletableFuture.supplyAsync(
          () -> lab.iperf(s1.sender(), s1.receiver(), s1.receiverAddr(), LOAD));
      Thread.sleep(1500);
      ProcessUsage l0 = agent.usage();
      Thread.sleep(LOAD.toMillis() - 2500);
      ProcessUsage l1 = agent.usage();
      IperfResult loaded = load.get(60, TimeUnit.SECONDS);
      agent.stop();
      return new ScaleResult.Level(fleet.devices(), inventory, gso.size(), fleetGso, metrics.samples().size(),
          agent.firstScrapeSeconds(), agent.readySeconds(), attachSeconds(log), m, d, i1.rssBytes(), i1.coresSince(i0),
          l1.rssBytes(), l1.coresSince(l0), loaded.gbitsPerSecond());
    }
  }

  /** "probes attached in N ms" from the agent's log, in seconds; -1 when absent. */
  static double attachSeconds(Path log) throws IOException {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("probes attached in (\\d+) ms")
        .matcher(Files.readString(log));
    return m.find() ? Long.parseLong(m.group(1)) / 1000.0 : -1;
  }

  /** Runs {@link io.segscope.bench.agent.CompileMemory} in a JVM with the agent's flags; null if it fails. */
  private ScaleResult.CompileMemory compileMemory() {
    List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java")));
    for (String o : System.getenv().getOrDefault("SEGSCOPE_JAVA_OPTS", AgentProcess.DEFAULT_JAVA_OPTS).split("\\s+")) {
      if (!o.isEmpty()) {
        cmd.add(o);
      }
    }
    cmd.addAll(List.of("-cp", config.benchJar().toString(), io.segscope.bench.agent.CompileMemory.class.getName()));
    Path out = results.dir().resolve("compile-memory.log");
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
      if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        LOG.warning("measure compile memory: `" + String.join(" ", cmd) + "` failed; see " + out);
        return null;
      }
      for (String line : Files.readAllLines(out)) {
        if (line.startsWith("before=")) {
          return ScaleResult.CompileMemory.parse(line);
        }
      }
      LOG.warning("measure compile memory: no result line in " + out);
      return null;
    } catch (IOException | RuntimeException e) {
      LOG.warning("measure compile memory: " + e.getMessage());
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  private static int inventoryDevices(AgentProcess agent) throws IOException {
    HttpResponse<byte[]> r = agent.get("/api/v1/devices");
    if (r.statusCode() != 200) {
      throw new IllegalStateException("read /api/v1/devices: status " + r.statusCode());
    }
    JsonNode devices = JSON.readTree(r.body()).path("devices");
    if (!devices.isArray()) {
      throw new IllegalStateException("read /api/v1/devices: no devices array");
    }
    return devices.size();
  }

  private ScaleResult.Latency latency(AgentProcess agent, String path, int level, List<List<Object>> samples)
      throws IOException {
    long bytes = 0;
    for (int i = 0; i < WARMUP_REQUESTS; i++) {
      agent.get(path);
    }
    List<Double> ms = new ArrayList<>();
    for (int i = 0; i < config.latencyRequests(); i++) {
      long t0 = System.nanoTime();
      HttpResponse<byte[]> r = agent.get(path);
      double t = (System.nanoTime() - t0) / 1e6;
      if (r.statusCode() != 200) {
        throw new IllegalStateException("GET " + path + ": status " + r.statusCode());
      }
      bytes = r.body().length;
      ms.add(t);
      samples.add(List.of(level, path, i, t, bytes));
    }
    Stats.Summary s = Stats.summarize(ms);
    LOG.info(String.format("%d devices: %s p50 %.1f ms p99 %.1f ms, %d bytes", level, path, s.p50(), s.p99(), bytes));
    return new ScaleResult.Latency(path, s, bytes);
  }

  /**
   * Sinks in every fleet namespace, then from each namespace TCP connections to every peer address of its
   * group: every fleet device sends GSO super-packets.
   */
  private void spray(Lab lab, DeviceFleet fleet) throws Exception {
    List<Process> sinks = new ArrayList<>();
    List<Netns> all = new ArrayList<>(fleet.aNamespaces());
    all.addAll(fleet.bNamespaces());
    try {
      for (Netns ns : all) {
        sinks.add(new ProcessBuilder(command(ns, "serve", Integer.toString(SPRAY_PORT), "60"))
            .redirectErrorStream(true).redirectOutput(results.dir().resolve("spray-sink-" + ns.name() + ".log").toFile())
            .start());
      }
      for (Netns ns : all) {
        awaitListening(lab, ns);
      }
      for (int g = 0; g < GROUPS; g++) { // Lab.exec is serialised anyway: one sender at a time
        LOG.fine(send(lab, fleet.aNamespaces().get(g), fleet.addresses(g, 2), "a" + g).strip());
        LOG.fine(send(lab, fleet.bNamespaces().get(g), fleet.addresses(g, 1), "b" + g).strip());
      }
    } finally {
      for (Process p : sinks) {
        p.descendants().forEach(ProcessHandle::destroy);
        p.destroy();
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
    }
  }

  private String send(Lab lab, Netns ns, List<String> addresses, String tag) throws IOException {
    Path file = lab.workDir().resolve("spray-" + tag + ".txt");
    Files.write(file, addresses);
    List<String> cmd = javaCommand("send", Integer.toString(SPRAY_PORT), Integer.toString(SPRAY_BYTES), file.toString());
    return lab.exec(ns, cmd.toArray(String[]::new));
  }

  private List<String> command(Netns ns, String... args) {
    List<String> cmd = new ArrayList<>(List.of(Tools.require("ip"), "netns", "exec", ns.name()));
    cmd.addAll(javaCommand(args));
    return cmd;
  }

  private List<String> javaCommand(String... args) {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> cmd = new ArrayList<>(List.of(java, "-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-cp", config.benchJar().toString(), TcpSpray.class.getName()));
    cmd.addAll(List.of(args));
    return cmd;
  }

  private static void awaitListening(Lab lab, Netns ns) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      if (lab.exec(ns, "ss", "-Hltn", "sport = :" + SPRAY_PORT).contains(":" + SPRAY_PORT)) {
        return;
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("start the traffic sink in " + ns.name() + ": not listening on :" + SPRAY_PORT
        + " after 20 s");
  }
}

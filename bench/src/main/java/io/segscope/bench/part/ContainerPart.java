package io.segscope.bench.part;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.agent.inventory.NetnsThread;
import io.segscope.bench.agent.AgentProcess;
import io.segscope.bench.agent.ProcessUsage;
import io.segscope.bench.common.Results;
import io.segscope.bench.common.Stats;
import io.segscope.bench.scale.DeviceFleet;
import io.segscope.bench.scale.Spray;
import io.segscope.lab.Lab;
import io.segscope.lab.Netns;
import io.segscope.lab.Tools;
import io.segscope.lab.containerd.PrivateContainerd;
import io.segscope.lab.containerd.PrivateContainerd.Pod;
import io.segscope.lab.containerd.criv1.ContainerConfig;
import io.segscope.lab.containerd.criv1.ContainerState;
import io.segscope.testkit.Await;
import io.segscope.testkit.PromText;
import io.segscope.testkit.deploy.AgentContainer;
import io.segscope.testkit.deploy.AgentPod;
import io.segscope.testkit.deploy.Kubelet;
import io.segscope.testkit.deploy.NetnsForward;
import io.segscope.testkit.deploy.RenderedManifest;
import io.segscope.testkit.deploy.Tree;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * Part "container": what the agent costs as deployed. Builds the image with scripts/image, starts the lab's
 * private containerd, and runs the image through CRI with the settings of the rendered DaemonSet, as a
 * kubelet does (the same support as ContainerImageIT: {@link AgentPod}, {@link AgentContainer},
 * {@link Kubelet}, which polls the startup, liveness and readiness probes throughout). The node gets 1,000
 * more devices: the scale part's veth fleet, its namespaces bind-mounted into the directory the container
 * sees as /run/netns (as a runtime pins pod namespaces there), each device carrying a little TCP so that
 * it has map entries and GSO series. Then, with the manifest's args alone: the container's CPU (its
 * cgroup's CPU time) over a fixed idle span and over a span scraped at the ServiceMonitor's interval as
 * Prometheus scrapes, and its memory (the memory cgroup's charge, which the limit is held against, and
 * the agent's VmRSS). Targets: the manifest's memory limit and CPU request.
 */
public final class ContainerPart {
  private static final Logger LOG = Logger.getLogger(ContainerPart.class.getName());
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String IMAGE = "localhost/segscope:bench";
  private static final String SUBNET = "198.18.46.0/24";
  private static final String NODE_IP = "198.18.47.1";
  /** Veth pairs of the fleet: 1,000 devices, the scale part's largest level. */
  static final int PAIRS = 500;
  /** The idle span and the scraped span. */
  static final Duration SPAN = Duration.ofSeconds(60);
  private static final Duration SETTLE = Duration.ofSeconds(10);
  private static final List<String> TOOLS = List.of("podman", "mmdebstrap", "runc", "containerd", "ctr", "nsenter",
      "tar", "mount", "umount");

  private final BenchConfig config;
  private final Results results;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(2)).build();

  public ContainerPart(BenchConfig config, Results results) {
    this.config = config;
    this.results = results;
  }

  /** What this part needs and this machine lacks (empty: it can run); scripts/setup --with-test-tools has it all. */
  public static List<String> missing() {
    List<String> out = new ArrayList<>();
    for (String t : TOOLS) {
      if (Tools.find(t).isEmpty()) {
        out.add(t);
      }
    }
    for (String plugin : List.of("bridge", "host-local", "loopback")) {
      if (!Files.isExecutable(Path.of("/usr/lib/cni", plugin))) {
        out.add("CNI plugin " + plugin);
      }
    }
    if (!Files.isExecutable(Path.of("/bin/busybox"))) {
      out.add("/bin/busybox (busybox-static)");
    }
    return out;
  }

  public ContainerResult run() throws Exception {
    List<String> missing = missing();
    if (!missing.isEmpty()) {
      throw new IllegalStateException("run the container part: missing " + missing
          + " (scripts/setup --with-test-tools installs them)");
    }
    long t0 = System.nanoTime();
    Path archive = AgentContainer.buildImage(config.agentJar(), IMAGE);
    double imageSeconds = (System.nanoTime() - t0) / 1e9;
    LOG.info(String.format("scripts/image: %.0f s", imageSeconds));
    RenderedManifest manifest = RenderedManifest.render();
    AgentPod pod = AgentPod.of(manifest);
    ContainerResult result;
    List<String> leftovers = new ArrayList<>();
    try (Lab lab = Lab.create("bench-container")) {
      PrivateContainerd containerd = PrivateContainerd.start(lab, SUBNET);
      List<Path> pinned = new ArrayList<>();
      try {
        containerd.importImage(archive);
        lab.exec(containerd.node(), "ip", "addr", "add", NODE_IP + "/32", "dev", "lo");
        containerd.shareNetnsDir();
        DeviceFleet fleet = new DeviceFleet(lab, ScalePart.GROUPS);
        fleet.growTo(PAIRS);
        for (Netns ns : allOf(fleet)) {
          pinned.add(pin(containerd, ns));
        }
        result = measure(lab, containerd, pod, manifest, fleet, imageSeconds);
      } finally {
        for (Path p : pinned) {
          unpin(p, leftovers);
        }
        containerd.close();
        leftovers.addAll(containerd.leftovers());
      }
    }
    results.write("container", result);
    if (!leftovers.isEmpty()) {
      throw new IllegalStateException("the container part left " + leftovers);
    }
    return result;
  }

  private static List<Netns> allOf(DeviceFleet fleet) {
    List<Netns> all = new ArrayList<>(fleet.aNamespaces());
    all.addAll(fleet.bNamespaces());
    return all;
  }

  /** Bind-mounts a lab namespace into the containerd's netns directory (the container's /run/netns). */
  private static Path pin(PrivateContainerd containerd, Netns ns) throws Exception {
    Path at = containerd.netnsDir().resolve(ns.name());
    Files.createFile(at);
    try {
      PrivateContainerd.exec(List.of("mount", "--bind", "/run/netns/" + ns.name(), at.toString()));
    } catch (IOException e) {
      Files.delete(at);
      throw e;
    }
    return at;
  }

  private static void unpin(Path at, List<String> leftovers) {
    try {
      PrivateContainerd.exec(List.of("umount", at.toString()));
      Files.delete(at);
    } catch (Exception e) {
      leftovers.add("pinned namespace " + at + ": " + e.getMessage());
    }
  }

  private ContainerResult measure(Lab lab, PrivateContainerd containerd, AgentPod pod, RenderedManifest manifest,
      DeviceFleet fleet, double imageSeconds) throws Exception {
    Pod p = containerd.runHostPod("segscope-bench", "segscope");
    ContainerConfig c = AgentContainer.config(pod, containerd, lab, IMAGE, NODE_IP, p, "segscope.log", List.of());
    long start = System.nanoTime();
    String id = containerd.startContainer(p, c);
    Path log = containerd.containerLog(p, c);
    try (NetnsForward fwd = forward(containerd, pod.port("metrics"));
        Kubelet kubelet = new Kubelet(fwd.port(), log,
            () -> containerd.containerStatus(id).getStatus().getState() == ContainerState.CONTAINER_RUNNING)) {
      long pid = AgentContainer.pid(containerd, id);
      kubelet.awaitStarted(pod.probe("startupProbe"));
      kubelet.pollLivenessAndReadiness(pod.probe("livenessProbe"), pod.probe("readinessProbe"));
      kubelet.awaitReady(Duration.ofSeconds(180));
      double readySeconds = (System.nanoTime() - start) / 1e9;
      LOG.info(String.format("the container is ready after %.1f s; traffic over %d devices", readySeconds,
          fleet.devices()));
      new Spray(lab, config.benchJar(), results.dir()).over(fleet, ScalePart.SPRAY_BYTES);
      PromText after = scrapeOfAReadStartedAfter(fwd.port(), Instant.now(), kubelet);
      int counted = ScalePart.countedFleetDevices(after, fleet);
      int inventory = JSON.readTree(kubelet.get("/api/v1/devices").body()).path("devices").size();
      Thread.sleep(SETTLE.toMillis());

      // idle: nothing but the kubelet's probes
      long cpu0 = AgentContainer.cpuUsageNanos(pid);
      long w0 = System.nanoTime();
      Thread.sleep(SPAN.toMillis()); // the span CPU is measured over, not a wait for a condition
      double idleSeconds = (System.nanoTime() - w0) / 1e9;
      double idleCores = (AgentContainer.cpuUsageNanos(pid) - cpu0) / 1e9 / idleSeconds;

      Duration interval = serviceMonitorInterval(manifest);
      Scraped scraped = scrapeAsPrometheus(fwd.port(), pid, manifest, interval);

      long cgroup = AgentContainer.memoryCurrent(pid);
      long inactive = AgentContainer.memoryInactiveFile(pid);
      long peakCgroup = AgentContainer.memoryPeak(pid);
      ProcessUsage u = ProcessUsage.of(pid);
      long peakRss = ProcessUsage.peakRss(pid);
      String args = String.join(" ", c.getArgsList());
      var r = pod.resources();
      ContainerResult result = new ContainerResult(IMAGE, imageSeconds, manifest.renderer(), args,
          r.getMemoryLimitInBytes(), request(pod, "memory"), requestCores(pod, "requests"),
          requestCores(pod, "limits"), fleet.devices(), inventory, counted, readySeconds, cgroup, inactive, peakCgroup,
          u.rssBytes(), peakRss, idleSeconds, idleCores, scraped.seconds(), interval.toMillis() / 1000.0,
          scraped.ms().size(), scraped.cores(), Stats.summarize(scraped.ms()), scraped.bytes());
      LOG.info(String.format("container at %d devices: cgroup %.1f MiB, RSS %.1f MiB of the %d MiB limit; CPU idle"
          + " %.3f, scraped %.3f cores against the %.2f requested", fleet.devices(), cgroup / 1048576.0,
          u.rssBytes() / 1048576.0, r.getMemoryLimitInBytes() >> 20, idleCores, scraped.cores(),
          result.cpuRequestCores()));
      containerd.stopContainer(id, pod.terminationGraceSeconds());
      return result;
    } finally {
      keepLog(log);
      containerd.removeContainer(id);
      containerd.removePod(p);
    }
  }

  /** Copies the container's log beside the results (a failure to is a warning: the measurement stands). */
  private void keepLog(Path log) {
    try {
      Files.copy(log, results.dir().resolve("agent-container.log"));
    } catch (IOException e) {
      LOG.warning("copy the container's log: " + e.getMessage());
    }
  }

  /** Scrapes over {@link #SPAN}: their times (ms), the last body's size, the span's length and the agent's cores. */
  private record Scraped(List<Double> ms, long bytes, double seconds, double cores) {}

  /** Scraped as Prometheus scrapes: at the ServiceMonitor's interval, its path and Accept header, gzip. */
  private Scraped scrapeAsPrometheus(int port, long pid, RenderedManifest manifest, Duration interval)
      throws Exception {
    String path = Tree.str(Tree.maps(manifest.kind("ServiceMonitor"), "spec.endpoints").get(0), "path");
    List<Double> ms = new ArrayList<>();
    long bytes = 0;
    long cpu0 = AgentContainer.cpuUsageNanos(pid);
    long w0 = System.nanoTime();
    long end = w0 + SPAN.toNanos();
    for (long next = w0; next < end; next += interval.toNanos()) {
      long wait = next - System.nanoTime();
      if (wait > 0) {
        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000)); // Prometheus's pace
      }
      long s0 = System.nanoTime();
      HttpResponse<byte[]> r = get(port, path, AgentProcess.PROMETHEUS_ACCEPT, true);
      ms.add((System.nanoTime() - s0) / 1e6);
      if (r.statusCode() != 200) {
        throw new IllegalStateException("scrape " + path + ": status " + r.statusCode());
      }
      bytes = r.body().length;
    }
    long rest = end - System.nanoTime();
    if (rest > 0) {
      Thread.sleep(rest / 1_000_000); // the rest of the span CPU is measured over
    }
    double seconds = (System.nanoTime() - w0) / 1e9;
    return new Scraped(ms, bytes, seconds, (AgentContainer.cpuUsageNanos(pid) - cpu0) / 1e9 / seconds);
  }

  private static Duration serviceMonitorInterval(RenderedManifest manifest) {
    String v = Tree.str(Tree.maps(manifest.kind("ServiceMonitor"), "spec.endpoints").get(0), "interval");
    if (!v.matches("\\d+s")) {
      throw new IllegalStateException("the ServiceMonitor's interval '" + v + "' is not in seconds (Ns)");
    }
    return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
  }

  /** The manifest's resources.requests.memory in bytes, 0 when absent. */
  private static long request(AgentPod pod, String resource) {
    Object q = Tree.find(pod.container(), "resources.requests." + resource);
    return q == null ? 0 : AgentPod.bytes(String.valueOf(q));
  }

  /** The manifest's resources.{requests|limits}.cpu in cores, 0 when absent. */
  private static double requestCores(AgentPod pod, String kind) {
    Object q = Tree.find(pod.container(), "resources." + kind + ".cpu");
    return q == null ? 0 : AgentPod.milliCpu(String.valueOf(q)) / 1000.0;
  }

  /** A forward from this host's loopback to the node's address, inside the node's namespace. */
  private static NetnsForward forward(PrivateContainerd containerd, int port) throws IOException {
    NetnsThread thread = new NetnsThread("netns-forward");
    var node = new io.segscope.agent.inventory.model.Netns(containerd.node().inode(), containerd.node().name(),
        Path.of("/run/netns", containerd.node().name()), false);
    InetSocketAddress target = new InetSocketAddress(NODE_IP, port);
    return NetnsForward.open(() -> thread.call(node, () -> {
      Socket s = new Socket();
      s.connect(target, 5000);
      return s;
    }), thread);
  }

  private HttpResponse<byte[]> get(int port, String path, String accept, boolean gzip) throws IOException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(30)).header("Accept", accept);
    if (gzip) {
      b.header("Accept-Encoding", "gzip");
    }
    try {
      return http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("GET " + path + ": interrupted", e);
    }
  }

  /** A text scrape whose snapshot comes from a map read that began after {@code moment}. */
  private PromText scrapeOfAReadStartedAfter(int port, Instant moment, Kubelet kubelet) throws Exception {
    double[] after = {moment.toEpochMilli() / 1000.0};
    boolean[] seenOne = {false};
    return Await.atMost(Duration.ofSeconds(60)).every(Duration.ofMillis(200)).poll(() -> {
      HttpResponse<byte[]> r = get(port, "/metrics", "text/plain;version=0.0.4", false);
      PromText m = PromText.parse(new String(r.body(), StandardCharsets.UTF_8));
      double stamp = m.sum("segscope_snapshot_timestamp_seconds", Map.of());
      if (stamp > after[0]) {
        if (seenOne[0]) {
          return Optional.of(m); // the read that stamped `after` may have begun before the moment: take the next
        }
        seenOne[0] = true;
        after[0] = stamp;
      }
      return Optional.<PromText>empty();
    }).orElseThrow(() -> new IllegalStateException("no map read of the container's agent began after " + moment
        + " within 60 s; its log:\n" + kubelet.log()));
  }

}

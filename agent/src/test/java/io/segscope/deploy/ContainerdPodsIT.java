package io.segscope.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.segscope.agent.inventory.NetnsDiscovery;
import io.segscope.agent.workload.CriEndpoints;
import io.segscope.agent.workload.Workload;
import io.segscope.agent.workload.WorkloadKind;
import io.segscope.agent.workload.WorkloadResolver;
import io.segscope.agent.workload.Workloads;
import io.segscope.agent.workload.lab.HangingCri;
import io.segscope.exporters.SelfMetrics;
import io.segscope.lab.Lab;
import io.segscope.lab.containerd.PrivateContainerd;
import io.segscope.lab.containerd.PrivateContainerd.Pod;
import io.segscope.testkit.Await;
import io.segscope.testkit.deploy.RepoFiles;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue "pods and containers, not inode numbers", against a real container runtime: the lab's own
 * containerd (CRI plugin, runc, CNI bridge; see {@link PrivateContainerd}) creates pod sandboxes the
 * way the kubelet does; the agent jar, confined as the DaemonSet confines it (read-only root, so the
 * CRI socket is reached through a read-only mount, four capabilities), names every pod namespace and
 * pod veth after its pod from the CRI; a real Prometheus scrapes it, so the metrics' join, the
 * dashboards' pod selector and workload panels and the alert descriptions are checked on real data;
 * the recommendation for the seed scenario (S1: the receiver's host-side veth takes smaller GSO
 * super-packets than the sender's eth0 makes) names the pods; a CRI socket that never answers leaves
 * telemetry on time; without any CRI socket namespaces are named from cgroups without an error; and
 * teardown leaves nothing of containerd or CNI behind.
 */
@Tag("lab")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ContainerdPodsIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String K8S_NAMESPACE = "segscope-lab";
  private static final String[] FAST = {"--interval", "1s", "--advice-window", "3s", "--advice-open-after", "3s",
      "--advice-close-after", "5s", "--cri-timeout", "1s"};

  private Lab lab;
  private PrivateContainerd containerd;
  private HangingCri hanging;
  private Pod sender;
  private Pod receiver;
  private Pod hostNetwork;
  @TempDir
  Path tmp;

  @BeforeAll
  void startContainerdAndPods() throws Exception {
    PrivateContainerd.requirePrerequisites();
    Lab.sweepStale();
    lab = Lab.create("ContainerdPodsIT");
    long t0 = System.nanoTime();
    containerd = PrivateContainerd.start(lab, "198.18.40.0/24");
    sender = containerd.runPod("sender", K8S_NAMESPACE, false);
    receiver = containerd.runPod("receiver", K8S_NAMESPACE, false);
    hostNetwork = containerd.runPod("hostnet", K8S_NAMESPACE, true);
    // the seed: the receiver's host-side veth (a bridge port) takes 16 KiB super-packets, the sender's
    // eth0 makes 64 KiB ones, so they are segmented in software on their way out of that veth
    lab.exec(containerd.node(), "ip", "link", "set", "dev", receiver.hostVeth(), "gso_max_size", "16384");
    hanging = HangingCri.open(lab.workDir().resolve("hanging-cri.sock"));
    System.out.printf("containerd, pause image and 3 pod sandboxes ready in %d ms%n",
        (System.nanoTime() - t0) / 1_000_000);
  }

  @AfterAll
  void tearDown() throws Exception {
    try {
      if (hanging != null) {
        hanging.close();
      }
      if (containerd != null) {
        containerd.close();
      }
    } finally {
      if (lab != null) {
        lab.close();
        assertThat(lab.leftovers()).as("lab leftovers").isEmpty();
      }
    }
  }

  @Test
  @Order(1)
  void withoutACriSocketNamespacesAreNamedFromCgroupsAndNamesWithoutAnError() throws Exception {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    // no socket at any default place: the case of a host without Kubernetes, or a pod without the mount
    CriEndpoints none = new CriEndpoints(List.of(), false, List.of(lab.workDir().resolve("no-runtime.sock")));
    Workloads w;
    try (WorkloadResolver r = resolver(none, meters)) {
      w = r.resolveNow();
    }
    for (Pod p : List.of(sender, receiver)) {
      Workload got = w.byNetns().get(p.netnsInode());
      assertThat(got).as("workload of %s's namespace", p.name()).isNotNull();
      assertThat(got.kind()).isEqualTo(WorkloadKind.POD);
      assertThat(got.podUid()).as("pod uid from the kubepods cgroup path").isEqualTo(p.uid());
      assertThat(got.container()).as("the sandbox (pause) container's id from its cgroup").isEqualTo(p.id());
      assertThat(got.pod()).as("no runtime asked: no pod name").isEmpty();
      assertThat(got.source()).isEqualTo("cgroup");
    }
    assertThat(w.byNetns().get(containerd.node().inode()).process()).as("the node namespace's owner")
        .isEqualTo("containerd");
    assertThat(meters.get("segscope.workload.errors").tag("source", "cri").counter().count()).isZero();
    assertThat(meters.get("segscope.workload.errors").tag("source", "proc").counter().count()).isZero();
  }

  @Test
  @Order(2)
  void aCriSocketThatNeverAnswersCostsOneDeadlineAndNeverBlocksReaders() throws Exception {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (WorkloadResolver r = resolver(new CriEndpoints(List.of(hanging.path()), false, List.of()), meters)) {
      long t0 = System.nanoTime();
      r.resolveNow();
      long firstMs = (System.nanoTime() - t0) / 1_000_000;
      assertThat(firstMs).as("first round against a hanging runtime (deadline 1 s + 3 s to connect)")
          .isBetween(3900L, 6000L);
      t0 = System.nanoTime();
      Workloads w = r.resolveNow();
      long tookMs = (System.nanoTime() - t0) / 1_000_000;
      assertThat(tookMs).as("next round against a hanging runtime (deadline 1 s)").isBetween(900L, 3000L);
      assertThat(w.byNetns().get(sender.netnsInode()).podUid()).as("still named from its cgroup")
          .isEqualTo(sender.uid());
      assertThat(meters.get("segscope.workload.errors").tag("source", "cri").counter().count()).isEqualTo(2.0);
      assertThat(meters.get("segscope.cri.up").tag("endpoint", hanging.path().toString()).gauge().value()).isZero();
      // while the resolver's own thread waits on the runtime, readers get the last round at once
      r.start();
      long worst = 0;
      long end = System.nanoTime() + 2_500_000_000L;
      while (System.nanoTime() < end) {
        long a = System.nanoTime();
        assertThat(r.current().byNetns()).containsKey(sender.netnsInode());
        worst = Math.max(worst, System.nanoTime() - a);
        Thread.sleep(5); // paces the samples of current()'s latency, not a wait for a condition
      }
      assertThat(worst / 1_000_000).as("slowest current() while a round hangs, ms").isLessThan(50);
    }
    assertThat(hanging.accepted()).as("connections the hanging runtime accepted").isPositive();
  }

  @Test
  @Order(3)
  void theConfinedAgentNamesEveryPodOnTheApiMetricsDashboardsAlertsAndTheRecommendation() throws Exception {
    Tool.PROMETHEUS.require();
    Tool.UNSHARE.require();
    Tool.SETPRIV.require();
    List<String> args = new ArrayList<>(List.of(FAST));
    args.addAll(List.of("--cri-endpoint", containerd.socket().toString(), "--cri-endpoint",
        "unix://" + hanging.path(), "--netns-dir", containerd.netnsDir().toString()));
    try (ConfinedAgent agent = ConfinedAgent.start(jar(), tmp, args.toArray(String[]::new))) {
      agent.awaitReady(Duration.ofSeconds(90));
      JsonNode inv = awaitPodsNamed(agent, Duration.ofSeconds(30));

      // every pod namespace: its pod, from the CRI
      for (Pod p : List.of(sender, receiver)) {
        JsonNode w = namespace(inv, p.netnsInode()).path("workload");
        assertThat(w.path("kind").asText()).isEqualTo("pod");
        assertThat(w.path("pod").asText()).isEqualTo(p.name());
        assertThat(w.path("pod_namespace").asText()).isEqualTo(K8S_NAMESPACE);
        assertThat(w.path("pod_uid").asText()).isEqualTo(p.uid());
        assertThat(w.path("container").asText()).isEqualTo(p.id());
        assertThat(w.path("runtime").asText()).isEqualTo("containerd");
        assertThat(w.path("source").asText()).isEqualTo("cri");
        // every device of the pod: its eth0 in its namespace, and the host side of its veth
        JsonNode eth0 = device(inv, p.netnsInode(), "eth0");
        assertThat(eth0.path("workload").path("pod").asText()).isEqualTo(p.name());
        assertThat(eth0.path("workload").path("via").asText()).isEqualTo("netns");
        JsonNode veth = device(inv, containerd.node().inode(), p.hostVeth());
        assertThat(veth.path("workload").path("pod").asText()).as("host side of %s's veth", p.name())
            .isEqualTo(p.name());
        assertThat(veth.path("workload").path("via").asText()).isEqualTo("link");
        assertThat(veth.path("workload").path("netns").asLong()).isEqualTo(p.netnsInode());
      }
      // a hostNetwork pod has no namespace of its own: nothing is attributed to it. (Confined, the agent
      // cannot read containerd's /proc/PID/ns/net: the node namespace is known by its name.)
      JsonNode node = namespace(inv, containerd.node().inode()).path("workload");
      assertThat(node.path("kind").asText()).isIn("named", "process");
      assertThat(node.path("pod").asText()).isEmpty();
      assertThat(inv.toString()).doesNotContain("\"pod\":\"hostnet\"");
      assertThat(device(inv, containerd.node().inode(), "cni0").path("workload").path("kind").asText())
          .as("the bridge serves no single pod").isIn("named", "process");
      // the API's pod filter
      JsonNode only = JSON.readTree(agent.get("/api/v1/devices?pod=" + K8S_NAMESPACE + "/receiver").body());
      List<String> names = new ArrayList<>();
      only.path("devices").forEach(d -> names.add(d.path("netns").asLong() + "/" + d.path("name").asText()));
      assertThat(names).containsExactlyInAnyOrder(receiver.netnsInode() + "/eth0", receiver.netnsInode() + "/lo",
          containerd.node().inode() + "/" + receiver.hostVeth());

      String instance = "127.0.0.1:" + agent.port();
      Path promDir = Files.createDirectories(tmp.resolve("prometheus"));
      try (PrometheusServer prom = PrometheusServer.start(promDir, instance, RepoFiles.path(AlertRulesTest.RULES))) {
        String inst = "job=\"segscope\", instance=\"" + instance + "\"";
        // the metrics: one info series per namespace and per device
        for (Pod p : List.of(sender, receiver)) {
          prom.awaitNonEmpty("segscope_netns_info{" + inst + ", netns=\"" + p.netnsInode() + "\", pod=\"" + p.name()
              + "\", pod_namespace=\"" + K8S_NAMESPACE + "\", pod_uid=\"" + p.uid() + "\", container=\"" + p.id()
              + "\", workload_kind=\"pod\", workload=\"" + K8S_NAMESPACE + "/" + p.name() + "\", netns_name=\""
              + p.netnsPath().getFileName() + "\"}", Duration.ofSeconds(20));
          assertThat(prom.query("segscope_device_workload_info{" + inst + ", netns=\"" + containerd.node().inode()
              + "\", device=\"" + p.hostVeth() + "\", workload_netns=\"" + p.netnsInode() + "\", pod=\"" + p.name()
              + "\"}")).hasSize(1);
        }
        assertThat(prom.query("segscope_netns_info{" + inst + ", pod=\"hostnet\"}")).isEmpty();
        // the documented join (docs/metrics.md): a per-device series with the pod of its namespace
        JsonNode joined = prom.query("segscope_device_mtu_bytes{" + inst + "} * on (instance, netns) "
            + "group_left (pod_namespace, pod) segscope_netns_info{" + inst + ", pod=\"sender\"}");
        assertThat(joined).extracting(r -> r.path("metric").path("device").asText()).contains("eth0");

        // the dashboards' pod selector offers the pods, and the device drill-down narrows to a pod's devices
        assertThat(labelValues(prom, "pod", "segscope_device_workload_info{" + inst + "}"))
            .contains("sender", "receiver").doesNotContain("hostnet");
        assertThat(labelValues(prom, "netns", "segscope_device_workload_info{" + inst + ", pod=~\"receiver\"}"))
            .containsExactlyInAnyOrder(Long.toString(receiver.netnsInode()), Long.toString(containerd.node().inode()));

        // traffic between the pods: the recommendation names them
        JsonNode rec = awaitRecommendation(agent, Duration.ofSeconds(15));
        assertThat(rec.path("subject").path("device").asText()).isEqualTo(receiver.hostVeth());
        assertThat(rec.path("subject").path("workload").path("pod").asText()).isEqualTo("receiver");
        assertThat(rec.path("subject").path("workload").path("pod_namespace").asText()).isEqualTo(K8S_NAMESPACE);
        List<String> podsInvolved = new ArrayList<>();
        rec.path("devices").forEach(d -> podsInvolved.add(d.path("device").asText() + ":"
            + d.path("workload").path("pod").asText()));
        assertThat(podsInvolved).contains(receiver.hostVeth() + ":receiver");
        // issue 28: the host-side veth's 16384 is a setting (a veth takes 524280), so the fix raises it to what
        // the sender pod's eth0 uses, on the node, instead of shrinking the pod's super-packets
        assertThat(rec.path("evidence").path("limit_case").asText()).isEqualTo("setting");
        assertThat(rec.path("commands").get(0).asText()).as("the fix, on the node's side of the receiver's veth")
            .isEqualTo("ip -n " + containerd.node().name() + " link set dev " + receiver.hostVeth()
                + " gso_max_size 65536");
        List<String> argv = new ArrayList<>();
        rec.path("argv").get(0).forEach(a -> argv.add(a.asText()));
        assertThat(argv).containsExactly("ip", "-n", containerd.node().name(), "link", "set", "dev",
            receiver.hostVeth(), "gso_max_size", "65536");

        // the workload panels, with the pod selector on the receiver, show the receiver's cost
        checkWorkloadPanels(prom, instance);
        // the alert for the open recommendation carries and names the pod
        checkAlertNamesThePod(prom);
      }

      // a CRI socket that never answers: counted, marked down, and the map reads stay on their 1 s tick
      assertTelemetryOnTime(agent, Duration.ofSeconds(5));
      String metrics = agent.get("/metrics").body();
      assertThat(metrics).contains("segscope_cri_up{endpoint=\"" + hanging.path() + "\"} 0.0")
          .contains("segscope_cri_up{endpoint=\"" + containerd.socket() + "\"} 1.0")
          .containsPattern("segscope_workload_errors_total\\{source=\"cri\"} [1-9]");
      assertThat(hanging.accepted()).isPositive();
      assertThat(agent.log()).contains("CRI " + containerd.socket() + ": answering");
    }
  }

  /**
   * Every dashboard query over segscope_device_workload_info, with the pod selector set to the
   * receiver and the other variables to All (or the receiver's host-side veth on the drill-down),
   * answers only about the receiver; the GSO ones with its cost.
   */
  private void checkWorkloadPanels(PrometheusServer prom, String instance) throws Exception {
    int checked = 0;
    for (JsonNode d : Dashboards.all()) {
      String uid = d.path("uid").asText();
      Map<String, String> values = uid.equals("segscope-device")
          ? Map.of("job", "segscope", "instance", instance, "pod", "receiver",
              "netns", Long.toString(containerd.node().inode()), "device", receiver.hostVeth())
          : Map.of("job", "segscope", "instance", instance, "pod", "receiver", "netns", ".*",
              "device", ".*");
      for (Dashboards.Query q : Dashboards.queries(d)) {
        if (!q.expr().contains("segscope_device_workload_info")) {
          continue;
        }
        String expr = Dashboards.substitute(q.expr(), "15s", "1m", values);
        JsonNode result = q.expr().contains("segscope_gso_sw") ? prom.awaitNonEmpty(expr, Duration.ofSeconds(20))
            : prom.query(expr);
        if (q.expr().contains("segscope_xdp")) {
          assertThat(result).as("%s: no generic XDP in this lab", q.where()).isEmpty();
        } else {
          assertThat(result).as("%s: %s", q.where(), expr).isNotEmpty();
        }
        for (JsonNode r : result) {
          assertThat(r.path("metric").path("pod").asText()).as("%s answers about the receiver", q.where())
              .isEqualTo("receiver");
          if (q.expr().contains("segscope_gso_sw")) {
            assertThat(r.path("value").get(1).asDouble()).as("%s: cores", q.where()).isPositive();
          }
        }
        checked++;
      }
    }
    assertThat(checked).as("dashboard queries over the workload info").isGreaterThanOrEqualTo(4);
  }

  private void checkAlertNamesThePod(PrometheusServer prom) throws Exception {
    List<String> seen = new ArrayList<>();
    JsonNode a = Await.atMost(Duration.ofSeconds(20)).every(Duration.ofMillis(500)).pollOrFail(() -> {
      seen.clear();
      for (JsonNode alert : prom.api("/api/v1/alerts").path("alerts")) {
        JsonNode l = alert.path("labels");
        seen.add(l.path("alertname").asText() + " " + l.path("device").asText() + " " + l.path("pod").asText());
        if (l.path("alertname").asText().equals("SegscopeGsoSizeMismatch")
            && l.path("device").asText().equals(receiver.hostVeth())) {
          return Optional.of(alert);
        }
      }
      return Optional.empty();
    }, () -> "no SegscopeGsoSizeMismatch alert for " + receiver.hostVeth() + "; alerts: " + seen);
    JsonNode l = a.path("labels");
    assertThat(l.path("pod").asText()).isEqualTo("receiver");
    assertThat(l.path("pod_namespace").asText()).isEqualTo(K8S_NAMESPACE);
    assertThat(a.path("annotations").path("summary").asText()).contains("pod " + K8S_NAMESPACE + "/receiver");
    assertThat(a.path("annotations").path("description").asText())
        .contains("which serves pod " + K8S_NAMESPACE + "/receiver,");
  }

  private static Set<String> labelValues(PrometheusServer prom, String label, String match) throws Exception {
    Set<String> out = new TreeSet<>();
    prom.api("/api/v1/label/" + label + "/values?match[]=" + URLEncoder.encode(match, StandardCharsets.UTF_8))
        .forEach(n -> out.add(n.asText()));
    return out;
  }

  @Test
  @Order(4)
  void teardownRemovesTheSandboxesAndEverythingContainerdAndCniMade() throws Exception {
    for (Pod p : containerd.pods()) {
      containerd.removePod(p);
    }
    try (var s = Files.list(containerd.netnsDir())) {
      assertThat(s.toList()).as("pod namespace bind mounts after RemovePodSandbox").isEmpty();
    }
    assertThat(lab.exec(containerd.node(), "ip", "-o", "link", "show"))
        .as("veths in the node namespace after CNI DEL")
        .doesNotContain(sender.hostVeth()).doesNotContain(receiver.hostVeth());
    for (Pod p : List.of(sender, receiver, hostNetwork)) {
      assertThat(ProcessHandle.of(p.pid()).map(ProcessHandle::isAlive).orElse(false))
          .as("pause process of %s", p.name()).isFalse();
    }
    containerd.close();
    assertThat(containerd.leftovers()).as("what containerd and CNI left").isEmpty();
  }

  // ---- helpers

  private static Path jar() {
    String p = System.getProperty("segscope.jar");
    assertThat(p != null && Files.isRegularFile(Path.of(p)))
        .as("the agent jar (system property segscope.jar=%s): run with 'mvn verify'", p).isTrue();
    return Path.of(p);
  }

  private WorkloadResolver resolver(CriEndpoints endpoints, SimpleMeterRegistry meters) {
    NetnsDiscovery discovery = new NetnsDiscovery(Path.of("/proc"),
        List.of(Path.of("/run/netns"), containerd.netnsDir()));
    return new WorkloadResolver(new WorkloadResolver.Config(endpoints, Duration.ofSeconds(1), Duration.ofSeconds(10),
        Path.of("/proc")), discovery::scan, new SelfMetrics(meters), Clock.systemUTC());
  }

  /** Polls /api/v1/devices until both pods' namespaces are named from the CRI. */
  private JsonNode awaitPodsNamed(ConfinedAgent agent, Duration timeout) throws Exception {
    JsonNode[] inv = {null};
    return Await.atMost(timeout).every(Duration.ofMillis(250)).pollOrFail(() -> {
      inv[0] = JSON.readTree(agent.get("/api/v1/devices").body());
      return Optional.ofNullable(podsNamed(inv[0]) ? inv[0] : null);
    }, () -> "the pods were not named from the CRI within " + timeout + "; namespaces: "
        + (inv[0] == null ? "none" : inv[0].path("namespaces")) + "\nagent log:\n" + agent.log());
  }

  private boolean podsNamed(JsonNode inv) {
    return namespaceOrNull(inv, sender.netnsInode()) != null && namespaceOrNull(inv, receiver.netnsInode()) != null
        && "cri".equals(namespace(inv, sender.netnsInode()).path("workload").path("source").asText())
        && "cri".equals(namespace(inv, receiver.netnsInode()).path("workload").path("source").asText())
        && deviceOrNull(inv, containerd.node().inode(), receiver.hostVeth()) != null;
  }

  private static JsonNode namespaceOrNull(JsonNode inv, long inode) {
    for (JsonNode n : inv.path("namespaces")) {
      if (n.path("netns").asLong() == inode) {
        return n;
      }
    }
    return null;
  }

  private static JsonNode namespace(JsonNode inv, long inode) {
    JsonNode n = namespaceOrNull(inv, inode);
    assertThat(n).as("namespace %d in /api/v1/devices", inode).isNotNull();
    return n;
  }

  private static JsonNode deviceOrNull(JsonNode inv, long netns, String name) {
    for (JsonNode d : inv.path("devices")) {
      if (d.path("netns").asLong() == netns && d.path("name").asText().equals(name)) {
        return d;
      }
    }
    return null;
  }

  private static JsonNode device(JsonNode inv, long netns, String name) {
    JsonNode d = deviceOrNull(inv, netns, name);
    assertThat(d).as("device %s in netns %d in /api/v1/devices", name, netns).isNotNull();
    return d;
  }

  /** iperf3 from the sender pod to the receiver pod until the gso_size_mismatch recommendation opens. */
  private JsonNode awaitRecommendation(ConfinedAgent agent, Duration traffic) throws Exception {
    return PodIperf.awaitGsoSizeMismatch(sender, receiver, lab.workDir().resolve("iperf-server.log"),
        containerd.node().inode(), () -> agent.get("/api/v1/recommendations").body(), agent::log, traffic,
        Duration.ofSeconds(60));
  }

  /** The snapshot timestamp advances every --interval (1 s) while the hanging runtime is asked. */
  private static void assertTelemetryOnTime(ConfinedAgent agent, Duration watch) throws Exception {
    List<Double> stamps = new ArrayList<>();
    long worstScrapeMs = 0;
    long end = System.nanoTime() + watch.toNanos();
    Pattern stamp = Pattern.compile("(?m)^segscope_snapshot_timestamp_seconds (\\S+)$");
    while (System.nanoTime() < end) {
      long a = System.nanoTime();
      Matcher m = stamp.matcher(agent.get("/metrics").body());
      assertThat(m.find()).as("segscope_snapshot_timestamp_seconds in /metrics").isTrue();
      double t = Double.parseDouble(m.group(1));
      worstScrapeMs = Math.max(worstScrapeMs, (System.nanoTime() - a) / 1_000_000);
      if (stamps.isEmpty() || t != stamps.get(stamps.size() - 1)) {
        stamps.add(t);
      }
      Thread.sleep(200); // paces the scrapes over the watch, not a wait for a condition
    }
    assertThat(stamps.size()).as("distinct snapshot times in %s at a 1 s interval: %s", watch, stamps)
        .isGreaterThanOrEqualTo((int) watch.toSeconds() - 1);
    for (int i = 1; i < stamps.size(); i++) {
      assertThat(stamps.get(i) - stamps.get(i - 1)).as("gap between map reads, s: %s", stamps).isLessThan(2.5);
    }
    assertThat(worstScrapeMs).as("slowest scrape, ms").isLessThan(1000);
  }
}

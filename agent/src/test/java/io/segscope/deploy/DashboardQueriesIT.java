package io.segscope.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.segscope.lab.DeviceAt;
import io.segscope.lab.Lab;
import io.segscope.lab.LabTest;
import io.segscope.lab.Scenarios;
import io.segscope.lab.Topology;
import io.segscope.testkit.deploy.RepoFiles;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboards against the real thing: the agent jar, confined as the DaemonSet confines it, runs
 * while lab scenarios S1 (GSO size mismatch) and S3 (generic XDP) carry traffic; a real Prometheus
 * scrapes it every second and evaluates the alert rules. Then every query of every dashboard panel,
 * with the template variables set to the lab's netns and devices, must return data about those
 * devices; the rules must evaluate without errors; and {@code promtool check metrics} must find
 * nothing in the agent's exposition.
 *
 * <p>The one allowed gap: panels over {@code segscope_xdp_generic_copy_duration_seconds} when the
 * generic-XDP path runs only in tracepoint mode, which counts copies but cannot time them (the
 * test verifies that mode from the agent's own metrics before excusing them).
 */
class DashboardQueriesIT {
  private static final String RATE_INTERVAL = "15s";
  private static final String RANGE = "1m";
  private static final String XDP_COPY_TIME = "segscope_xdp_generic_copy_duration_seconds";

  @TempDir
  Path tmp;

  @Test
  @LabTest
  void everyDashboardQueryReturnsDataForTheLabDevices(Lab lab) throws Exception {
    Tool.PROMETHEUS.require();
    Tool.PROMTOOL.require();
    Tool.UNSHARE.require();
    Tool.SETPRIV.require();
    Path jar = jar();
    Topology s1 = Scenarios.s1GsoMismatch(lab, false);
    Topology s3 = Scenarios.s3GenericXdp(lab, false);
    DeviceAt uplink = s1.devices().get("uplink");
    DeviceAt xdpDevice = s3.devices().get("receiver");

    try (ConfinedAgent agent = ConfinedAgent.start(jar, tmp, "--interval", "1s", "--advice-window", "3s",
        "--advice-open-after", "3s", "--advice-close-after", "60s")) {
      agent.awaitReady(Duration.ofSeconds(90));
      assertThat(agent.effectiveCapabilities()).as("the agent's effective capabilities")
          .isEqualTo(new TreeSet<>(KubernetesManifestsTest.CAPABILITIES));
      String instance = "127.0.0.1:" + agent.port();
      Path promDir = Files.createDirectories(tmp.resolve("prometheus"));
      Path nativeDir = Files.createDirectories(tmp.resolve("prometheus-native"));
      try (PrometheusServer prom = PrometheusServer.start(promDir, instance,
          RepoFiles.path(AlertRulesTest.RULES));
          PrometheusServer nativeProm = PrometheusServer.start(nativeDir, instance,
              RepoFiles.path(AlertRulesTest.RULES), true)) {
        CompletableFuture<?> t1 = CompletableFuture.runAsync(
            () -> lab.iperf(s1.sender(), s1.receiver(), s1.receiverAddr(), Duration.ofSeconds(25)));
        CompletableFuture<?> t3 = CompletableFuture.runAsync(
            () -> lab.iperf(s3.sender(), s3.receiver(), s3.receiverAddr(), Duration.ofSeconds(25)));
        try {
          awaitLabSeries(prom, instance, uplink, xdpDevice);
          awaitLabSeries(nativeProm, instance, uplink, xdpDevice);
          // every rate window holds several samples: each Prometheus has scraped the lab series 5 times
          for (PrometheusServer p : List.of(prom, nativeProm)) {
            p.awaitNonEmpty("count_over_time(segscope_gso_sw_skbs_total{" + sel(instance, uplink) + "}[1m]) >= 5",
                Duration.ofSeconds(40));
          }
          checkEveryDashboardQuery(prom, "classic histograms", instance, uplink, xdpDevice);
          checkEveryDashboardQuery(nativeProm, "native histograms", instance, uplink, xdpDevice);
          checkNativeOnly(nativeProm, instance, uplink);
          checkWorkloadPanelsNameNamespacesWithoutPods(prom, instance, uplink, xdpDevice);
          checkVariablesOfferTheLabValues(prom, instance, uplink, xdpDevice);
          checkRulesEvaluate(prom, instance, uplink);
          checkRulesEvaluate(nativeProm, instance, uplink);
          checkExposition(agent);
        } finally {
          t1.get(120, TimeUnit.SECONDS);
          t3.get(120, TimeUnit.SECONDS);
        }
      } catch (AssertionError e) {
        throw new AssertionError(e.getMessage() + "\n--- agent log (tail) ---\n" + tail(agent.log()), e);
      }
    }
  }

  private static void awaitLabSeries(PrometheusServer prom, String instance, DeviceAt uplink, DeviceAt xdp)
      throws Exception {
    String up = sel(instance, uplink);
    String x = sel(instance, xdp);
    Duration t = Duration.ofSeconds(40);
    prom.awaitNonEmpty("rate(segscope_gso_sw_skbs_total{" + up + "}[10s]) > 0", t);
    prom.awaitNonEmpty("rate(segscope_xdp_generic_skbs_total{" + x + ", outcome=\"copied\"}[10s]) > 0", t);
    prom.awaitNonEmpty("segscope_recommendation_info{" + up + ", rule=\"gso_size_mismatch\"}", t);
    prom.awaitNonEmpty("segscope_recommendation_info{" + x + ", rule=\"generic_xdp_copy\"}", t);
  }

  private static String sel(String instance, DeviceAt d) {
    return "job=\"segscope\", instance=\"" + instance + "\", netns=\"" + d.ns().inode() + "\", device=\"" + d.name()
        + "\"";
  }

  /** What each dashboard's variables are set to, and which netns/devices its results may name. */
  private record Selection(Map<String, String> values, Set<String> netns, Set<String> devices) {}

  private static Selection selection(String uid, String instance, DeviceAt uplink, DeviceAt xdp) {
    String upNs = Long.toString(uplink.ns().inode());
    String xNs = Long.toString(xdp.ns().inode());
    return switch (uid) {
      case "segscope-overview" -> new Selection(Map.of("job", "segscope", "instance", instance, "pod", ".*",
          "netns", upNs + "|" + xNs, "device", uplink.name() + "|" + xdp.name()),
          Set.of(upNs, xNs), Set.of(uplink.name(), xdp.name()));
      case "segscope-device" -> new Selection(Map.of("job", "segscope", "instance", instance, "pod", ".*",
          "netns", upNs, "device", uplink.name()), Set.of(upNs), Set.of(uplink.name()));
      case "segscope-xdp" -> new Selection(Map.of("job", "segscope", "instance", instance, "pod", ".*",
          "netns", xNs, "device", xdp.name()), Set.of(xNs), Set.of(xdp.name()));
      case "segscope-agent" -> new Selection(Map.of("job", "segscope", "instance", instance), Set.of(), Set.of());
      default -> throw new AssertionError("no lab selection for dashboard " + uid);
    };
  }

  /**
   * The server with native histograms really stores the histograms as native ones only (Prometheus
   * 2.42 keeps no classic series of them), so its pass above proves the native half of each query.
   */
  private static void checkNativeOnly(PrometheusServer nativeProm, String instance, DeviceAt uplink) throws Exception {
    String up = sel(instance, uplink);
    assertThat(nativeProm.query("histogram_count(segscope_gso_sw_duration_seconds{" + up + "}) > 0"))
        .as("native histogram stored by the server with native histograms").isNotEmpty();
    for (String classic : List.of("_bucket", "_sum", "_count")) {
      assertThat(nativeProm.query("segscope_gso_sw_duration_seconds" + classic + "{" + up + "}"))
          .as("classic series %s on the server with native histograms", classic).isEmpty();
    }
  }

  private static void checkEveryDashboardQuery(PrometheusServer prom, String flavour, String instance, DeviceAt uplink,
      DeviceAt xdp) throws Exception {
    String agentSel = "job=\"segscope\", instance=\"" + instance + "\", path=\"xdp_generic\"";
    boolean copiesTimed =
        !prom.query("segscope_probe_attached{" + agentSel + ", mode=~\"kprobe|fentry\"} == 1").isEmpty();
    boolean tracepointOnly = !copiesTimed
        && !prom.query("segscope_probe_attached{" + agentSel + ", mode=\"tracepoint\"} == 1").isEmpty();
    List<String> failures = new ArrayList<>();
    List<String> excused = new ArrayList<>();
    int total = 0;
    int failed = 0;
    for (JsonNode d : Dashboards.all()) {
      String uid = d.path("uid").asText();
      Selection s = selection(uid, instance, uplink, xdp);
      for (Dashboards.Query q : Dashboards.queries(d)) {
        total++;
        String expr = Dashboards.substitute(q.expr(), RATE_INTERVAL, RANGE, s.values());
        JsonNode result = prom.query(expr);
        int before = failures.size();
        if (result.isEmpty()) {
          if (tracepointOnly && q.expr().contains(XDP_COPY_TIME)) {
            excused.add(q.where());
          } else {
            failures.add(q.where() + ": no data for " + expr);
            failed++;
          }
          continue;
        }
        for (JsonNode series : result) {
          JsonNode m = series.path("metric");
          // a query that does not filter on $device (the chain table: every device of the netns) may
          // name other devices, but only of the selected namespaces
          if (m.has("device") && q.expr().contains("$device") && !s.devices().contains(m.path("device").asText())) {
            failures.add(q.where() + ": returned device " + m.path("device").asText() + ", not one of " + s.devices());
          }
          if (m.has("netns") && !s.netns().contains(m.path("netns").asText())) {
            failures.add(q.where() + ": returned netns " + m.path("netns").asText() + ", not one of " + s.netns());
          }
          if (m.has("instance") && !m.path("instance").asText().equals(instance)) {
            failures.add(q.where() + ": returned instance " + m.path("instance").asText());
          }
        }
        failed += failures.size() > before ? 1 : 0;
      }
    }
    System.out.printf(
        "dashboard queries (" + flavour
            + "): %d, with data: %d, excused (copy time, tracepoint mode): %d, failed: %d%n",
        total, total - excused.size() - failed, excused.size(), failed);
    excused.forEach(e -> System.out.println("  excused: " + e));
    assertThat(failures).as("dashboard queries without data or about other devices (Prometheus with %s)", flavour)
        .isEmpty();
    assertThat(total).isGreaterThan(60);
  }

  /**
   * Issue 27: the workload panels list waste in namespaces without a pod too, named by their namespace's
   * name (this lab has no pod; the receiver of S3 runs iperf3, a plain process, which does not name it).
   */
  private static void checkWorkloadPanelsNameNamespacesWithoutPods(PrometheusServer prom, String instance,
      DeviceAt uplink, DeviceAt xdp) throws Exception {
    Map<String, DeviceAt> panels = Map.of("Top workloads by software-segmentation CPU", uplink,
        "Top workloads by generic-XDP copies", xdp);
    for (JsonNode d : Dashboards.all()) {
      for (Dashboards.Query q : Dashboards.queries(d)) {
        DeviceAt expected = panels.get(q.panelTitle());
        if (expected == null) {
          continue;
        }
        String expr = Dashboards.substitute(q.expr(), RATE_INTERVAL, RANGE,
            selection(d.path("uid").asText(), instance, uplink, xdp).values());
        List<String> listed = new ArrayList<>();
        for (JsonNode series : prom.query(expr)) {
          listed.add(series.path("metric").path("workload_kind").asText() + " "
              + series.path("metric").path("workload").asText());
        }
        assertThat(listed).as("%s lists the lab's namespace by its name", q.where())
            .contains("named " + expected.ns().name());
      }
    }
  }

  /** Each template variable, asked the way Grafana asks (label values of its selector), offers the lab's value. */
  private static void checkVariablesOfferTheLabValues(PrometheusServer prom, String instance, DeviceAt uplink,
      DeviceAt xdp) throws Exception {
    List<String> failures = new ArrayList<>();
    for (JsonNode d : Dashboards.all()) {
      Selection s = selection(d.path("uid").asText(), instance, uplink, xdp);
      for (Dashboards.VariableQuery v : Dashboards.variableQueries(d)) {
        String match = Dashboards.substitute(v.selector(), RATE_INTERVAL, RANGE, s.values());
        JsonNode values = prom.api("/api/v1/label/" + v.label() + "/values?match[]="
            + URLEncoder.encode(match, StandardCharsets.UTF_8));
        Set<String> offered = new TreeSet<>();
        values.forEach(n -> offered.add(n.asText()));
        Set<String> expected = switch (v.name()) {
          case "job" -> Set.of("segscope");
          case "instance" -> Set.of(instance);
          case "netns" -> s.netns();
          case "device" -> s.devices();
          case "pod" -> Set.of(); // no pods in this lab: ContainerdPodsIT asks for them with real pods
          default -> throw new AssertionError("unexpected variable " + v.name() + " in " + v.dashboard());
        };
        if (!offered.containsAll(expected)) {
          failures.add(v.dashboard() + " variable " + v.name() + " offers " + offered + " for " + match
              + ", missing " + expected);
        }
      }
    }
    assertThat(failures).as("template variables without the lab's values").isEmpty();
  }

  private static void checkRulesEvaluate(PrometheusServer prom, String instance, DeviceAt uplink) throws Exception {
    JsonNode groups = prom.api("/api/v1/rules").path("groups");
    List<String> broken = new ArrayList<>();
    int rules = 0;
    for (JsonNode g : groups) {
      for (JsonNode r : g.path("rules")) {
        rules++;
        if (!r.path("health").asText().equals("ok")) {
          broken.add(r.path("name").asText() + ": " + r.path("health").asText() + " " + r.path("lastError").asText());
        }
      }
    }
    assertThat(rules).isEqualTo(AlertRulesTest.alertRules().size());
    assertThat(broken).as("rules that failed to evaluate").isEmpty();
    List<String> active = new ArrayList<>();
    for (JsonNode a : prom.api("/api/v1/alerts").path("alerts")) {
      JsonNode l = a.path("labels");
      active.add(l.path("alertname").asText() + "/" + l.path("path").asText("") + l.path("device").asText("")
          + "/" + l.path("netns").asText("") + "=" + a.path("state").asText());
    }
    System.out.println("active alerts: " + active);
    // with real data: the mismatch the lab built is alerted on (pending until its `for:` passes), the
    // tracepoint-only paths are reported, and the agent is not reported down
    assertThat(active).contains("SegscopeGsoSizeMismatch/" + uplink.name() + "/" + uplink.ns().inode() + "=pending",
        "SegscopeProbeDegradedMode/gso_tx/=pending");
    assertThat(active).noneMatch(a -> a.startsWith("SegscopeAgentDown") || a.startsWith("SegscopeProbeDetached"));
  }

  private void checkExposition(ConfinedAgent agent) throws Exception {
    HttpResponse<String> r = agent.get("/metrics");
    assertThat(r.statusCode()).isEqualTo(200);
    Path scrape = tmp.resolve("scrape.txt");
    Files.writeString(scrape, r.body());
    Tool.Result check = Tool.PROMTOOL.runWithInput(tmp, scrape, "check", "metrics");
    assertThat(check.exitCode()).as("promtool check metrics said:%n%s", check.output()).isZero();
    assertThat(check.output()).as("promtool check metrics findings").isBlank();
  }

  private static Path jar() {
    String p = System.getProperty("segscope.jar");
    assertThat(p != null && Files.isRegularFile(Path.of(p)))
        .as("the agent jar (system property segscope.jar=%s): run with 'mvn verify'", p).isTrue();
    return Path.of(p);
  }

  private static String tail(String log) {
    String[] lines = log.split("\n");
    return String.join("\n", Arrays.copyOfRange(lines, Math.max(0, lines.length - 40), lines.length));
  }
}

package io.segscope.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.segscope.testkit.deploy.RepoFiles;
import io.segscope.testkit.deploy.Tree;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/** Structure of the Grafana dashboards and the PromQL in them. */
class DashboardsTest {
  private static final Map<String, String> EXPECTED = Map.of(
      "segscope-overview", "segscope — Segmentation cost overview",
      "segscope-device", "segscope — Device drill-down",
      "segscope-xdp", "segscope — Generic XDP",
      "segscope-agent", "segscope — Agent health");
  private static final Set<String> GRAFANA_BUILTINS = Set.of("__rate_interval", "__range");
  private static final String DS_UID = "${datasource}";

  @TempDir
  Path tmp;

  @Test
  void theFourDashboardsExistWithUniqueUidsAndTitles() {
    Map<String, String> found = new HashMap<>();
    for (JsonNode d : Dashboards.all()) {
      String uid = d.path("uid").asText();
      assertThat(found.put(uid, d.path("title").asText())).as("uid %s used once", uid).isNull();
    }
    assertThat(found).isEqualTo(EXPECTED);
  }

  @Test
  void dashboardsAreProvisionable() {
    SoftAssertions soft = new SoftAssertions();
    for (JsonNode d : Dashboards.all()) {
      String uid = d.path("uid").asText();
      soft.assertThat(d.path("id").isNull()).as("%s: id is null (Grafana assigns it)", uid).isTrue();
      soft.assertThat(d.path("schemaVersion").asInt()).as("%s schemaVersion", uid).isBetween(36, 41);
      soft.assertThat(d.path("tags").toString()).as("%s tags", uid).contains("\"segscope\"");
      soft.assertThat(d.path("description").asText()).as("%s description", uid).isNotBlank();
      soft.assertThat(d.path("__inputs").isMissingNode())
          .as("%s has no __inputs (an export for sharing, not for provisioning)", uid).isTrue();
    }
    soft.assertAll();
  }

  @Test
  void everyDashboardHasAPrometheusDatasourceVariableThatEveryQueryUses() {
    SoftAssertions soft = new SoftAssertions();
    for (JsonNode d : Dashboards.all()) {
      String uid = d.path("uid").asText();
      JsonNode ds = variable(d, "datasource");
      soft.assertThat(ds).as("%s: variable datasource", uid).isNotNull();
      if (ds != null) {
        soft.assertThat(ds.path("type").asText()).as("%s datasource variable type", uid).isEqualTo("datasource");
        soft.assertThat(ds.path("query").asText()).as("%s datasource variable query", uid).isEqualTo("prometheus");
      }
      for (JsonNode v : d.path("templating").path("list")) {
        if (v.path("type").asText().equals("query")) {
          soft.assertThat(v.path("datasource").path("uid").asText())
              .as("%s variable %s datasource", uid, v.path("name").asText()).isEqualTo(DS_UID);
        }
      }
      for (JsonNode p : Dashboards.panels(d)) {
        if (p.path("type").asText().equals("row")) {
          continue;
        }
        String where = uid + " panel " + p.path("id").asInt() + " \"" + p.path("title").asText() + "\"";
        soft.assertThat(p.path("datasource").path("uid").asText()).as("%s datasource", where).isEqualTo(DS_UID);
        soft.assertThat(p.path("datasource").path("type").asText()).as("%s datasource type", where)
            .isEqualTo("prometheus");
        soft.assertThat(p.path("targets").size()).as("%s has targets", where).isPositive();
        for (JsonNode t : p.path("targets")) {
          soft.assertThat(t.path("datasource").path("uid").asText()).as("%s target %s datasource", where,
              t.path("refId").asText()).isEqualTo(DS_UID);
        }
      }
    }
    soft.assertAll();
  }

  @Test
  void deviceDashboardsFilterByNetnsAndDeviceFromLabelValues() {
    SoftAssertions soft = new SoftAssertions();
    for (JsonNode d : Dashboards.all()) {
      String uid = d.path("uid").asText();
      Set<String> vars = new TreeSet<>();
      Dashboards.variableQueries(d).forEach(v -> vars.add(v.name()));
      soft.assertThat(vars).as("%s variables", uid).contains("job", "instance");
      if (!uid.equals("segscope-agent")) {
        soft.assertThat(vars).as("%s variables", uid).contains("netns", "device");
        for (Dashboards.VariableQuery v : Dashboards.variableQueries(d)) {
          if (v.name().equals("netns") || v.name().equals("device")) {
            soft.assertThat(v.label()).as("%s variable %s label", uid, v.name()).isEqualTo(v.name());
          }
        }
        for (Dashboards.Query q : Dashboards.queries(d)) {
          if (q.expr().contains("segscope_gso") || q.expr().contains("segscope_xdp")) {
            soft.assertThat(q.expr()).as("%s filters by netns and device", q.where())
                .contains("netns=~\"$netns\"".replace("=~", uid.equals("segscope-device") ? "=" : "=~"))
                .contains("device=~\"$device\"".replace("=~", uid.equals("segscope-device") ? "=" : "=~"));
          }
        }
      }
    }
    soft.assertAll();
  }

  @Test
  void panelIdsAreUniqueAndPanelsFitTheGridWithoutOverlap() {
    SoftAssertions soft = new SoftAssertions();
    for (JsonNode d : Dashboards.all()) {
      String uid = d.path("uid").asText();
      Set<Integer> ids = new HashSet<>();
      List<int[]> boxes = new ArrayList<>();
      for (JsonNode p : Dashboards.panels(d)) {
        int id = p.path("id").asInt(-1);
        soft.assertThat(id).as("%s panel \"%s\" id", uid, p.path("title").asText()).isPositive();
        soft.assertThat(ids.add(id)).as("%s panel id %d unique", uid, id).isTrue();
        JsonNode g = p.path("gridPos");
        int[] box = {g.path("x").asInt(), g.path("y").asInt(), g.path("w").asInt(), g.path("h").asInt(), id};
        soft.assertThat(box[0] + box[2]).as("%s panel %d fits 24 columns", uid, id).isLessThanOrEqualTo(24);
        soft.assertThat(box[2] > 0 && box[3] > 0).as("%s panel %d has a size", uid, id).isTrue();
        for (int[] other : boxes) {
          boolean overlap = box[0] < other[0] + other[2] && other[0] < box[0] + box[2]
              && box[1] < other[1] + other[3] && other[1] < box[1] + box[3];
          soft.assertThat(overlap).as("%s panels %d and %d overlap", uid, id, other[4]).isFalse();
        }
        boxes.add(box);
      }
    }
    soft.assertAll();
  }

  @Test
  void everyPanelHasATitleADescriptionAndAUnit() {
    SoftAssertions soft = new SoftAssertions();
    for (JsonNode d : Dashboards.all()) {
      for (JsonNode p : Dashboards.panels(d)) {
        String type = p.path("type").asText();
        if (type.equals("row")) {
          continue;
        }
        String where =
            d.path("uid").asText() + " panel " + p.path("id").asInt() + " \"" + p.path("title").asText() + "\"";
        soft.assertThat(p.path("title").asText()).as("%s title", where).isNotBlank();
        soft.assertThat(p.path("description").asText()).as("%s description", where).isNotBlank();
        soft.assertThat(p.path("fieldConfig").path("defaults").path("unit").asText()).as("%s unit", where)
            .isNotBlank();
        if (type.equals("heatmap")) {
          soft.assertThat(p.path("options").path("yAxis").path("unit").asText()).as("%s y-axis unit", where)
              .isNotBlank();
          soft.assertThat(p.path("options").path("calculate").asBoolean(true))
              .as("%s uses the histogram's own buckets (calculate off)", where).isFalse();
          for (JsonNode t : p.path("targets")) {
            soft.assertThat(t.path("format").asText()).as("%s target format", where).isEqualTo("heatmap");
            soft.assertThat(t.path("expr").asText()).as("%s target", where).contains("_bucket").contains("by (le)");
          }
        }
      }
    }
    soft.assertAll();
  }

  /**
   * A Prometheus with native histograms enabled stores segscope's histograms as native ones only
   * (2.42: no _bucket, _sum, _count series), one without them only the classic series. Every query
   * of a histogram family therefore asks both ways: each classic {@code histogram_quantile} over
   * {@code _bucket} comes after the same quantile of the native series and {@code or}, each rate of
   * {@code _sum}/{@code _count} is paired with {@code histogram_sum}/{@code histogram_count} of the
   * native rate. (DashboardQueriesIT runs every query against both kinds of server.)
   */
  @Test
  void histogramQueriesWorkWithNativeAndClassicHistograms() {
    Pattern bucket = Pattern.compile(
        "histogram_quantile\\(([0-9.]+), sum by \\(([^)]*)\\) \\(rate\\((segscope_\\w+)_bucket(\\{[^}]*\\})\\[([^\\]]+)\\]");
    Pattern sumOrCount = Pattern.compile(
        "rate\\((segscope_\\w+)_(sum|count)(\\{[^}]*\\})?\\[([^\\]]+)\\]\\)");
    SoftAssertions soft = new SoftAssertions();
    int quantiles = 0;
    int sums = 0;
    List<String> exprs = new ArrayList<>();
    for (JsonNode d : Dashboards.all()) {
      Dashboards.queries(d).forEach(q -> exprs.add(q.expr()));
    }
    for (Map<String, Object> r : AlertRulesTest.alertRules()) {
      exprs.add(String.valueOf(r.get("expr")));
    }
    for (String e : exprs) {
      Matcher m = bucket.matcher(e);
      while (m.find()) {
        quantiles++;
        String by = Arrays.stream(m.group(2).split(",")).map(String::strip).filter(l -> !l.equals("le"))
            .collect(Collectors.joining(", "));
        String nativeForm =
            "histogram_quantile(" + m.group(1) + ", " + (by.isEmpty() ? "sum(" : "sum by (" + by + ") (")
                + "rate(" + m.group(3) + m.group(4) + "[" + m.group(5) + "])))";
        soft.assertThat(e).as("native form before the classic quantile").contains(nativeForm + " or histogram_quantile("
            + m.group(1) + ", sum by (" + m.group(2) + ") (rate(" + m.group(3) + "_bucket");
      }
      m = sumOrCount.matcher(e);
      while (m.find()) {
        if (!NATIVE_FAMILIES.contains(m.group(1))) {
          continue;
        }
        sums++;
        String sel = m.group(3) == null ? "" : m.group(3);
        soft.assertThat(e).as("native form beside %s", m.group())
            .contains("(" + m.group() + " or histogram_" + m.group(2) + "(rate(" + m.group(1) + sel + "[" + m.group(4)
                + "])))");
      }
    }
    soft.assertThat(quantiles).as("classic quantile queries found").isGreaterThanOrEqualTo(10);
    soft.assertThat(sums).as("_sum/_count rates of histogram families found").isGreaterThanOrEqualTo(15);
    soft.assertAll();
  }

  /** The families the agent exports as histograms (native and classic buckets from the same counts). */
  private static final Set<String> NATIVE_FAMILIES = Set.of("segscope_gso_sw_duration_seconds",
      "segscope_gso_sw_segments_per_skb", "segscope_xdp_generic_copy_duration_seconds");

  @Test
  void cpuPanelsShowCores() {
    // an expression that is only rate() of a *_seconds_sum / *_seconds_total counter is CPU time per
    // second: cores. (Divided by a count it becomes time per event: seconds.)
    SoftAssertions soft = new SoftAssertions();
    int cpuPanels = 0;
    for (JsonNode d : Dashboards.all()) {
      for (JsonNode p : Dashboards.panels(d)) {
        for (JsonNode t : p.path("targets")) {
          String e = t.path("expr").asText();
          boolean cpu = e.contains("rate(") && !e.contains("/") && !e.contains("histogram_quantile")
              && (e.contains("_duration_seconds_sum") || e.contains("_run_seconds_total")
                  || e.contains("process_cpu_seconds_total"));
          if (cpu && !p.path("type").asText().equals("table")) {
            cpuPanels++;
            soft.assertThat(p.path("fieldConfig").path("defaults").path("unit").asText())
                .as("%s panel \"%s\"", d.path("uid").asText(), p.path("title").asText()).isEqualTo("suffix: cores");
          }
        }
      }
    }
    soft.assertThat(cpuPanels).as("CPU panels found").isGreaterThanOrEqualTo(8);
    soft.assertAll();
  }

  @Test
  void everyQueryUsesOnlyContractSeriesAndLabelsAndDefinedVariables() {
    SoftAssertions soft = new SoftAssertions();
    for (JsonNode d : Dashboards.all()) {
      Set<String> defined = new TreeSet<>(GRAFANA_BUILTINS);
      d.path("templating").path("list").forEach(v -> defined.add(v.path("name").asText()));
      for (Dashboards.Query q : Dashboards.queries(d)) {
        soft.assertThat(q.expr()).as("%s expr", q.where()).isNotBlank();
        PromQl.Lint lint = PromQl.lint(q.expr());
        soft.assertThat(lint.problems()).as("%s: %s", q.where(), q.expr()).isEmpty();
        soft.assertThat(defined).as("%s variables %s", q.where(), lint.variables()).containsAll(lint.variables());
      }
      for (Dashboards.VariableQuery v : Dashboards.variableQueries(d)) {
        PromQl.Lint lint = PromQl.lint(v.selector());
        soft.assertThat(lint.problems()).as("%s variable %s: %s", v.dashboard(), v.name(), v.selector()).isEmpty();
        for (String s : lint.series()) {
          soft.assertThat(MetricContract.labels(s).orElse(Set.of()))
              .as("%s variable %s: label %s on %s", v.dashboard(), v.name(), v.label(), s).contains(v.label());
        }
        soft.assertThat(defined).as("%s variable %s refers to", v.dashboard(), v.name())
            .containsAll(lint.variables());
      }
    }
    soft.assertAll();
  }

  @Test
  void everyQueryParsesInPromtool() {
    // promtool cannot check a lone expression, but `promtool check rules` parses each recording rule's
    // expression with Prometheus' own parser.
    Tool promtool = Tool.PROMTOOL.require();
    List<Map<String, Object>> rules = new ArrayList<>();
    Map<String, String> where = new LinkedHashMap<>();
    Map<String, String> values = Map.of("job", "segscope", "instance", "node-a:9810", "netns", "4026531840",
        "device", "eth0", "datasource", "prometheus", "pod", ".*");
    for (Dashboards.Query q : Dashboards.allQueries()) {
      String record = "dashboard:query_" + rules.size();
      rules.add(Map.of("record", record, "expr", Dashboards.substitute(q.expr(), "1m", "1h", values)));
      where.put(record, q.where());
    }
    for (JsonNode d : Dashboards.all()) {
      for (Dashboards.VariableQuery v : Dashboards.variableQueries(d)) {
        String record = "dashboard:variable_" + rules.size();
        rules.add(Map.of("record", record, "expr", Dashboards.substitute(v.selector(), "1m", "1h", values)));
        where.put(record, v.dashboard() + " variable " + v.name());
      }
    }
    assertThat(rules).hasSizeGreaterThan(60);
    DumperOptions opts = new DumperOptions();
    opts.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    String yaml = new Yaml(opts).dump(Map.of("groups", List.of(Map.of("name", "dashboards", "rules", rules))));
    Path file = tmp.resolve("dashboard-queries.yaml");
    try {
      Files.writeString(file, yaml);
    } catch (IOException e) {
      throw new AssertionError("write " + file + ": " + e.getMessage(), e);
    }
    Tool.Result r = promtool.run(tmp, "check", "rules", file.toString());
    assertThat(r.exitCode()).as("promtool check rules on %d dashboard queries said:%n%s%nrules: %s", rules.size(),
        r.output(), where).isZero();
    assertThat(r.output()).contains("SUCCESS: " + rules.size() + " rules found");
  }

  @Test
  void deviceDrillDownHasTheHeatmapQuantilesCausesLimitsFeaturesAndChain() {
    JsonNode d = dashboard("segscope-device");
    String all = Dashboards.queries(d).stream().map(Dashboards.Query::expr).collect(Collectors.joining("\n"));
    for (String q : List.of("0.5", "0.9", "0.99")) {
      assertThat(all)
          .contains("histogram_quantile(" + q + ", sum by (le) (rate(segscope_gso_sw_duration_seconds_bucket");
    }
    assertThat(all).contains("segscope_gso_sw_segments_per_skb_sum",
        "sum by (cause) (rate(segscope_gso_sw_cause_skbs_total",
        "segscope_device_gso_max_size_bytes", "segscope_device_tso_max_size_bytes", "segscope_device_gso_max_segments",
        "segscope_device_mtu_bytes", "segscope_device_feature_active", "segscope_device_info");
    assertThat(types(d)).contains("heatmap", "state-timeline", "table");
  }

  @Test
  void agentHealthShowsProbesByModeRunTimePerRunScrapeDurationAndErrors() {
    String all = Dashboards.queries(dashboard("segscope-agent")).stream().map(Dashboards.Query::expr)
        .collect(Collectors.joining("\n"));
    assertThat(all).contains("sum by (instance, path, mode) (segscope_probe_attached",
        "rate(segscope_probe_run_seconds_total", "/ sum by (instance, program) (rate(segscope_probe_runs_total",
        "scrape_duration_seconds{job=\"$job\"", "segscope_map_read_errors_total", "segscope_exporter_errors_total",
        "segscope_map_read_seconds_sum", "segscope_probe_diagnostic_total");
  }

  @Test
  void overviewShowsCostPerHostAndDeviceTopDevicesAndRecommendations() {
    JsonNode d = dashboard("segscope-overview");
    String all = Dashboards.queries(d).stream().map(Dashboards.Query::expr).collect(Collectors.joining("\n"));
    // software-GSO CPU is estimated: the exact count x the mean of the durations timed in the windows
    String estimate = "((rate(segscope_gso_sw_skbs_total{job=\"$job\", instance=~\"$instance\", netns=~\"$netns\", "
        + "device=~\"$device\"}[$__rate_interval]) * ((rate(segscope_gso_sw_duration_seconds_sum{";
    assertThat(all).contains("sum by (instance) " + estimate, "sum by (instance, netns, device) " + estimate,
        "rate(segscope_gso_sw_duration_seconds_count{");
    assertThat(Dashboards.queries(d)).as("a software-GSO CPU panel that sums only the timed durations")
        .noneMatch(q -> q.expr().contains("segscope_gso_sw_duration_seconds_sum")
            && !q.expr().contains("segscope_gso_sw_duration_seconds_count"));
    assertThat(all).contains(
        "segscope_gso_offloaded_skbs_total", "topk(10,", "segscope_recommendation_info",
        "segscope_recommendation_cpu_saving_ratio", "outcome=\"copied\"");
  }

  @Test
  void genericXdpShowsCopiedVsPassedBytesAndCopyTime() {
    String all = Dashboards.queries(dashboard("segscope-xdp")).stream().map(Dashboards.Query::expr)
        .collect(Collectors.joining("\n"));
    assertThat(all).contains("sum by (outcome) (rate(segscope_xdp_generic_skbs_total",
        "segscope_xdp_generic_copied_bytes_total", "histogram_quantile(0.99, sum by (instance, netns, device, le)");
  }

  @Test
  void costDashboardsHaveAPodSelectorAndWorkloadPanelsJoinedOnTheWorkloadInfo() {
    String join = "* on (instance, netns, device) group_left (workload_kind, workload, pod_namespace, pod) "
        + "max by (instance, netns, device, workload_kind, workload, pod_namespace, pod) (segscope_device_workload_info{";
    SoftAssertions soft = new SoftAssertions();
    for (String uid : List.of("segscope-overview", "segscope-device", "segscope-xdp")) {
      JsonNode d = dashboard(uid);
      Dashboards.VariableQuery pod = Dashboards.variableQueries(d).stream().filter(v -> v.name().equals("pod"))
          .findFirst().orElse(null);
      soft.assertThat(pod).as("%s: variable pod", uid).isNotNull();
      if (pod != null) {
        soft.assertThat(pod.label()).as("%s pod variable label", uid).isEqualTo("pod");
        soft.assertThat(pod.selector()).as("%s pod variable selector", uid)
            .startsWith("segscope_device_workload_info{job=\"$job\", instance");
        JsonNode v = variable(d, "pod");
        soft.assertThat(v.path("includeAll").asBoolean()).as("%s pod: All", uid).isTrue();
        soft.assertThat(v.path("allValue").asText()).as("%s pod: All matches devices of no pod too", uid)
            .isEqualTo(".*");
      }
      for (Dashboards.Query q : Dashboards.queries(d)) {
        if (q.expr().contains("segscope_device_workload_info") && !uid.equals("segscope-device")) {
          soft.assertThat(q.expr()).as("%s follows the pod selector", q.where()).contains("pod=~\"$pod\"")
              .contains(join);
        }
      }
    }
    JsonNode overview = dashboard("segscope-overview");
    Dashboards.Query top = Dashboards.queries(overview).stream()
        .filter(q -> q.panelTitle().equals("Top workloads by software-segmentation CPU")).findFirst().orElseThrow();
    soft.assertThat(top.expr()).startsWith("topk(10, sum by (instance, workload_kind, workload, pod_namespace, pod) ("
        + "sum by (instance, netns, device) ((rate(segscope_gso_sw_skbs_total{").contains("[$__range]")
        .contains("rate(segscope_gso_sw_duration_seconds_count{")
        .contains(join);
    soft.assertThat(top.format()).isEqualTo("table");
    soft.assertThat(Dashboards.queries(overview).stream().map(Dashboards.Query::panelTitle))
        .contains("CPU on software GSO per workload");
    soft.assertThat(Dashboards.queries(dashboard("segscope-xdp")).stream().map(Dashboards.Query::panelTitle))
        .contains("Top workloads by generic-XDP copies");
    JsonNode device = dashboard("segscope-device");
    for (Dashboards.VariableQuery v : Dashboards.variableQueries(device)) {
      if (v.name().equals("netns") || v.name().equals("device")) {
        soft.assertThat(v.selector()).as("segscope-device %s follows the pod", v.name()).contains("pod=~\"$pod\"");
      }
    }
    soft.assertThat(
        Dashboards.queries(device).stream().filter(q -> q.panelTitle().equals("Workload this device serves"))
            .map(Dashboards.Query::expr).findFirst().orElse(""))
        .contains("segscope_device_workload_info{job=\"$job\", "
            + "instance=\"$instance\", netns=\"$netns\", device=\"$device\"}");
    soft.assertAll();
  }

  @Test
  void provisioningFilesDeclareAFileProviderAndAPrometheusDatasource() {
    Map<String, Object> provider = RepoFiles.yaml("grafana/provisioning/dashboards.yaml");
    assertThat(Tree.at(provider, "apiVersion")).isEqualTo(1);
    Map<String, Object> p = Tree.maps(provider, "providers").get(0);
    assertThat(Tree.str(p, "type")).isEqualTo("file");
    assertThat(Tree.str(p, "options.path")).startsWith("/");
    Map<String, Object> ds = RepoFiles.yaml("grafana/provisioning/datasource.example.yaml");
    assertThat(Tree.str(Tree.maps(ds, "datasources").get(0), "type")).isEqualTo("prometheus");
  }

  private static JsonNode variable(JsonNode dashboard, String name) {
    for (JsonNode v : dashboard.path("templating").path("list")) {
      if (v.path("name").asText().equals(name)) {
        return v;
      }
    }
    return null;
  }

  private static JsonNode dashboard(String uid) {
    return Dashboards.all().stream().filter(d -> d.path("uid").asText().equals(uid)).findFirst()
        .orElseThrow(() -> new AssertionError("no dashboard " + uid));
  }

  private static Set<String> types(JsonNode d) {
    Set<String> t = new TreeSet<>();
    Dashboards.panels(d).forEach(p -> t.add(p.path("type").asText()));
    return t;
  }
}

package io.segscope.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.testkit.deploy.RepoFiles;
import io.segscope.testkit.deploy.Tree;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * The Prometheus alert rules: promtool accepts them and their unit tests pass, every alert is
 * tested both firing and not firing, and each alert carries what an operator needs.
 */
class AlertRulesTest {
  static final String RULES = "deploy/prometheus/segscope-rules.yaml";
  private static final String TESTS = "deploy/prometheus/tests";
  private static final Set<String> SEVERITIES = Set.of("info", "warning", "critical");
  private static final Set<String> EXPECTED = Set.of("SegscopeSoftwareGsoCpuHigh", "SegscopeGsoSizeMismatch",
      "SegscopeOffloadDisabled", "SegscopeGenericXdpCopies", "SegscopeGenericXdpCopyCpuHigh",
      "SegscopeProbeDetached", "SegscopeProbeDegradedMode", "SegscopeAgentDown", "SegscopeTelemetryStale",
      "SegscopeMapReadErrors", "SegscopeExporterErrors", "SegscopeStatsMapFull");
  private static final Pattern ANCHOR = Pattern.compile("^docs/runbook\\.md#([a-z0-9-]+)$");

  static List<Map<String, Object>> alertRules() {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Map<String, Object> g : Tree.maps(RepoFiles.yaml(RULES), "groups")) {
      for (Map<String, Object> r : Tree.maps(g, "rules")) {
        if (r.containsKey("alert")) {
          out.add(r);
        }
      }
    }
    return out;
  }

  @Test
  void theRuleFileHoldsTheExpectedAlertsOnce() {
    List<String> names = alertRules().stream().map(r -> Tree.str(r, "alert")).toList();
    assertThat(names).doesNotHaveDuplicates();
    assertThat(new TreeSet<>(names)).isEqualTo(new TreeSet<>(EXPECTED));
  }

  @Test
  void promtoolChecksTheRules() {
    Tool.Result r = Tool.PROMTOOL.require().run(RepoFiles.root(), "check", "rules", RULES);
    assertThat(r.exitCode()).as("promtool check rules said:%n%s", r.output()).isZero();
    assertThat(r.output()).contains("SUCCESS: " + EXPECTED.size() + " rules found");
  }

  @Test
  void promtoolUnitTestsPass() {
    List<String> args = new ArrayList<>(List.of("test", "rules"));
    List<Path> files = RepoFiles.list(TESTS, ".yaml");
    assertThat(files).isNotEmpty();
    files.forEach(f -> args.add(f.toString()));
    Tool.Result r = Tool.PROMTOOL.require().run(RepoFiles.root(), args.toArray(String[]::new));
    assertThat(r.exitCode()).as("promtool test rules said:%n%s", r.output()).isZero();
    assertThat(r.output()).doesNotContain("FAILED");
  }

  @Test
  void everyAlertIsUnitTestedFiringAndNotFiring() {
    Map<String, int[]> seen = new HashMap<>(); // alert -> {firing cases, silent cases}
    for (Path f : RepoFiles.list(TESTS, ".yaml")) {
      assertThat(Tree.list(RepoFiles.yaml(f), "rule_files")).as("%s rule_files", f)
          .containsExactly("../segscope-rules.yaml");
      for (Map<String, Object> test : Tree.maps(RepoFiles.yaml(f), "tests")) {
        Object cases = test.get("alert_rule_test");
        if (cases == null) {
          continue;
        }
        for (Map<String, Object> c : Tree.maps(test, "alert_rule_test")) {
          Object exp = c.get("exp_alerts");
          boolean firing = exp instanceof List<?> l && !l.isEmpty();
          seen.computeIfAbsent(Tree.str(c, "alertname"), k -> new int[2])[firing ? 0 : 1]++;
          if (firing) {
            for (Map<String, Object> a : Tree.maps(c, "exp_alerts")) {
              assertThat(a).as("%s: a firing case of %s checks the annotations", f, c.get("alertname"))
                  .containsKeys("exp_labels", "exp_annotations");
            }
          }
        }
      }
    }
    SoftAssertions soft = new SoftAssertions();
    for (String alert : EXPECTED) {
      int[] n = seen.getOrDefault(alert, new int[2]);
      soft.assertThat(n[0]).as("%s: cases where it fires", alert).isPositive();
      soft.assertThat(n[1]).as("%s: cases where it must not fire", alert).isPositive();
    }
    soft.assertAll();
  }

  @Test
  void everyAlertHasForSeverityAndAnnotationsNamingWhatItIsAbout() {
    String runbook = RepoFiles.text("docs/runbook.md");
    SoftAssertions soft = new SoftAssertions();
    for (Map<String, Object> r : alertRules()) {
      String name = Tree.str(r, "alert");
      soft.assertThat(r.get("for")).as("%s for:", name).isNotNull();
      soft.assertThat(Tree.str(r, "labels.severity")).as("%s severity", name).isIn(SEVERITIES);
      String summary = Tree.str(r, "annotations.summary");
      String description = Tree.str(r, "annotations.description");
      String expr = Tree.str(r, "expr");
      PromQl.Lint lint = PromQl.lint(expr);
      soft.assertThat(lint.problems()).as("%s expr: %s", name, expr).isEmpty();
      boolean perDevice = lint.labelsUsed().containsAll(List.of("netns", "device"))
          && expr.contains("by (instance, netns, device");
      if (perDevice) {
        for (String text : List.of(summary, description)) {
          soft.assertThat(text).as("%s names the netns and device", name)
              .contains("{{ $labels.netns }}").contains("{{ $labels.device }}");
        }
      } else {
        soft.assertThat(description).as("%s names the instance", name).contains("$labels.instance");
      }
      Matcher m = ANCHOR.matcher(Tree.str(r, "annotations.runbook_url"));
      soft.assertThat(m.matches()).as("%s runbook_url %s", name, r.get("annotations")).isTrue();
      if (m.matches()) {
        soft.assertThat(m.group(1)).as("%s anchor is the alert name", name).isEqualTo(name.toLowerCase());
        soft.assertThat(runbook).as("docs/runbook.md has a section for %s", name).contains("\n## " + name + "\n");
      }
    }
    soft.assertAll();
  }

  @Test
  void thePerDeviceAlertsAreTheCostAlerts() {
    // guards the check above: if the grouping of a cost alert changed, it would silently stop
    // being held to naming netns and device
    List<String> perDevice = new ArrayList<>();
    for (Map<String, Object> r : alertRules()) {
      String expr = Tree.str(r, "expr");
      if (expr.contains("by (instance, netns, device")) {
        perDevice.add(Tree.str(r, "alert"));
      }
    }
    assertThat(perDevice).containsExactlyInAnyOrder("SegscopeSoftwareGsoCpuHigh", "SegscopeGsoSizeMismatch",
        "SegscopeOffloadDisabled", "SegscopeGenericXdpCopies", "SegscopeGenericXdpCopyCpuHigh");
  }

  @Test
  void theExamplePrometheusConfigScrapesJobSegscopeAndLoadsTheRules() {
    Map<String, Object> cfg = RepoFiles.yaml("deploy/prometheus/prometheus.example.yaml");
    assertThat(Tree.list(cfg, "rule_files")).containsExactly("segscope-rules.yaml");
    assertThat(Tree.maps(cfg, "scrape_configs")).extracting(c -> c.get("job_name")).contains("segscope");
    Tool.Result r = Tool.PROMTOOL.require().run(RepoFiles.root(), "check", "config",
        "deploy/prometheus/prometheus.example.yaml");
    assertThat(r.exitCode()).as("promtool check config said:%n%s", r.output()).isZero();
  }
}

package io.segscope.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import io.segscope.testkit.deploy.RepoFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The Grafana dashboards of grafana/dashboards/ and the queries in them. */
final class Dashboards {
  static final String DIR = "grafana/dashboards";
  private static final Pattern LABEL_VALUES =
      Pattern.compile("^label_values\\((.+),\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\)$", Pattern.DOTALL);

  /** One panel query. */
  record Query(String dashboard, int panelId, String panelTitle, String refId, String expr, String format) {
    String where() {
      return dashboard + " panel " + panelId + " \"" + panelTitle + "\" target " + refId;
    }
  }

  /** A query variable: the selector inside label_values(selector, label) and the label. */
  record VariableQuery(String dashboard, String name, String selector, String label) {}

  private Dashboards() {}

  static List<Path> files() {
    return RepoFiles.list(DIR, ".json");
  }

  static List<JsonNode> all() {
    return files().stream().map(RepoFiles::json).toList();
  }

  /** Panels with their nested panels (collapsed rows hold theirs inside), rows included. */
  static List<JsonNode> panels(JsonNode dashboard) {
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode p : dashboard.path("panels")) {
      out.add(p);
      for (JsonNode nested : p.path("panels")) {
        out.add(nested);
      }
    }
    return out;
  }

  static List<Query> queries(JsonNode dashboard) {
    List<Query> out = new ArrayList<>();
    String uid = dashboard.path("uid").asText();
    for (JsonNode p : panels(dashboard)) {
      for (JsonNode t : p.path("targets")) {
        out.add(new Query(uid, p.path("id").asInt(), p.path("title").asText(), t.path("refId").asText(),
            t.path("expr").asText(), t.path("format").asText("time_series")));
      }
    }
    return out;
  }

  static List<Query> allQueries() {
    return all().stream().flatMap(d -> queries(d).stream()).toList();
  }

  static List<VariableQuery> variableQueries(JsonNode dashboard) {
    List<VariableQuery> out = new ArrayList<>();
    for (JsonNode v : dashboard.path("templating").path("list")) {
      if (!v.path("type").asText().equals("query")) {
        continue;
      }
      JsonNode q = v.path("query");
      String text = q.isObject() ? q.path("query").asText() : q.asText();
      Matcher m = LABEL_VALUES.matcher(text.trim());
      if (!m.matches()) {
        throw new AssertionError(dashboard.path("uid").asText() + " variable " + v.path("name").asText()
            + ": query is not label_values(selector, label): " + text);
      }
      out.add(new VariableQuery(dashboard.path("uid").asText(), v.path("name").asText(), m.group(1).trim(),
          m.group(2)));
    }
    return out;
  }

  /**
   * The expression with Grafana's variables replaced: $__rate_interval and $__range by durations,
   * every other $name or ${name} by the value in {@code values}.
   */
  static String substitute(String expr, String rateInterval, String range, Map<String, String> values) {
    String out = expr.replace("$__rate_interval", rateInterval).replace("$__range", range);
    // longest names first, so that $netns never eats the start of a longer $netns_x
    List<Map.Entry<String, String>> byLength = new ArrayList<>(values.entrySet());
    byLength.sort((a, b) -> b.getKey().length() - a.getKey().length());
    for (Map.Entry<String, String> e : byLength) {
      out = out.replace("${" + e.getKey() + "}", e.getValue()).replace("$" + e.getKey(), e.getValue());
    }
    return out;
  }
}

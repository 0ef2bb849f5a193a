package io.segscope.agent.e2e;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A minimal parser of the Prometheus text format for tests: samples with their labels. */
final class PromText {
  record Sample(String name, Map<String, String> labels, double value) {}

  private final List<Sample> samples;

  private PromText(List<Sample> samples) {
    this.samples = samples;
  }

  static PromText parse(String text) {
    List<Sample> out = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int brace = line.indexOf('{');
      int space;
      String name;
      Map<String, String> labels = new TreeMap<>();
      if (brace >= 0 && brace < line.indexOf(' ')) {
        name = line.substring(0, brace);
        int close = line.indexOf('}', brace);
        parseLabels(line.substring(brace + 1, close), labels);
        space = close + 1;
      } else {
        space = line.indexOf(' ');
        name = line.substring(0, space);
      }
      String[] rest = line.substring(space).trim().split("\\s+");
      out.add(new Sample(name, labels, Double.parseDouble(rest[0])));
    }
    return new PromText(out);
  }

  private static void parseLabels(String s, Map<String, String> labels) {
    int i = 0;
    while (i < s.length()) {
      int eq = s.indexOf('=', i);
      String key = s.substring(i, eq).trim();
      int q = s.indexOf('"', eq) + 1;
      StringBuilder v = new StringBuilder();
      int j = q;
      while (s.charAt(j) != '"') {
        if (s.charAt(j) == '\\') {
          j++;
        }
        v.append(s.charAt(j));
        j++;
      }
      labels.put(key, v.toString());
      i = j + 1;
      while (i < s.length() && (s.charAt(i) == ',' || s.charAt(i) == ' ')) {
        i++;
      }
    }
  }

  /** Sum of every sample of {@code name} whose labels include all of {@code match}. */
  double sum(String name, Map<String, String> match) {
    double total = 0;
    for (Sample s : samples) {
      if (s.name.equals(name) && s.labels.entrySet().containsAll(match.entrySet())) {
        total += s.value;
      }
    }
    return total;
  }

  List<Sample> samples(String name) {
    return samples.stream().filter(s -> s.name.equals(name)).toList();
  }

  static Map<String, String> labels(String... kv) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }
}

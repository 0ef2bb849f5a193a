package io.segscope.agent.e2e;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A minimal parser of the Prometheus text format for tests: samples with their labels. */
public final class PromText {
  record Sample(String name, Map<String, String> labels, double value) {}

  private final List<Sample> samples;
  private final String text;

  private PromText(List<Sample> samples, String text) {
    this.samples = samples;
    this.text = text;
  }

  /** The exposition as scraped. */
  String text() {
    return text;
  }

  public static PromText parse(String text) {
    List<Sample> out = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int brace = line.indexOf('{');
      int space = line.indexOf(' ');
      String name;
      Map<String, String> labels = new TreeMap<>();
      int rest;
      if (brace >= 0 && brace < space) {
        name = line.substring(0, brace);
        rest = parseLabels(line, brace + 1, labels);
      } else {
        name = line.substring(0, space);
        rest = space;
      }
      String[] fields = line.substring(rest).trim().split("\\s+");
      out.add(new Sample(name, labels, Double.parseDouble(fields[0])));
    }
    return new PromText(out, text);
  }

  /**
   * Parses {@code name="value",...}} from {@code i}, values with the text format's escapes
   * ({@code \\}, {@code \"}, {@code \n}); a '}' or ',' inside quotes is part of the value.
   * Returns the index after the closing brace.
   */
  private static int parseLabels(String s, int i, Map<String, String> labels) {
    while (s.charAt(i) != '}') {
      int eq = s.indexOf('=', i);
      String key = s.substring(i, eq).trim();
      int j = s.indexOf('"', eq) + 1;
      StringBuilder v = new StringBuilder();
      while (s.charAt(j) != '"') {
        char c = s.charAt(j);
        if (c == '\\') {
          char e = s.charAt(++j);
          v.append(e == 'n' ? '\n' : e);
        } else {
          v.append(c);
        }
        j++;
      }
      labels.put(key, v.toString());
      i = j + 1;
      while (s.charAt(i) == ',' || s.charAt(i) == ' ') {
        i++;
      }
    }
    return i + 1;
  }

  /** Sum of every sample of {@code name} whose labels include all of {@code match}. */
  public double sum(String name, Map<String, String> match) {
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

package io.segscope.testkit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The samples of one Prometheus text (0.0.4) exposition: enough to sum a metric over the series whose
 * labels match. The one parser of the agent's end-to-end tests and the bench. Comment lines are skipped; a malformed sample line is an error naming the line.
 */
public final class PromText {
  /** One sample line. */
  public record Sample(String name, Map<String, String> labels, double value) {}

  private final List<Sample> samples;
  private final String text;

  private PromText(List<Sample> samples, String text) {
    this.samples = List.copyOf(samples);
    this.text = text;
  }

  /** The exposition as scraped. */
  public String text() {
    return text;
  }

  public static PromText parse(String text) {
    List<Sample> out = new ArrayList<>();
    int lineNo = 0;
    for (String line : text.split("\n")) {
      lineNo++;
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      try {
        out.add(sample(line));
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("parse metrics line " + lineNo + " `" + line + "`: " + e.getMessage(), e);
      }
    }
    return new PromText(out, text);
  }

  private static Sample sample(String line) {
    int brace = line.indexOf('{');
    int space = line.indexOf(' ');
    Map<String, String> labels = new TreeMap<>();
    String name;
    int rest;
    if (brace >= 0 && (space < 0 || brace < space)) {
      name = line.substring(0, brace);
      rest = labels(line, brace + 1, labels);
    } else {
      if (space < 0) {
        throw new IllegalArgumentException("no value");
      }
      name = line.substring(0, space);
      rest = space;
    }
    String[] parts = line.substring(rest).trim().split("\\s+");
    return new Sample(name, labels, value(parts[0]));
  }

  /** Parses {@code k="v",...}} from {@code i}; returns the index after the closing brace. */
  private static int labels(String s, int i, Map<String, String> labels) {
    while (true) {
      while (i < s.length() && (s.charAt(i) == ',' || s.charAt(i) == ' ')) {
        i++;
      }
      if (i >= s.length()) {
        throw new IllegalArgumentException("unterminated label set");
      }
      if (s.charAt(i) == '}') {
        return i + 1;
      }
      int eq = s.indexOf('=', i);
      if (eq < 0 || eq + 1 >= s.length() || s.charAt(eq + 1) != '"') {
        throw new IllegalArgumentException("label without =\"value\" at column " + i);
      }
      String key = s.substring(i, eq).trim();
      StringBuilder v = new StringBuilder();
      int j = eq + 2;
      while (true) {
        if (j >= s.length()) {
          throw new IllegalArgumentException("unterminated value of label " + key);
        }
        char c = s.charAt(j);
        if (c == '"') {
          break;
        }
        if (c == '\\' && j + 1 < s.length()) {
          char n = s.charAt(++j);
          v.append(n == 'n' ? '\n' : n);
        } else {
          v.append(c);
        }
        j++;
      }
      labels.put(key, v.toString());
      i = j + 1;
    }
  }

  private static double value(String s) {
    return switch (s) {
      case "+Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      case "NaN" -> Double.NaN;
      default -> Double.parseDouble(s);
    };
  }

  /** Sum of every sample of {@code name} whose labels include all of {@code match}. */
  public double sum(String name, Map<String, String> match) {
    double total = 0;
    for (Sample s : samples) {
      if (s.name().equals(name) && s.labels().entrySet().containsAll(match.entrySet())) {
        total += s.value();
      }
    }
    return total;
  }

  public List<Sample> samples() {
    return samples;
  }

  public List<Sample> samples(String name) {
    return samples.stream().filter(s -> s.name().equals(name)).toList();
  }

  /** Number of sample lines whose name starts with {@code prefix}. */
  public long seriesCount(String prefix) {
    return samples.stream().filter(s -> s.name().startsWith(prefix)).count();
  }

  /** A label map from name, value pairs, in their order. */
  public static Map<String, String> labels(String... kv) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }
}

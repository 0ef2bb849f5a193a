package io.segscope.deploy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A small PromQL linter for the expressions of the dashboards and alert rules: brackets and quotes
 * balance, every series name is in the {@link MetricContract}, every label a selector matches or an
 * aggregation groups by exists on the series involved, and every function is a PromQL function.
 * It does not parse PromQL fully: the tests also hand every expression to promtool, whose parser
 * is the real judge of syntax.
 */
final class PromQl {
  private static final Set<String> FUNCTIONS = Set.of("sum", "avg", "min", "max", "count", "topk", "bottomk",
      "quantile", "count_values", "stddev", "stdvar", "group", "rate", "irate", "increase", "delta", "idelta",
      "histogram_quantile", "histogram_count", "histogram_sum", "histogram_fraction", "time", "vector", "absent",
      "absent_over_time", "label_replace", "label_join",
      "clamp", "clamp_min", "clamp_max", "abs", "ceil", "floor", "round", "scalar", "sort", "sort_desc",
      "max_over_time", "min_over_time", "avg_over_time", "sum_over_time", "count_over_time",
      "last_over_time", "changes", "resets", "deriv", "predict_linear", "timestamp");
  private static final Set<String> LABEL_LIST_KEYWORDS = Set.of("by", "without", "on", "ignoring", "group_left",
      "group_right");
  private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "atan2", "by",
      "without", "on", "ignoring", "group_left", "group_right", "inf", "nan");
  private static final Pattern VARIABLE = Pattern.compile("\\$\\{?([A-Za-z_][A-Za-z0-9_]*)");
  private static final Pattern SIMPLE_ALTERNATION =
      Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*(\\|[a-zA-Z_:][a-zA-Z0-9_:]*)*");

  /** What the linter found in one expression. */
  record Lint(Set<String> series, Set<String> labelsUsed, Set<String> variables, List<String> problems) {}

  private enum Kind { IDENT, STRING, NUMBER, PUNCT, RANGE }

  private record Token(Kind kind, String text) {}

  private PromQl() {}

  /** The Grafana/template variables ($name, ${name}) an expression refers to. */
  static Set<String> variables(String expr) {
    Set<String> vars = new TreeSet<>();
    Matcher m = VARIABLE.matcher(expr);
    while (m.find()) {
      vars.add(m.group(1));
    }
    return vars;
  }

  static Lint lint(String expr) {
    List<String> problems = new ArrayList<>();
    checkBalance(expr, problems);
    List<Token> tokens = tokenize(expr, problems);
    Set<String> series = new LinkedHashSet<>();
    List<String[]> matchers = new ArrayList<>(); // {series or null, label}
    Set<String> grouping = new LinkedHashSet<>();
    for (int i = 0; i < tokens.size(); i++) {
      Token t = tokens.get(i);
      Token next = i + 1 < tokens.size() ? tokens.get(i + 1) : null;
      if (t.kind == Kind.IDENT && next != null && next.text.equals("(")) {
        if (LABEL_LIST_KEYWORDS.contains(t.text)) {
          i = labelList(tokens, i + 2, grouping, problems);
        } else if (!FUNCTIONS.contains(t.text)) {
          problems.add("unknown function " + t.text + "()");
        }
      } else if (t.kind == Kind.IDENT && FUNCTIONS.contains(t.text) && next != null
          && (next.text.equals("by") || next.text.equals("without"))) {
        continue; // an aggregation with its grouping first: sum by (le) (...)
      } else if (t.kind == Kind.IDENT && next != null && next.text.equals("{")) {
        series.add(t.text);
        i = selector(tokens, i + 2, t.text, matchers, series, problems);
      } else if (t.kind == Kind.PUNCT && t.text.equals("{")) {
        i = selector(tokens, i + 1, null, matchers, series, problems);
      } else if (t.kind == Kind.IDENT && !KEYWORDS.contains(t.text.toLowerCase())) {
        series.add(t.text);
      }
    }
    Set<String> available = new TreeSet<>();
    for (String s : series) {
      Optional<Set<String>> labels = MetricContract.labels(s);
      if (labels.isEmpty()) {
        problems.add("series " + s + " is not in the metric contract");
      } else {
        available.addAll(labels.get());
      }
    }
    for (String[] m : matchers) {
      String label = m[1];
      if (label.equals("__name__")) {
        continue;
      }
      if (m[0] != null) {
        MetricContract.labels(m[0]).ifPresent(labels -> {
          if (!labels.contains(label)) {
            problems.add("series " + m[0] + " has no label " + label + " (it has " + labels + ")");
          }
        });
      } else if (!available.contains(label)) {
        problems.add("no series of the selector has label " + label);
      }
    }
    for (String g : grouping) {
      if (!available.contains(g)) {
        problems.add("grouping label " + g + " is on none of " + series);
      }
    }
    Set<String> used = new TreeSet<>(grouping);
    matchers.forEach(m -> used.add(m[1]));
    return new Lint(series, used, variables(expr), problems);
  }

  private static int labelList(List<Token> tokens, int from, Set<String> out, List<String> problems) {
    int i = from;
    for (; i < tokens.size() && !tokens.get(i).text.equals(")"); i++) {
      Token t = tokens.get(i);
      if (t.kind == Kind.IDENT) {
        out.add(t.text);
      } else if (!t.text.equals(",")) {
        problems.add("unexpected '" + t.text + "' in a label list");
      }
    }
    return i;
  }

  private static int selector(List<Token> tokens, int from, String series, List<String[]> matchers,
      Set<String> names, List<String> problems) {
    int i = from;
    while (i < tokens.size() && !tokens.get(i).text.equals("}")) {
      Token label = tokens.get(i);
      if (label.text.equals(",")) {
        i++;
        continue;
      }
      Token op = i + 1 < tokens.size() ? tokens.get(i + 1) : null;
      Token value = i + 2 < tokens.size() ? tokens.get(i + 2) : null;
      if (label.kind != Kind.IDENT || op == null || !Set.of("=", "!=", "=~", "!~").contains(op.text)
          || value == null || value.kind != Kind.STRING) {
        problems.add("malformed label matcher at '" + label.text + "'");
        return skipTo(tokens, i, "}");
      }
      matchers.add(new String[] {series, label.text});
      if (label.text.equals("__name__")) {
        String v = value.text;
        if (op.text.equals("=") || (op.text.equals("=~") && SIMPLE_ALTERNATION.matcher(v).matches())) {
          names.addAll(List.of(v.split("\\|")));
        } else {
          problems.add("cannot check a __name__ matcher " + op.text + "\"" + v + "\"");
        }
      }
      i += 3;
    }
    return i;
  }

  private static int skipTo(List<Token> tokens, int from, String close) {
    int i = from;
    while (i < tokens.size() && !tokens.get(i).text.equals(close)) {
      i++;
    }
    return i;
  }

  private static void checkBalance(String expr, List<String> problems) {
    Deque<Character> open = new ArrayDeque<>();
    char quote = 0;
    for (int i = 0; i < expr.length(); i++) {
      char c = expr.charAt(i);
      if (quote != 0) {
        if (c == '\\' && quote != '`') {
          i++;
        } else if (c == quote) {
          quote = 0;
        }
        continue;
      }
      switch (c) {
        case '"', '\'', '`' -> quote = c;
        case '(', '[', '{' -> open.push(c);
        case ')', ']', '}' -> {
          char want = c == ')' ? '(' : c == ']' ? '[' : '{';
          if (open.isEmpty() || open.pop() != want) {
            problems.add("unbalanced '" + c + "' at offset " + i);
            return;
          }
        }
        default -> {}
      }
    }
    if (quote != 0) {
      problems.add("unterminated string (" + quote + ")");
    }
    if (!open.isEmpty()) {
      problems.add("unclosed '" + open.peek() + "'");
    }
  }

  private static List<Token> tokenize(String expr, List<String> problems) {
    List<Token> out = new ArrayList<>();
    int i = 0;
    while (i < expr.length()) {
      char c = expr.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '#') {
        while (i < expr.length() && expr.charAt(i) != '\n') {
          i++;
        }
      } else if (c == '"' || c == '\'' || c == '`') {
        int j = i + 1;
        StringBuilder sb = new StringBuilder();
        while (j < expr.length() && expr.charAt(j) != c) {
          if (expr.charAt(j) == '\\' && c != '`' && j + 1 < expr.length()) {
            j++;
          }
          sb.append(expr.charAt(j));
          j++;
        }
        out.add(new Token(Kind.STRING, sb.toString()));
        i = j + 1;
      } else if (c == '[') {
        int j = expr.indexOf(']', i);
        if (j < 0) {
          return out; // reported by checkBalance
        }
        out.add(new Token(Kind.RANGE, expr.substring(i + 1, j)));
        i = j + 1;
      } else if (Character.isLetter(c) || c == '_' || c == ':') {
        int j = i;
        while (j < expr.length() && (Character.isLetterOrDigit(expr.charAt(j)) || expr.charAt(j) == '_'
            || expr.charAt(j) == ':')) {
          j++;
        }
        out.add(new Token(Kind.IDENT, expr.substring(i, j)));
        i = j;
      } else if (Character.isDigit(c) || (c == '.' && i + 1 < expr.length() && Character.isDigit(expr.charAt(i + 1)))) {
        int j = i;
        while (j < expr.length() && (Character.isLetterOrDigit(expr.charAt(j)) || expr.charAt(j) == '.'
            || ((expr.charAt(j) == '-' || expr.charAt(j) == '+') && (expr.charAt(j - 1) == 'e'
                || expr.charAt(j - 1) == 'E')))) {
          j++;
        }
        out.add(new Token(Kind.NUMBER, expr.substring(i, j)));
        i = j;
      } else if (c == '$') {
        problems.add("unsubstituted variable at offset " + i + " outside a string or range");
        i++;
      } else {
        String two = i + 1 < expr.length() ? expr.substring(i, i + 2) : "";
        if (Set.of("=~", "!~", "!=", "==", ">=", "<=").contains(two)) {
          out.add(new Token(Kind.PUNCT, two));
          i += 2;
        } else {
          out.add(new Token(Kind.PUNCT, String.valueOf(c)));
          i++;
        }
      }
    }
    return out;
  }
}

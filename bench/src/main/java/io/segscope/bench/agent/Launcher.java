package io.segscope.bench.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How {@code ./segscope} starts the agent, read from the launcher script itself so the benchmark never
 * drifts from it: the default JVM flags ({@code SEGSCOPE_JAVA_OPTS}) and the environment defaults it
 * exports (e.g. {@code MALLOC_ARENA_MAX}). Both honour the same environment variables the launcher does.
 *
 * @param javaOptions the flags passed to {@code java} before {@code -jar}
 * @param environment variables the launcher exports, with the values they get here
 */
public record Launcher(List<String> javaOptions, Map<String, String> environment) {
  private static final Pattern JAVA_OPTS = Pattern.compile("\\$\\{SEGSCOPE_JAVA_OPTS:-([^}]*)}");
  private static final Pattern EXPORT =
      Pattern.compile("(?m)^\\s*export\\s+([A-Z_][A-Z0-9_]*)=\"\\$\\{\\1:-([^}]*)}\"");

  public Launcher {
    javaOptions = List.copyOf(javaOptions);
    environment = Map.copyOf(environment);
  }

  /** Reads {@code script} (the repository's {@code segscope}); fails naming what it could not find. */
  public static Launcher read(Path script) {
    try {
      return parse(Files.readString(script), System.getenv());
    } catch (IOException e) {
      throw new IllegalStateException("read the launcher " + script + ": " + e.getMessage(), e);
    }
  }

  static Launcher parse(String text, Map<String, String> env) {
    Matcher m = JAVA_OPTS.matcher(text);
    if (!m.find()) {
      throw new IllegalArgumentException("read the launcher: no ${SEGSCOPE_JAVA_OPTS:-...} default in it");
    }
    String opts = env.getOrDefault("SEGSCOPE_JAVA_OPTS", m.group(1));
    List<String> flags = new ArrayList<>();
    for (String o : opts.trim().split("\\s+")) {
      if (!o.isEmpty()) {
        flags.add(o);
      }
    }
    Map<String, String> exports = new LinkedHashMap<>();
    Matcher e = EXPORT.matcher(text);
    while (e.find()) {
      exports.put(e.group(1), env.getOrDefault(e.group(1), e.group(2)));
    }
    return new Launcher(flags, exports);
  }

  /** The flags as one line, e.g. for the report. */
  public String javaOptionsLine() {
    return String.join(" ", javaOptions);
  }
}

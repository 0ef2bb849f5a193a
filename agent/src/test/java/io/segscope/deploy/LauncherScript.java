package io.segscope.deploy;

import io.segscope.testkit.deploy.RepoFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the {@code ./segscope} launcher starts the JVM, read from the script itself: a test that starts
 * the agent's jar directly (to add its own diagnostics) uses these instead of a copy that could drift.
 * {@code LaunchersTest} holds the reading to what the launcher really passes.
 */
public final class LauncherScript {
  private static final Pattern DEFAULT_OPTS = Pattern.compile("\\$\\{SEGSCOPE_JAVA_OPTS:-([^}]*)}");
  private static final Pattern ALWAYS = Pattern.compile("(?m)^exec java ((?:-\\S+ )*)\"\\$\\{java_opts\\[@]}\"");
  private static final Pattern ARENAS = Pattern.compile("MALLOC_ARENA_MAX=\"\\$\\{MALLOC_ARENA_MAX:-(\\d+)}\"");

  private LauncherScript() {}

  private static String script() {
    try {
      return Files.readString(RepoFiles.root().resolve("segscope"));
    } catch (IOException e) {
      throw new UncheckedIOException("read the launcher ./segscope", e);
    }
  }

  private static String group(Pattern p, String what) {
    Matcher m = p.matcher(script());
    if (!m.find()) {
      throw new IllegalStateException("read " + what + " from ./segscope: no match for " + p.pattern());
    }
    return m.group(1);
  }

  /**
   * The JVM flags before {@code -jar} when SEGSCOPE_JAVA_OPTS is unset: those always passed, then the
   * defaults.
   */
  public static List<String> javaOptions() {
    return List.of((group(ALWAYS, "the flags always passed") + " " + group(DEFAULT_OPTS, "the default flags"))
        .trim().split("\\s+"));
  }

  /** The environment the launcher exports to the JVM when the caller's does not set it. */
  public static Map<String, String> environment() {
    return Map.of("MALLOC_ARENA_MAX", group(ARENAS, "MALLOC_ARENA_MAX"));
  }
}

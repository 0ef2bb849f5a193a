package io.segscope.deploy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What deploy/container/Containerfile runs in its final stage: the ENTRYPOINT (exec form, a JSON
 * array, continued over lines ending in a backslash) and the ENV it sets, so that tests which run the
 * agent "as deployed" take the JVM flags and environment from the image itself instead of a copy that
 * can drift from it.
 */
record ContainerImage(List<String> entrypoint, Map<String, String> env) {
  private static final ObjectMapper JSON = new ObjectMapper();

  static ContainerImage read() {
    return parse(RepoFiles.text("deploy/container/Containerfile"));
  }

  /**
   * The instructions of stage {@code index} (0 = after the first FROM) of a Containerfile's text, the
   * FROM itself first: continuation lines joined, comments and blank lines dropped, runs of white
   * space folded to one space.
   */
  static List<String> stage(String containerfile, int index) {
    List<String> all = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    for (String raw : containerfile.split("\n")) {
      String line = raw.strip();
      if (line.startsWith("#") || (line.isEmpty() && cur.length() == 0)) {
        continue;
      }
      boolean more = line.endsWith("\\");
      cur.append(more ? line.substring(0, line.length() - 1) : line).append(' ');
      if (!more) {
        all.add(cur.toString().strip().replaceAll("\\s+", " "));
        cur.setLength(0);
      }
    }
    List<String> stage = new ArrayList<>();
    int seen = -1;
    for (String i : all) {
      if (i.startsWith("FROM ")) {
        seen++;
      }
      if (seen == index) {
        stage.add(i);
      }
    }
    if (stage.isEmpty()) {
      throw new IllegalArgumentException("parse the Containerfile: it has no stage " + index);
    }
    return List.copyOf(stage);
  }

  /** Parses the last stage (after the last FROM) of a Containerfile's text. */
  static ContainerImage parse(String containerfile) {
    String joined = containerfile.replace("\\\n", " ");
    List<String> lines = joined.lines().map(String::strip).toList();
    int from = 0;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).startsWith("FROM ")) {
        from = i;
      }
    }
    List<String> entrypoint = null;
    Map<String, String> env = new LinkedHashMap<>();
    for (String line : lines.subList(from, lines.size())) {
      if (line.startsWith("ENTRYPOINT ")) {
        try {
          entrypoint = JSON.readValue(line.substring("ENTRYPOINT ".length()), new TypeReference<List<String>>() {});
        } catch (IOException e) {
          throw new UncheckedIOException("parse the Containerfile's ENTRYPOINT: not a JSON array: " + line, e);
        }
      } else if (line.startsWith("ENV ")) {
        String kv = line.substring(4).strip();
        int eq = kv.indexOf('=');
        if (eq <= 0 || kv.indexOf(' ') >= 0) {
          throw new IllegalArgumentException("parse the Containerfile's ENV: expected one NAME=VALUE: " + line);
        }
        env.put(kv.substring(0, eq), kv.substring(eq + 1));
      }
    }
    if (entrypoint == null || entrypoint.isEmpty()) {
      throw new IllegalArgumentException("parse the Containerfile: its last stage has no ENTRYPOINT");
    }
    return new ContainerImage(List.copyOf(entrypoint), Map.copyOf(env));
  }
}

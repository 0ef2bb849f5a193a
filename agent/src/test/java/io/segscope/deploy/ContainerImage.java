package io.segscope.deploy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.testkit.deploy.RepoFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
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
   * Every instruction of a Containerfile's text: continuation lines joined, comments and blank lines
   * dropped, runs of white space folded to one space.
   */
  static List<String> instructions(String containerfile) {
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
    return all;
  }

  /**
   * The instructions of stage {@code index} (0 = after the first FROM) of a Containerfile's text, the
   * FROM itself first: continuation lines joined, comments and blank lines dropped, runs of white
   * space folded to one space.
   */
  static List<String> stage(String containerfile, int index) {
    List<String> stage = new ArrayList<>();
    int seen = -1;
    for (String i : instructions(containerfile)) {
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

  /**
   * Parses the final image of a Containerfile's text: its last stage, with what it inherits from the
   * earlier stages it is built FROM (a stage named by {@code FROM <stage>}); a later ENTRYPOINT or ENV
   * of the chain overrides an earlier one.
   */
  static ContainerImage parse(String containerfile) {
    String joined = containerfile.replace("\\\n", " ");
    List<String> lines = joined.lines().map(String::strip).toList();
    Map<String, Integer> stageStart = new LinkedHashMap<>();
    List<Integer> starts = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).startsWith("FROM ")) {
        starts.add(i);
        String[] f = lines.get(i).split("\\s+");
        if (f.length == 4 && f[2].equalsIgnoreCase("AS")) {
          stageStart.put(f[3], i);
        }
      }
    }
    if (starts.isEmpty()) {
      throw new IllegalArgumentException("parse the Containerfile: no FROM");
    }
    // the chain of stages, from the last one back to the first that is not built on another stage
    Deque<int[]> chain = new ArrayDeque<>();
    int stage = starts.get(starts.size() - 1);
    while (true) {
      int end = lines.size();
      for (int s : starts) {
        if (s > stage) {
          end = s;
          break;
        }
      }
      chain.push(new int[] {stage, end});
      String base = lines.get(stage).split("\\s+")[1];
      Integer parent = stageStart.get(base);
      if (parent == null || chain.size() > starts.size()) {
        break;
      }
      stage = parent;
    }
    List<String> entrypoint = null;
    Map<String, String> env = new LinkedHashMap<>();
    for (int[] range : chain) {
      for (String line : lines.subList(range[0], range[1])) {
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
    }
    if (entrypoint == null || entrypoint.isEmpty()) {
      throw new IllegalArgumentException("parse the Containerfile: its final image has no ENTRYPOINT");
    }
    return new ContainerImage(List.copyOf(entrypoint), Map.copyOf(env));
  }
}

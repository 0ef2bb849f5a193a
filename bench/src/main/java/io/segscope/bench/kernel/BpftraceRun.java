package io.segscope.bench.kernel;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.lab.Tools;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One bpftrace script running in the background with JSON output: started, awaited until its probes are
 * attached, stopped with SIGTERM (bpftrace then prints its maps), and its scalar maps parsed.
 */
public final class BpftraceRun implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration STOP_WAIT = Duration.ofSeconds(120);

  private final Process process;
  private final Path out;
  private final Path err;
  private final String name;

  private BpftraceRun(Process process, Path out, Path err, String name) {
    this.process = process;
    this.out = out;
    this.err = err;
    this.name = name;
  }

  /** Writes {@code script} to {@code dir/NAME.bt} and starts {@code bpftrace -f json} on it. */
  public static BpftraceRun start(String name, String script, Path dir) {
    return start(name, script, dir, 0);
  }

  /**
   * The same, with room for {@code mapKeys} keys per map ({@code BPFTRACE_MAP_KEYS_MAX}; 0 keeps
   * bpftrace's default of 4,096).
   */
  public static BpftraceRun start(String name, String script, Path dir, int mapKeys) {
    Path file = dir.resolve(name + ".bt");
    Path out = dir.resolve(name + ".out.json");
    Path err = dir.resolve(name + ".err");
    try {
      Files.writeString(file, script);
      ProcessBuilder pb = new ProcessBuilder(Tools.require("bpftrace"), "-f", "json", file.toString())
          .redirectOutput(out.toFile()).redirectError(err.toFile());
      if (mapKeys > 0) {
        pb.environment().put("BPFTRACE_MAP_KEYS_MAX", Integer.toString(mapKeys));
      }
      Process p = pb.start();
      return new BpftraceRun(p, out, err, name);
    } catch (IOException e) {
      throw new IllegalStateException("start bpftrace " + file + ": " + e.getMessage(), e);
    }
  }

  public long pid() {
    return process.pid();
  }

  /** Waits for bpftrace's {@code attached_probes} line; throws with its stderr if it exits or times out. */
  public int awaitAttached(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      for (String line : lines()) {
        JsonNode n = parseLine(line);
        if (n != null && n.path("type").asText().equals("attached_probes")) {
          return n.path("data").path("probes").asInt();
        }
      }
      if (!process.isAlive()) {
        throw new IllegalStateException("start bpftrace " + name + ": exited " + process.exitValue() + ": "
            + stderr());
      }
      sleep(50);
    }
    throw new IllegalStateException("start bpftrace " + name + ": no probes attached within "
        + timeout.toSeconds() + " s: " + stderr());
  }

  /** SIGTERM, waits for the maps to be printed, and returns every scalar map as key → value. */
  public Map<String, Map<String, Long>> stop() {
    process.destroy();
    try {
      // Usually 2 s here; one smoke run at load 11 on 2 cores took longer than 30 s (bpftrace detaches its
      // probes before it prints the maps), so the wait is generous: the maps are the oracle's whole result.
      if (!process.waitFor(STOP_WAIT.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException("stop bpftrace " + name + ": no exit within " + STOP_WAIT.toSeconds()
            + " s of SIGTERM");
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("stop bpftrace " + name + ": interrupted", e);
    }
    return parseMaps(String.join("\n", lines()));
  }

  /**
   * The {@code "type": "map"} records of bpftrace's JSON output: map name → (key → value). A map without
   * keys has the single key "". Multi-keys are bpftrace's comma-joined form ("a,b,c").
   */
  static Map<String, Map<String, Long>> parseMaps(String output) {
    Map<String, Map<String, Long>> maps = new LinkedHashMap<>();
    for (String line : output.split("\n")) {
      JsonNode n = parseLine(line);
      if (n == null || !n.path("type").asText().equals("map")) {
        continue;
      }
      Iterator<Map.Entry<String, JsonNode>> it = n.path("data").fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> m = it.next();
        Map<String, Long> values = new LinkedHashMap<>();
        if (m.getValue().isObject()) {
          m.getValue().fields().forEachRemaining(e -> values.put(e.getKey(), e.getValue().asLong()));
        } else {
          values.put("", m.getValue().asLong());
        }
        maps.put(m.getKey(), values);
      }
    }
    return maps;
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
    }
  }

  private static JsonNode parseLine(String line) {
    if (line.isBlank() || !line.startsWith("{")) {
      return null;
    }
    try {
      return JSON.readTree(line);
    } catch (IOException e) {
      return null; // a line still being written
    }
  }

  private List<String> lines() {
    try {
      return Files.readAllLines(out, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return List.of();
    }
  }

  private String stderr() {
    try {
      return Files.readString(err).strip();
    } catch (IOException e) {
      return "(no stderr: " + e.getMessage() + ")";
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("wait for bpftrace: interrupted", e);
    }
  }
}

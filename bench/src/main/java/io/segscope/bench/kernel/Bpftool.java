package io.segscope.bench.kernel;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads loaded BPF programs and their run statistics with {@code bpftool -j}: {@code prog show}
 * (run_time_ns, run_cnt: present while bpf_stats are or were enabled) and {@code perf show} (which
 * process attached which program to which tracepoint).
 */
public final class Bpftool {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Bpftool() {}

  /**
   * One program's cumulative run statistics.
   *
   * @param runTimeNanos total run time (0 when the kernel has not counted any)
   * @param runCount number of runs (0 when the kernel has not counted any)
   */
  public record ProgStat(int id, String name, String type, long runTimeNanos, long runCount) {}

  /**
   * One tracepoint attachment of a program by a process.
   *
   * @param tracepoint the event name, e.g. {@code net_dev_queue}
   */
  public record Attachment(long pid, int progId, String tracepoint) {}

  /** Every loaded program by id. */
  public static Map<Integer, ProgStat> programs() {
    return parsePrograms(Exec.run(List.of(bpftool(), "-j", "prog", "show")));
  }

  /** Every tracepoint attachment of every process. */
  public static List<Attachment> tracepoints() {
    return parseAttachments(Exec.run(List.of(bpftool(), "-j", "perf", "show")));
  }

  /** Tracepoint attachments made by {@code pid}. */
  public static List<Attachment> tracepointsOf(long pid) {
    return tracepoints().stream().filter(a -> a.pid() == pid).toList();
  }

  static Map<Integer, ProgStat> parsePrograms(String json) {
    Map<Integer, ProgStat> out = new HashMap<>();
    for (JsonNode n : array(json, "bpftool prog show")) {
      int id = n.path("id").asInt(-1);
      if (id < 0) {
        throw new IllegalArgumentException("parse bpftool prog show: a program without id: " + n);
      }
      out.put(id, new ProgStat(id, n.path("name").asText(""), n.path("type").asText(""),
          n.path("run_time_ns").asLong(0), n.path("run_cnt").asLong(0)));
    }
    return out;
  }

  static List<Attachment> parseAttachments(String json) {
    List<Attachment> out = new ArrayList<>();
    for (JsonNode n : array(json, "bpftool perf show")) {
      if (n.path("fd_type").asText().equals("tracepoint")) {
        out.add(new Attachment(n.path("pid").asLong(), n.path("prog_id").asInt(), n.path("tracepoint").asText()));
      }
    }
    return out;
  }

  private static JsonNode array(String json, String what) {
    try {
      JsonNode root = JSON.readTree(json);
      if (root == null || !root.isArray()) {
        throw new IllegalArgumentException("parse " + what + ": not a JSON array");
      }
      return root;
    } catch (IOException e) {
      throw new IllegalArgumentException("parse " + what + ": " + e.getMessage(), e);
    }
  }

  private static String bpftool() {
    return io.segscope.lab.Tools.require("bpftool");
  }
}

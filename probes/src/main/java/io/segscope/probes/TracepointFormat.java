package io.segscope.probes;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The fields of a classic tracepoint's record, from its tracefs {@code format} file: where each field
 * sits, so classic-tracepoint programs read them at the running kernel's offsets (passed as
 * {@code -DTPOFF_<event>_<field>=N}) instead of through a struct BCC would generate from headers.
 */
final class TracepointFormat {
  /** The fields the classic-tracepoint programs read, by event. */
  static final Map<String, List<String>> READ = Map.of(
      "net_dev_queue", List.of("skbaddr"),
      "kfree_skb", List.of("skbaddr", "location"),
      "consume_skb", List.of("skbaddr", "location"),
      "qdisc_dequeue", List.of("skbaddr"),
      "netif_receive_skb", List.of("skbaddr"));

  private TracepointFormat() {}

  /** Field name → {offset, size} of {@code category:event}. */
  static Map<String, int[]> fields(Path tracefs, String category, String event) throws ProbeException {
    Path format = tracefs.resolve("events").resolve(category).resolve(event).resolve("format");
    Map<String, int[]> out = new LinkedHashMap<>();
    List<String> lines;
    try {
      lines = Files.readAllLines(format);
    } catch (IOException e) {
      throw new ProbeException("read tracepoint format " + format + ": " + e.getMessage(), e);
    }
    for (String line : lines) {
      String l = line.strip();
      if (!l.startsWith("field:")) {
        continue;
      }
      String[] parts = l.split(";");
      if (parts.length < 3) {
        continue;
      }
      String decl = parts[0].substring("field:".length()).replaceAll("\\[[^\\]]*\\]", " ").strip();
      String[] words = decl.split("[\\s*]+");
      String name = words[words.length - 1];
      try {
        int offset = Integer.parseInt(parts[1].strip().replace("offset:", "").strip());
        int size = Integer.parseInt(parts[2].strip().replace("size:", "").strip());
        out.put(name, new int[] {offset, size});
      } catch (NumberFormatException e) {
        // a line this parser does not understand: the field stays unknown
      }
    }
    return out;
  }

  /** {@code -DTPOFF_<event>_<field>=<offset>} for every field the programs read from {@code events}. */
  static List<String> cflags(Path tracefs, List<String[]> events) throws ProbeException {
    List<String> flags = new ArrayList<>();
    for (String[] e : events) {
      Map<String, int[]> f = fields(tracefs, e[0], e[1]);
      for (String field : READ.getOrDefault(e[1], List.of())) {
        int[] at = f.get(field);
        if (at == null || at[1] != 8) {
          throw new ProbeException("read tracepoint " + e[0] + ":" + e[1] + ": field " + field
              + (at == null ? " is missing" : " has " + at[1] + " bytes, the programs read 8"));
        }
        flags.add("-DTPOFF_" + e[1] + "_" + field + "=" + at[0]);
      }
    }
    return flags;
  }
}

package io.segscope.bench.agent;

import io.segscope.bench.kernel.Exec;
import io.segscope.lab.Tools;
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
 * Where an agent JVM's resident memory goes, from the JVM itself ({@code jcmd}: Native Memory
 * Tracking's summary, the heap before and after a full collection, the largest classes of the live
 * heap) and from the kernel ({@code /proc/PID/smaps_rollup}, threads). The agent must have been
 * started with {@code -XX:NativeMemoryTracking=summary}.
 *
 * @param rssBytes VmRSS
 * @param anonBytes anonymous resident memory (heap, malloc, stacks, JIT code)
 * @param fileBytes file-backed resident memory (libjvm and other libraries' code, the CDS archive)
 * @param nmtCommittedBytes NMT's committed memory by category
 * @param nmtTotalBytes NMT's total committed
 * @param heapCommittedBytes the Java heap's committed size
 * @param heapUsedBytes used before the collection
 * @param heapLiveBytes used after a full collection (what is live)
 * @param threads the process's threads
 * @param topClasses the largest classes of the live heap: "class: bytes (instances)"
 */
public record JvmMemory(long rssBytes, long anonBytes, long fileBytes, Map<String, Long> nmtCommittedBytes,
    long nmtTotalBytes, long heapCommittedBytes, long heapUsedBytes, long heapLiveBytes, int threads,
    List<String> topClasses) {

  private static final Pattern NMT_CATEGORY = Pattern.compile("^-\\s+(.+?) \\(reserved=\\d+KB, committed=(\\d+)KB\\)");
  private static final Pattern NMT_TOTAL = Pattern.compile("^Total: reserved=\\d+KB, committed=(\\d+)KB");
  private static final Pattern HEAP_SPACE = Pattern.compile("(?:generation|heap)\\s+total (\\d+)K, used (\\d+)K");
  private static final Pattern HISTO = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");

  /** Reads it all from the running JVM {@code pid}. */
  public static JvmMemory of(long pid) {
    String jcmd = jcmd();
    String p = Long.toString(pid);
    String nmt = Exec.run(List.of(jcmd, p, "VM.native_memory", "summary"));
    String before = Exec.run(List.of(jcmd, p, "GC.heap_info"));
    String histogram = Exec.run(List.of(jcmd, p, "GC.class_histogram")); // a full collection first
    String after = Exec.run(List.of(jcmd, p, "GC.heap_info"));
    String rollup = read(Path.of("/proc", p, "smaps_rollup"));
    String status = read(Path.of("/proc", p, "status"));
    long[] heapBefore = heap(before);
    return new JvmMemory(kib(status, "VmRSS"), kib(rollup, "Anonymous"), kib(rollup, "Rss") - kib(rollup, "Anonymous"),
        nmtCategories(nmt), nmtTotal(nmt), heapBefore[0], heapBefore[1], heap(after)[1],
        (int) number(status, "Threads"), topClasses(histogram, 8));
  }

  static Map<String, Long> nmtCategories(String nmt) {
    Map<String, Long> out = new LinkedHashMap<>();
    for (String line : nmt.split("\n")) {
      Matcher m = NMT_CATEGORY.matcher(line.trim());
      if (m.find()) {
        out.put(m.group(1).trim(), Long.parseLong(m.group(2)) * 1024);
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("parse jcmd VM.native_memory summary: no categories (NMT off?)");
    }
    return out;
  }

  static long nmtTotal(String nmt) {
    for (String line : nmt.split("\n")) {
      Matcher m = NMT_TOTAL.matcher(line.trim());
      if (m.find()) {
        return Long.parseLong(m.group(1)) * 1024;
      }
    }
    throw new IllegalArgumentException("parse jcmd VM.native_memory summary: no Total line");
  }

  /** {committed, used} of the heap's spaces in {@code jcmd GC.heap_info}. */
  static long[] heap(String info) {
    long total = 0;
    long used = 0;
    Matcher m = HEAP_SPACE.matcher(info);
    boolean any = false;
    while (m.find()) {
      any = true;
      total += Long.parseLong(m.group(1)) * 1024;
      used += Long.parseLong(m.group(2)) * 1024;
    }
    if (!any) {
      throw new IllegalArgumentException("parse jcmd GC.heap_info: no 'total NK, used NK' line");
    }
    return new long[] {total, used};
  }

  static List<String> topClasses(String histogram, int n) {
    List<String> out = new ArrayList<>();
    for (String line : histogram.split("\n")) {
      Matcher m = HISTO.matcher(line);
      if (m.find() && out.size() < n) {
        out.add(m.group(3) + ": " + m.group(2) + " B (" + m.group(1) + ")");
      }
    }
    return out;
  }

  /** A "Key:   N kB" line's value in bytes. */
  static long kib(String text, String key) {
    return number(text, key) * 1024;
  }

  /** A "Key:   N ..." line's number. */
  static long number(String text, String key) {
    for (String line : text.split("\n")) {
      if (line.startsWith(key + ":")) {
        return Long.parseLong(line.substring(key.length() + 1).trim().split("\\s+")[0]);
      }
    }
    throw new IllegalArgumentException("parse /proc: no " + key + " line");
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new IllegalStateException("read " + p + ": " + e.getMessage(), e);
    }
  }

  private static String jcmd() {
    Path java = Path.of(ProcessHandle.current().info().command().orElse("java"));
    Path sibling = java.resolveSibling("jcmd");
    return Files.isExecutable(sibling) ? sibling.toString() : Tools.require("jcmd");
  }
}

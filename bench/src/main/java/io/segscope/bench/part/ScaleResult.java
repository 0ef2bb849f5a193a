package io.segscope.bench.part;

import io.segscope.bench.Stats;
import java.util.List;

/**
 * Part 4: the agent's HTTP latency, payload, memory, CPU and start time as the number of devices grows.
 *
 * @param levels one per fleet size
 * @param interval the agent's map read interval during the measurements
 */
public record ScaleResult(List<Level> levels, String interval, CompileMemory compileMemory) {

  /**
   * Resident memory (kB) of a fresh JVM with the agent's flags that only opens the agent's probe session
   * (libbcc compiles and attaches the programs in-process): before, after attaching, and after glibc's
   * malloc_trim(0). Each is {VmRSS, RssAnon, RssFile}. Null when it could not be measured.
   */
  public record CompileMemory(long[] before, long[] attached, long[] trimmed) {
    /** Parses CompileMemory's line {@code before=R/A/F attached=R/A/F trimmed=R/A/F}. */
    public static CompileMemory parse(String line) {
      java.util.Map<String, long[]> m = new java.util.HashMap<>();
      for (String part : line.trim().split("\\s+")) {
        String[] kv = part.split("=", 2);
        String[] v = kv.length == 2 ? kv[1].split("/") : new String[0];
        if (v.length != 3) {
          throw new IllegalArgumentException("parse compile memory `" + line + "`: expected key=rss/anon/file");
        }
        m.put(kv[0], new long[] {Long.parseLong(v[0]), Long.parseLong(v[1]), Long.parseLong(v[2])});
      }
      if (!m.keySet().containsAll(List.of("before", "attached", "trimmed"))) {
        throw new IllegalArgumentException("parse compile memory `" + line + "`: before, attached and trimmed needed");
      }
      return new CompileMemory(m.get("before"), m.get("attached"), m.get("trimmed"));
    }
  }

  /**
   * One fleet size.
   *
   * @param fleetDevices veth devices the suite created for this level (two per pair)
   * @param inventoryDevices devices the agent's inventory reported (/api/v1/devices), all namespaces of the
   *     host (other engineers' labs included)
   * @param gsoDevices devices with per-device GSO series in /metrics (they carried GSO traffic)
   * @param fleetGsoDevices of those, the fleet's own devices
   * @param metricsSeries sample lines in one /metrics answer
   * @param firstScrapeSeconds JVM spawn → first 200 from /metrics
   * @param readySeconds JVM spawn → first 200 from /readyz
   * @param probesAttachSeconds what the agent logged for compiling and attaching its programs ("probes
   *     attached in N ms"), -1 when the line is missing
   * @param metrics latency of GET /metrics (ms) and its payload
   * @param devicesApi latency of GET /api/v1/devices (ms) and its payload
   * @param idleCores agent CPU, in cores, with no traffic
   * @param loadCores agent CPU during S1 iperf3 traffic
   */
  public record Level(int fleetDevices, int inventoryDevices, int gsoDevices, int fleetGsoDevices,
      long metricsSeries, double firstScrapeSeconds, double readySeconds, double probesAttachSeconds,
      Latency metrics, Latency devicesApi,
      long idleRssBytes, double idleCores, long loadRssBytes, double loadCores, double loadGbps) {}

  /** Request latency in milliseconds over {@code ms.n()} sequential requests, and the answer's size. */
  public record Latency(String path, Stats.Summary ms, long payloadBytes) {}
}

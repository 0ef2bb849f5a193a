package io.segscope.bench.part;

import io.segscope.bench.agent.JvmMemory;
import io.segscope.bench.common.Stats;
import io.segscope.bench.kernel.BpfFdinfo;
import java.util.List;

/**
 * Part 3: the agent at 10, 100, 1,000 real devices (veth pairs in lab namespaces, each carrying TCP).
 *
 * @param interval the agent's read interval
 * @param possibleCpus this host's possible CPUs (per-CPU maps hold a value per possible CPU)
 * @param javaOptions the launcher's JVM flags the agent ran with
 * @param levels one per device count
 * @param jvm where the memory goes at the largest level (a second start with Native Memory Tracking),
 *     null when not measured
 */
public record ScaleResult(String interval, int possibleCpus, String javaOptions, List<Level> levels, JvmMemory jvm) {

  /**
   * One device count.
   *
   * @param fleetDevices devices of the fleet
   * @param inventoryDevices devices the agent inventoried (the whole host: other labs' included)
   * @param fleetDevicesCounted fleet devices the agent exports GSO series for
   * @param series sample lines of one text scrape
   * @param firstScrapeSeconds spawn to the first /metrics with programs attached
   * @param metricsGzip /metrics as Prometheus asks (its Accept header, Accept-Encoding: gzip)
   * @param metricsPlain /metrics with the same Accept header, no compression
   * @param devicesApi /api/v1/devices
   * @param rssBytes VmRSS after the requests
   * @param peakRssBytes VmHWM: the most the agent was ever resident with
   * @param idleCores the agent's CPU while idle (1.0 = one core)
   * @param loadRssBytes VmRSS at the end of S1 iperf3 load
   * @param loadCores its CPU under that load
   * @param maps the agent's BPF maps with their memlock at this level
   * @param mapReadSeconds the agent's mean time to read its maps and build a snapshot
   *     (segscope_map_read_seconds: the reader's work per interval)
   */
  public record Level(int fleetDevices, int inventoryDevices, int fleetDevicesCounted, long series,
      double firstScrapeSeconds, Latency metricsGzip, Latency metricsPlain, Latency devicesApi, long rssBytes,
      long peakRssBytes, double idleCores, long loadRssBytes, double loadCores, double loadGbps,
      List<BpfFdinfo.BpfMap> maps, double mapReadSeconds) {

    public long mapMemlockBytes() {
      return maps.stream().mapToLong(BpfFdinfo.BpfMap::memlockBytes).sum();
    }
  }

  /**
   * Sequential requests to one endpoint in one variant.
   *
   * @param contentType what the agent answered with
   * @param encoding its Content-Encoding ("" for none)
   * @param bytes the body size as sent
   */
  public record Latency(String path, String variant, Stats.Summary ms, long bytes, String contentType,
      String encoding) {}

  /** The largest level, or null. */
  public Level top() {
    return levels.isEmpty() ? null : levels.get(levels.size() - 1);
  }
}

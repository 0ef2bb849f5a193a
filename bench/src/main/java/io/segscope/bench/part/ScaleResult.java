package io.segscope.bench.part;

import io.segscope.bench.Stats;
import java.util.List;

/**
 * Part 4: the agent's HTTP latency, payload, memory, CPU and start time as the number of devices grows.
 *
 * @param levels one per fleet size
 * @param interval the agent's map read interval during the measurements
 */
public record ScaleResult(List<Level> levels, String interval) {

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
   * @param metrics latency of GET /metrics (ms) and its payload
   * @param devicesApi latency of GET /api/v1/devices (ms) and its payload
   * @param idleCores agent CPU, in cores, with no traffic
   * @param loadCores agent CPU during S1 iperf3 traffic
   */
  public record Level(int fleetDevices, int inventoryDevices, int gsoDevices, int fleetGsoDevices,
      long metricsSeries, double firstScrapeSeconds, double readySeconds, Latency metrics, Latency devicesApi,
      long idleRssBytes, double idleCores, long loadRssBytes, double loadCores, double loadGbps) {}

  /** Request latency in milliseconds over {@code ms.n()} sequential requests, and the answer's size. */
  public record Latency(String path, Stats.Summary ms, long payloadBytes) {}
}

package io.segscope.bench.part;

import io.segscope.bench.common.Stats;

/**
 * Part "container": the agent's image (scripts/image) run through CRI on the lab's private containerd
 * with the rendered DaemonSet's settings, on a node with 1,000 more devices; its memory against the
 * manifest's memory limit and its CPU against the manifest's CPU request.
 *
 * @param image the image's name
 * @param imageSeconds what scripts/image took in this run (warm when nothing changed)
 * @param renderer how deploy/kubernetes was rendered (kubectl kustomize, or the bench's own rendering)
 * @param args the container's args as the kubelet passes them (the image's ENTRYPOINT comes first)
 * @param memoryLimitBytes the manifest's resources.limits.memory
 * @param memoryRequestBytes its resources.requests.memory (0 when absent)
 * @param cpuRequestCores its resources.requests.cpu
 * @param cpuLimitCores its resources.limits.cpu (0 when absent)
 * @param fleetDevices the lab's veth devices (in namespaces the container sees under its /run/netns)
 * @param inventoryDevices devices in the agent's inventory (/api/v1/devices: the node's own included)
 * @param fleetDevicesCounted fleet devices with offloaded-GSO series in a scrape after the traffic (that count
 *     is sampled in timing windows, which open only on software segmentation: 0 on the fleet's veths)
 * @param readySeconds container start to the readiness probe's first success
 * @param cgroupMemoryBytes the container's memory cgroup charge (v1 memory.usage_in_bytes, v2
 *     memory.current) at the end, what the limit is held against
 * @param cgroupInactiveFileBytes inactive file pages of that charge (the kubelet's working set = charge
 *     minus these)
 * @param peakCgroupMemoryBytes the most the memory cgroup held (v1 memory.max_usage_in_bytes, v2
 *     memory.peak; 0 when the kernel has neither)
 * @param rssBytes the agent process' VmRSS at the end
 * @param peakRssBytes its VmHWM
 * @param idleSeconds the idle span: no request to the agent
 * @param idleCores the container's CPU over it (cgroup CPU time ÷ span), the agent's map reads included
 * @param scrapedSeconds the scraped span
 * @param scrapeIntervalSeconds the ServiceMonitor's interval, at which /metrics was scraped in that span
 * @param scrapes scrapes in that span
 * @param scrapedCores the container's CPU over the scraped span
 * @param scrapeMs the scrapes' latency (as Prometheus asks: its Accept header, gzip)
 * @param scrapeBytes the body size of the last scrape (gzip)
 */
public record ContainerResult(String image, double imageSeconds, String renderer, String args, long memoryLimitBytes,
    long memoryRequestBytes, double cpuRequestCores, double cpuLimitCores, int fleetDevices, int inventoryDevices,
    int fleetDevicesCounted, double readySeconds, long cgroupMemoryBytes, long cgroupInactiveFileBytes,
    long peakCgroupMemoryBytes, long rssBytes, long peakRssBytes, double idleSeconds, double idleCores,
    double scrapedSeconds, double scrapeIntervalSeconds, int scrapes, double scrapedCores, Stats.Summary scrapeMs,
    long scrapeBytes) {

  /** The kubelet's working set: the cgroup's charge without its inactive file pages. */
  public long workingSetBytes() {
    return Math.max(0, cgroupMemoryBytes - cgroupInactiveFileBytes);
  }
}

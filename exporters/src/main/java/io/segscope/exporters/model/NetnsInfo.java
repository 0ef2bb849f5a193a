package io.segscope.exporters.model;

/**
 * One network namespace of the inventory and the workload it belongs to
 * ({@code segscope_netns_info}).
 *
 * @param netns the namespace's inode number
 * @param netnsName its name under /run/netns (or a --netns-dir), "" when it has none
 * @param workload who it belongs to
 */
public record NetnsInfo(long netns, String netnsName, WorkloadInfo workload) {
  public NetnsInfo {
    Checks.notNegative(netns, "NetnsInfo.netns (namespace inode)");
    Checks.notNull(netnsName, "NetnsInfo.netnsName (use \"\" for an unnamed namespace)");
    Checks.notNull(workload, "NetnsInfo.workload");
  }

  public String netnsLabel() {
    return Long.toString(netns);
  }
}

package io.segscope.exporters.model;

/**
 * The workload a device serves ({@code segscope_device_workload_info}): the one of its own namespace,
 * or, for the host side of a pod's or container's veth, the one of its peer's namespace.
 *
 * @param device the device
 * @param workloadNetns the namespace whose workload it is (its own, or its peer's)
 * @param workload that workload
 */
public record DeviceWorkload(DeviceRef device, long workloadNetns, WorkloadInfo workload) {
  public DeviceWorkload {
    Checks.notNull(device, "DeviceWorkload.device");
    Checks.notNegative(workloadNetns, "DeviceWorkload.workloadNetns (namespace inode)");
    Checks.notNull(workload, "DeviceWorkload.workload");
  }
}

package io.segscope.exporters.model;

/**
 * Who a network namespace (or a device) belongs to, as the {@code segscope_netns_info} and
 * {@code segscope_device_workload_info} families label it. Every field is a label value: "" when
 * unknown, never null.
 *
 * @param kind {@code pod}, {@code container}, {@code service}, {@code process}, {@code named},
 *     {@code host} or {@code unknown} (the {@code workload_kind} label)
 * @param name a name for a person ({@code workload} label): "namespace/pod", "docker:3f2a1b0c9d8e",
 *     "nginx.service", a process name, the netns name, "host"
 * @param pod the pod's name (CRI), "" when not a pod or not known
 * @param podNamespace the pod's Kubernetes namespace
 * @param podUid the pod's uid (CRI, or the kubepods cgroup path)
 * @param container the id of the container that holds the namespace (for a pod: its sandbox)
 */
public record WorkloadInfo(String kind, String name, String pod, String podNamespace, String podUid,
    String container) {
  public WorkloadInfo {
    Checks.notBlank(kind, "WorkloadInfo.kind");
    Checks.notNull(name, "WorkloadInfo.name");
    Checks.notNull(pod, "WorkloadInfo.pod");
    Checks.notNull(podNamespace, "WorkloadInfo.podNamespace");
    Checks.notNull(podUid, "WorkloadInfo.podUid");
    Checks.notNull(container, "WorkloadInfo.container");
  }

  /** The host's own namespace. */
  public static WorkloadInfo host() {
    return new WorkloadInfo("host", "host", "", "", "", "");
  }
}

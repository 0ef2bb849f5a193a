package io.segscope.agent.workload;

import io.segscope.exporters.model.WorkloadInfo;

/**
 * Who a network namespace belongs to. Every string is data from the runtime or /proc ("" when
 * unknown), bounded in length, never interpreted.
 *
 * @param kind what it is
 * @param name for a person: "namespace/pod", "docker:3f2a1b0c9d8e", "nginx.service", a process name,
 *     the namespace's name, "host"
 * @param pod the pod's name (CRI)
 * @param podNamespace the pod's Kubernetes namespace (CRI)
 * @param podUid the pod's uid (CRI, or the kubepods cgroup path)
 * @param container the id of the container holding the namespace (for a pod, its sandbox)
 * @param runtime containerd, cri-o, docker, podman, ... when known
 * @param unit the systemd unit of the owning process
 * @param process the name (comm) of the owning process
 * @param pid the owning process (the lowest pid in the namespace; 0 when none was read)
 * @param source where it was learned: {@code cri}, {@code cgroup}, {@code process}, {@code netns_name},
 *     {@code host}
 */
public record Workload(WorkloadKind kind, String name, String pod, String podNamespace, String podUid,
    String container, String runtime, String unit, String process, long pid, String source) {

  /** Longest label value kept (Kubernetes names are at most 253 characters). */
  static final int MAX_VALUE = 256;

  public Workload {
    name = bound(name);
    pod = bound(pod);
    podNamespace = bound(podNamespace);
    podUid = bound(podUid);
    container = bound(container);
    runtime = bound(runtime);
    unit = bound(unit);
    process = bound(process);
    source = bound(source);
  }

  public static Workload host() {
    return new Workload(WorkloadKind.HOST, "host", "", "", "", "", "", "", "", 0, "host");
  }

  public static Workload named(String netnsName) {
    return new Workload(WorkloadKind.NAMED, netnsName, "", "", "", "", "", "", "", 0, "netns_name");
  }

  public static Workload unknown() {
    return new Workload(WorkloadKind.UNKNOWN, "", "", "", "", "", "", "", "", 0, "");
  }

  /** A pod the runtime named. */
  public static Workload pod(String name, String namespace, String uid, String sandboxId, String runtime) {
    return new Workload(WorkloadKind.POD, namespace.isEmpty() ? name : namespace + "/" + name, name, namespace, uid,
        sandboxId, runtime, "", "", 0, "cri");
  }

  /** The exporters' view: the label values. */
  public WorkloadInfo info() {
    return new WorkloadInfo(kind.label(), name, pod, podNamespace, podUid, container);
  }

  private static String bound(String s) {
    if (s == null) {
      return "";
    }
    return s.length() <= MAX_VALUE ? s : s.substring(0, MAX_VALUE);
  }
}

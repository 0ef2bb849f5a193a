package io.segscope.agent.workload;

/**
 * What kind of thing a network namespace belongs to (the {@code workload_kind} label), most specific
 * first: a device is attributed to its peer's workload only when that one ranks above its own.
 */
public enum WorkloadKind {
  /** A Kubernetes pod: from the CRI, or a kubepods cgroup when no runtime answers. */
  POD("pod"),
  /** A container outside Kubernetes (Docker, Podman, containerd, CRI-O), from its cgroup. */
  CONTAINER("container"),
  /** A systemd unit (e.g. a service with PrivateNetwork=yes), from its cgroup. */
  SERVICE("service"),
  /** A plain process, by its name. */
  PROCESS("process"),
  /**
   * A namespace bind-mounted under /run/netns (or a --netns-dir) with no pod, container or service in it
   * (plain processes, or none): named by its name.
   */
  NAMED("named"),
  /** The host's own (initial) namespace. */
  HOST("host"),
  /** Nothing known yet. */
  UNKNOWN("unknown");

  private final String label;

  WorkloadKind(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }

  /** Pods, containers, services and processes are workloads of their own; the others are not. */
  public boolean isWorkload() {
    return ordinal() <= PROCESS.ordinal();
  }

  /** Whether this kind names a workload more precisely than {@code other}. */
  public boolean outranks(WorkloadKind other) {
    return ordinal() < other.ordinal();
  }
}

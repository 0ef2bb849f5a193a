package io.segscope.agent.cli;

import io.segscope.agent.workload.CriEndpoints;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The flags {@code run} and {@code report} share to name pods and containers (a picocli mixin):
 * which CRI sockets are asked (--cri-endpoint) and how long one call may take (--cri-timeout).
 */
public final class WorkloadOptions {

  @Option(names = "--cri-endpoint", paramLabel = "SOCKET",
      description = "A container runtime's CRI socket to name pods from (path or unix:///path); repeatable. "
          + "Default: those of /run/containerd/containerd.sock, /run/k3s/containerd/containerd.sock and "
          + "/run/crio/crio.sock that exist. 'none': ask no runtime. Only ListPodSandbox and PodSandboxStatus "
          + "are called.")
  List<String> criEndpoints = new ArrayList<>();

  @Option(names = "--cri-timeout", paramLabel = "DURATION", defaultValue = "2s",
      converter = Bounds.CriTimeout.class,
      description = "Deadline of one CRI call; a runtime that does not answer in time keeps its last answer; "
          + "10ms..1m (default: ${DEFAULT-VALUE}).")
  Duration criTimeout;

  /**
   * The runtimes to ask.
   *
   * @throws IllegalArgumentException naming the --cri-endpoint value that is no socket path
   */
  CriEndpoints endpoints() {
    return CriEndpoints.parse(criEndpoints);
  }

  /** --cri-timeout. */
  Duration timeout() {
    return criTimeout;
  }
}

package io.segscope.agent;

import java.time.Duration;

/**
 * How {@code segscope run} was asked to behave.
 *
 * @param interval how often the maps are read
 * @param bpfStats whether to turn on the kernel's bpf_stats while running
 * @param adviceWindow the window over which costs are computed for the rules
 * @param adviceOpenAfter how long a finding must hold before it becomes a recommendation
 * @param adviceCloseAfter how long a recommendation must lack evidence before it closes
 * @param netnsDirs directories of named namespace bind mounts besides /run/netns (e.g. /run/docker/netns)
 * @param probeMode the only probe mode to use, or empty to pick the best per path
 * @param criEndpoints which container runtimes' CRI sockets name the pods
 * @param criTimeout the deadline of one CRI call
 */
public record AgentOptions(String host, int port, Duration interval, boolean bpfStats, Duration adviceWindow,
    Duration adviceOpenAfter, Duration adviceCloseAfter, java.util.List<java.nio.file.Path> netnsDirs,
    java.util.Optional<io.segscope.probes.ProbeMode> probeMode, io.segscope.agent.workload.CriEndpoints criEndpoints,
    Duration criTimeout) {

  /** The default CRI sockets, 2 s per call. */
  public AgentOptions(String host, int port, Duration interval, boolean bpfStats, Duration adviceWindow,
      Duration adviceOpenAfter, Duration adviceCloseAfter, java.util.List<java.nio.file.Path> netnsDirs,
      java.util.Optional<io.segscope.probes.ProbeMode> probeMode) {
    this(host, port, interval, bpfStats, adviceWindow, adviceOpenAfter, adviceCloseAfter, netnsDirs, probeMode,
        io.segscope.agent.workload.CriEndpoints.defaults(), Duration.ofSeconds(2));
  }

  /** The workload resolver's configuration. */
  public io.segscope.agent.workload.WorkloadResolver.Config workloadConfig() {
    var d = io.segscope.agent.workload.WorkloadResolver.Config.defaults();
    return new io.segscope.agent.workload.WorkloadResolver.Config(criEndpoints, criTimeout, d.refresh(), d.proc());
  }

  /** The inventory's configuration: the defaults plus the extra namespace directories. */
  public io.segscope.agent.inventory.InventoryConfig inventoryConfig() {
    var c = io.segscope.agent.inventory.InventoryConfig.defaults();
    java.util.List<java.nio.file.Path> dirs = new java.util.ArrayList<>(c.namedNetnsDirs());
    netnsDirs.stream().filter(d -> !dirs.contains(d)).forEach(dirs::add);
    return c.withNamedNetnsDirs(dirs);
  }
}

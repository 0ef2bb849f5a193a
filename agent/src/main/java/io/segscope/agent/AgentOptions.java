package io.segscope.agent;

import java.time.Duration;

/**
 * How {@code segscope run} was asked to behave.
 *
 * @param http where and how the HTTP server listens (address, web config, limits, timeouts)
 * @param interval how often the maps are read
 * @param selfCost how the agent measures its own in-kernel cost (bpf_stats: off, sampled, always)
 * @param adviceWindow the window over which costs are computed for the rules
 * @param adviceOpenAfter how long a finding must hold before it becomes a recommendation
 * @param adviceCloseAfter how long a recommendation must lack evidence before it closes
 * @param netnsDirs directories of named namespace bind mounts besides /run/netns (e.g. /run/docker/netns)
 * @param probeMode the only probe mode to use, or empty to pick the best per path
 * @param tracepointAttach the only tracepoint attach type to use, or empty for the cheapest that works
 * @param devices which devices are reported (--device-include, --device-exclude, --max-devices)
 * @param criEndpoints which container runtimes' CRI sockets name the pods
 * @param criTimeout the deadline of one CRI call
 * @param intent the findings the operator accepted (--advice-accept, --advice-config)
 * @param cacheDir where compiled probe programs are kept between starts, empty for no cache
 */
public record AgentOptions(io.segscope.agent.http.HttpSettings http, Duration interval,
    io.segscope.agent.telemetry.SelfCost.Mode selfCost, Duration adviceWindow,
    Duration adviceOpenAfter, Duration adviceCloseAfter, java.util.List<java.nio.file.Path> netnsDirs,
    java.util.Optional<io.segscope.probes.ProbeMode> probeMode,
    java.util.Optional<io.segscope.probes.TracepointAttach> tracepointAttach,
    io.segscope.agent.telemetry.DeviceSelection.Config devices,
    io.segscope.agent.workload.CriEndpoints criEndpoints, Duration criTimeout,
    io.segscope.agent.advice.AdviceIntent intent, java.util.Optional<java.nio.file.Path> cacheDir) {

  /** Options without accepted findings and without a compile cache. */
  public AgentOptions(io.segscope.agent.http.HttpSettings http, Duration interval,
      io.segscope.agent.telemetry.SelfCost.Mode selfCost, Duration adviceWindow, Duration adviceOpenAfter,
      Duration adviceCloseAfter, java.util.List<java.nio.file.Path> netnsDirs,
      java.util.Optional<io.segscope.probes.ProbeMode> probeMode,
      java.util.Optional<io.segscope.probes.TracepointAttach> tracepointAttach,
      io.segscope.agent.telemetry.DeviceSelection.Config devices,
      io.segscope.agent.workload.CriEndpoints criEndpoints, Duration criTimeout) {
    this(http, interval, selfCost, adviceWindow, adviceOpenAfter, adviceCloseAfter, netnsDirs, probeMode,
        tracepointAttach, devices, criEndpoints, criTimeout, io.segscope.agent.advice.AdviceIntent.NONE,
        java.util.Optional.empty());
  }

  /** The probes as asked for: the maps hold at least 4096 devices, and at least --max-devices. */
  public io.segscope.agent.probing.ProbeFactory.Request probeRequest() {
    return new io.segscope.agent.probing.ProbeFactory.Request(probeMode, tracepointAttach,
        Math.max(4096, devices.maxDevices()), cacheDir);
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

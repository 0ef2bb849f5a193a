package io.segscope.agent;

import io.segscope.agent.advice.AdviceIntent;
import io.segscope.agent.http.HttpSettings;
import io.segscope.agent.inventory.InventoryConfig;
import io.segscope.agent.probing.ProbeFactory;
import io.segscope.agent.telemetry.DeviceSelection;
import io.segscope.agent.telemetry.SelfCost;
import io.segscope.agent.telemetry.VanishedDevices;
import io.segscope.agent.workload.CriEndpoints;
import io.segscope.agent.workload.WorkloadResolver;
import io.segscope.probes.ProbeMode;
import io.segscope.probes.Timing;
import io.segscope.probes.TracepointAttach;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

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
 * @param timing when the timing programs are attached (--timing-window)
 * @param failLoad a path:mode whose programs are made to fail to load (hidden --inject-load-failure; empty: none)
 * @param vanishedDeviceGrace how long a vanished device keeps its series (hidden --vanished-device-grace)
 */
public record AgentOptions(HttpSettings http, Duration interval,
    SelfCost.Mode selfCost, Duration adviceWindow,
    Duration adviceOpenAfter, Duration adviceCloseAfter, List<Path> netnsDirs,
    Optional<ProbeMode> probeMode,
    Optional<TracepointAttach> tracepointAttach,
    DeviceSelection.Config devices,
    CriEndpoints criEndpoints, Duration criTimeout,
    AdviceIntent intent, Optional<Path> cacheDir, Timing timing, String failLoad, Duration vanishedDeviceGrace) {

  /** Options with the default timing windows, nothing injected and the default vanished-device grace. */
  public AgentOptions(HttpSettings http, Duration interval,
      SelfCost.Mode selfCost, Duration adviceWindow, Duration adviceOpenAfter,
      Duration adviceCloseAfter, List<Path> netnsDirs,
      Optional<ProbeMode> probeMode,
      Optional<TracepointAttach> tracepointAttach,
      DeviceSelection.Config devices,
      CriEndpoints criEndpoints, Duration criTimeout, AdviceIntent intent, Optional<Path> cacheDir) {
    this(http, interval, selfCost, adviceWindow, adviceOpenAfter, adviceCloseAfter, netnsDirs, probeMode,
        tracepointAttach, devices, criEndpoints, criTimeout, intent, cacheDir, Timing.DEFAULT, "",
        VanishedDevices.GRACE);
  }

  /** Options without accepted findings and without a compile cache. */
  public AgentOptions(HttpSettings http, Duration interval,
      SelfCost.Mode selfCost, Duration adviceWindow, Duration adviceOpenAfter,
      Duration adviceCloseAfter, List<Path> netnsDirs,
      Optional<ProbeMode> probeMode,
      Optional<TracepointAttach> tracepointAttach,
      DeviceSelection.Config devices,
      CriEndpoints criEndpoints, Duration criTimeout) {
    this(http, interval, selfCost, adviceWindow, adviceOpenAfter, adviceCloseAfter, netnsDirs, probeMode,
        tracepointAttach, devices, criEndpoints, criTimeout, AdviceIntent.NONE,
        Optional.empty());
  }

  /** The probes as asked for: the maps hold at least 4096 devices, and at least --max-devices. */
  public ProbeFactory.Request probeRequest() {
    return new ProbeFactory.Request(probeMode, tracepointAttach, ProbeFactory.Request.mapDevices(devices.maxDevices()),
        cacheDir, timing, failLoad);
  }

  /** The workload resolver's configuration. */
  public WorkloadResolver.Config workloadConfig() {
    var d = WorkloadResolver.Config.defaults();
    return new WorkloadResolver.Config(criEndpoints, criTimeout, d.refresh(), d.proc());
  }

  /** The inventory's configuration: the defaults plus the extra namespace directories. */
  public InventoryConfig inventoryConfig() {
    return InventoryConfig.defaults().plusNamedNetnsDirs(netnsDirs);
  }
}

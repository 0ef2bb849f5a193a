package io.segscope.agent.cli;

import io.segscope.agent.AgentOptions;
import io.segscope.agent.AgentRuntime;
import io.segscope.agent.Privileges;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code segscope run}: the agent. */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description = {
      "Attach the probes, follow every network device in every namespace, and serve /metrics "
          + "(Prometheus text, OpenMetrics or protobuf by content negotiation), /api/v1/devices, "
          + "/api/v1/recommendations, /healthz and /readyz until SIGINT or SIGTERM."
    })
public final class RunCommand implements Callable<Integer> {

  @Option(names = "--listen", paramLabel = "HOST:PORT", defaultValue = "0.0.0.0:9810",
      converter = ListenAddress.Converter.class,
      description = "Where the HTTP server listens (default: ${DEFAULT-VALUE}).")
  ListenAddress listen;

  @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "5s",
      converter = DurationConverter.class,
      description = "How often the BPF maps are read, e.g. 1s, 500ms (default: ${DEFAULT-VALUE}).")
  Duration interval;

  @Option(names = "--advice-window", paramLabel = "DURATION", defaultValue = "30s",
      converter = DurationConverter.class,
      description = "Window over which costs are measured for the recommendation rules (default: ${DEFAULT-VALUE}).")
  Duration adviceWindow;

  @Option(names = "--advice-open-after", paramLabel = "DURATION", defaultValue = "30s",
      converter = DurationConverter.class,
      description = "How long a problem must be seen without a break before it is recommended "
          + "(default: ${DEFAULT-VALUE}).")
  Duration adviceOpenAfter;

  @Option(names = "--advice-close-after", paramLabel = "DURATION", defaultValue = "2m",
      converter = DurationConverter.class,
      description = "How long a recommendation must lack evidence before it closes (default: ${DEFAULT-VALUE}).")
  Duration adviceCloseAfter;

  @Option(names = "--netns-dir", paramLabel = "DIR",
      description = "Also name network namespaces from the bind mounts in DIR, besides /run/netns; repeatable "
          + "(e.g. /run/docker/netns on Docker hosts).")
  java.util.List<java.nio.file.Path> netnsDirs = new java.util.ArrayList<>();

  @Option(names = "--cri-endpoint", paramLabel = "SOCKET",
      description = "A container runtime's CRI socket to name pods from (path or unix:///path); repeatable. "
          + "Default: those of /run/containerd/containerd.sock, /run/k3s/containerd/containerd.sock and "
          + "/run/crio/crio.sock that exist. 'none': ask no runtime. Only ListPodSandbox and PodSandboxStatus "
          + "are called.")
  java.util.List<String> criEndpoints = new java.util.ArrayList<>();

  @Option(names = "--cri-timeout", paramLabel = "DURATION", defaultValue = "2s",
      converter = DurationConverter.class,
      description = "Deadline of one CRI call; a runtime that does not answer in time keeps its last answer "
          + "(default: ${DEFAULT-VALUE}).")
  Duration criTimeout;

  @Option(names = "--probe-mode", paramLabel = "MODE", defaultValue = "auto",
      converter = ProbeModeOption.Converter.class,
      description = ProbeModeOption.DESCRIPTION + " A forced mode that cannot work fails the start.")
  ProbeModeOption probeMode;

  @Option(names = "--no-bpf-stats", negatable = false,
      description = "Do not turn on the kernel's bpf_stats (the agent's in-kernel run time metrics stay 0).")
  boolean noBpfStats;

  @Override
  public Integer call() throws Exception {
    io.segscope.agent.workload.CriEndpoints cri;
    try {
      cri = io.segscope.agent.workload.CriEndpoints.parse(criEndpoints);
    } catch (IllegalArgumentException e) {
      System.err.println("segscope run: " + e.getMessage());
      return 2;
    }
    List<String> missing = Privileges.missing();
    if (!missing.isEmpty()) {
      System.err.println("segscope run: missing privileges: " + String.join(", ", missing)
          + " (run as root, or grant these capabilities)");
      return 1;
    }
    for (java.nio.file.Path d : netnsDirs) {
      if (java.nio.file.Files.exists(d) && !java.nio.file.Files.isDirectory(d)) {
        System.err.println("segscope run: --netns-dir " + d + " is not a directory");
        return 2;
      }
    }
    AgentOptions options = new AgentOptions(listen.host(), listen.port(), interval, !noBpfStats, adviceWindow,
        adviceOpenAfter, adviceCloseAfter, netnsDirs, probeMode.forced(), cri, criTimeout);
    try (AgentRuntime agent = AgentRuntime.start(options)) {
      agent.awaitStopSignal();
    }
    return 0;
  }
}

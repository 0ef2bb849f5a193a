package io.segscope.agent.cli;

import io.segscope.agent.AgentOptions;
import io.segscope.agent.AgentRuntime;
import io.segscope.agent.Privileges;
import io.segscope.agent.http.HttpSettings;
import io.segscope.agent.http.WebConfig;
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

  @Option(names = "--probe-mode", paramLabel = "MODE", defaultValue = "auto",
      converter = ProbeModeOption.Converter.class,
      description = ProbeModeOption.DESCRIPTION + " A forced mode that cannot work fails the start.")
  ProbeModeOption probeMode;

  @Option(names = "--web.config.file", paramLabel = "FILE",
      description = "A web configuration in the Prometheus exporter-toolkit format (as node_exporter's): TLS "
          + "(tls_server_config), basic auth (basic_auth_users, bcrypt), response headers. Checked at start: "
          + "an unknown field or unusable file exits 2. See docs/security.md.")
  java.nio.file.Path webConfigFile;

  @Option(names = "--web.max-requests", paramLabel = "N", defaultValue = "40",
      description = "Requests served at once, 0..10000 (0: no limit); beyond it 503 at once, never queued. One "
          + "client address gets at most half (default: ${DEFAULT-VALUE}, like node_exporter).")
  int maxRequests;

  @Option(names = "--web.read-header-timeout", paramLabel = "DURATION", defaultValue = "10s",
      converter = DurationConverter.class,
      description = "Time a connection has to send a request's headers (and to finish the TLS handshake), "
          + "1s..10m; slower connections are closed (default: ${DEFAULT-VALUE}).")
  Duration readHeaderTimeout;

  @Option(names = "--web.idle-timeout", paramLabel = "DURATION", defaultValue = "60s",
      converter = DurationConverter.class,
      description = "Time a connection may stay without reading or writing a byte, 1s..1h "
          + "(default: ${DEFAULT-VALUE}).")
  Duration idleTimeout;

  @Option(names = "--web.h2c", negatable = false,
      description = "Allow HTTP/2 over plain text (h2c); off by default. With TLS, HTTP/2 follows "
          + "http_server_config.http2 of the web config.")
  boolean h2c;

  @Option(names = "--no-bpf-stats", negatable = false,
      description = "Do not turn on the kernel's bpf_stats (the agent's in-kernel run time metrics stay 0).")
  boolean noBpfStats;

  @Override
  public Integer call() throws Exception {
    if (maxRequests < 0 || maxRequests > 10_000) {
      System.err.println("segscope run: --web.max-requests " + maxRequests + " is outside 0..10000");
      return 2;
    }
    if (readHeaderTimeout.compareTo(Duration.ofSeconds(1)) < 0 || readHeaderTimeout.compareTo(Duration.ofMinutes(10)) > 0) {
      System.err.println("segscope run: --web.read-header-timeout " + readHeaderTimeout + " is outside 1s..10m");
      return 2;
    }
    if (idleTimeout.compareTo(Duration.ofSeconds(1)) < 0 || idleTimeout.compareTo(Duration.ofHours(1)) > 0) {
      System.err.println("segscope run: --web.idle-timeout " + idleTimeout + " is outside 1s..1h");
      return 2;
    }
    WebConfig web = WebConfig.none();
    if (webConfigFile != null) {
      try {
        web = WebConfig.load(webConfigFile);
      } catch (WebConfig.WebConfigException e) {
        System.err.println("segscope run: --web.config.file " + webConfigFile + ": " + e.getMessage());
        return 2;
      }
    }
    HttpSettings http = new HttpSettings(listen.host(), listen.port(), web, maxRequests, readHeaderTimeout,
        idleTimeout, h2c);
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
    AgentOptions options = new AgentOptions(http, interval, !noBpfStats, adviceWindow,
        adviceOpenAfter, adviceCloseAfter, netnsDirs, probeMode.forced());
    try (AgentRuntime agent = AgentRuntime.start(options)) {
      agent.awaitStopSignal();
    }
    return 0;
  }
}

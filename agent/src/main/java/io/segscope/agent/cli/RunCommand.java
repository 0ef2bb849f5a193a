package io.segscope.agent.cli;

import io.segscope.agent.AgentOptions;
import io.segscope.agent.AgentRuntime;
import io.segscope.agent.Privileges;
import io.segscope.agent.StopSignal;
import io.segscope.agent.advice.AdviceIntent;
import io.segscope.agent.http.HttpSettings;
import io.segscope.agent.http.WebConfig;
import io.segscope.agent.telemetry.SelfCost;
import io.segscope.agent.workload.CriEndpoints;
import io.segscope.probes.Timing;
import io.segscope.probes.TracepointAttach;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.logging.Logger;
import picocli.CommandLine;
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
      converter = Bounds.Interval.class,
      description = "How often the BPF maps are read, e.g. 1s, 500ms; 100ms..1h (default: ${DEFAULT-VALUE}).")
  Duration interval;

  @Option(names = "--advice-window", paramLabel = "DURATION", defaultValue = "30s",
      converter = Bounds.AdviceWindow.class,
      description = "Window over which costs are measured for the recommendation rules; 1s..24h and at least "
          + "--interval (default: ${DEFAULT-VALUE}).")
  Duration adviceWindow;

  @Option(names = "--advice-open-after", paramLabel = "DURATION", defaultValue = "30s",
      converter = Bounds.AdviceHold.class,
      description = "How long a problem must be seen without a break before it is recommended; 1s..24h "
          + "(default: ${DEFAULT-VALUE}).")
  Duration adviceOpenAfter;

  @Option(names = "--advice-close-after", paramLabel = "DURATION", defaultValue = "2m",
      converter = Bounds.AdviceHold.class,
      description = "How long a recommendation must lack evidence before it closes; 1s..24h "
          + "(default: ${DEFAULT-VALUE}).")
  Duration adviceCloseAfter;

  /** --advice-accept, --advice-config (shared with report). */
  @CommandLine.Mixin
  AdviceIntentOptions advice = new AdviceIntentOptions();

  /** --netns-dir, --tracepoint-attach, --device-include, --device-exclude, --max-devices (shared with report). */
  @CommandLine.Mixin
  InventoryOptions inventory = new InventoryOptions();

  /** --cri-endpoint, --cri-timeout (shared with report). */
  @CommandLine.Mixin
  WorkloadOptions workload = new WorkloadOptions();

  @Option(names = "--probe-mode", paramLabel = "MODE", defaultValue = "auto",
      converter = ProbeModeOption.Converter.class,
      description = ProbeModeOption.DESCRIPTION + " A forced mode that cannot work fails the start.")
  ProbeModeOption probeMode;

  @Option(names = "--timing-window", paramLabel = "WINDOW[/CYCLE]|always", defaultValue = "1s/10s",
      converter = Bounds.TimingWindow.class,
      description = "How long the timing programs (segmentation durations, the queued and offloaded counts) run, at a "
          + "random moment of every CYCLE (default 10s; 1s..10m) while software segmentation or generic-XDP copies were seen in the last "
          + "5 minutes; WINDOW 100ms..CYCLE, e.g. 3s or 1s/10s, or always. Counts are exact either way (default: "
          + "${DEFAULT-VALUE}).")
  Timing timingWindow;

  /** Hidden, for end-to-end tests of the per-path fallback: PATH:MODE[,PATH:MODE...] fail to load. */
  @Option(names = "--inject-load-failure", paramLabel = "PATH:MODE", hidden = true, defaultValue = "")
  String injectLoadFailure;

  @Option(names = "--self-cost", paramLabel = "MODE", defaultValue = "sampled",
      converter = SelfCostConverter.class,
      description = "How the agent measures its own in-kernel cost with the kernel's bpf_stats, which taxes every "
          + "BPF program on the host (~65-70 ns per run) while on: sampled (on 1 s in every 60 s, extrapolated), "
          + "always, or off (default: ${DEFAULT-VALUE}).")
  SelfCost.Mode selfCost;

  @Option(names = "--web.config.file", paramLabel = "FILE",
      description = "A web configuration in the Prometheus exporter-toolkit format (as node_exporter's): TLS "
          + "(tls_server_config), basic auth (basic_auth_users, bcrypt), response headers. Checked at start: "
          + "an unknown field or unusable file exits 2. See docs/security.md.")
  Path webConfigFile;

  @Option(names = "--web.max-requests", paramLabel = "N", defaultValue = "40",
      converter = Bounds.WebMaxRequests.class,
      description = "Requests served at once, 0..10000 (0: no limit); beyond it 503 at once, never queued. One "
          + "client address gets at most half (default: ${DEFAULT-VALUE}, like node_exporter).")
  int maxRequests;

  @Option(names = "--web.read-header-timeout", paramLabel = "DURATION", defaultValue = "10s",
      converter = Bounds.WebReadHeaderTimeout.class,
      description = "Time a connection has to send a request's headers (and to finish the TLS handshake), "
          + "1s..10m; slower connections are closed (default: ${DEFAULT-VALUE}).")
  Duration readHeaderTimeout;

  @Option(names = "--web.idle-timeout", paramLabel = "DURATION", defaultValue = "60s",
      converter = Bounds.WebIdleTimeout.class,
      description = "Time a connection may stay without reading or writing a byte, 1s..1h "
          + "(default: ${DEFAULT-VALUE}).")
  Duration idleTimeout;

  @Option(names = "--web.h2c", negatable = false,
      description = "Allow HTTP/2 over plain text (h2c); off by default. With TLS, HTTP/2 follows "
          + "http_server_config.http2 of the web config.")
  boolean h2c;

  @Option(names = "--no-bpf-stats", negatable = false, hidden = true,
      description = "Same as --self-cost off (kept for compatibility).")
  boolean noBpfStats;

  /** Parses --self-cost. */
  static final class SelfCostConverter implements CommandLine.ITypeConverter<SelfCost.Mode> {
    @Override
    public SelfCost.Mode convert(String value) {
      try {
        return SelfCost.Mode.parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  @Option(names = "--vanished-device-grace", paramLabel = "DURATION", defaultValue = "15s", hidden = true,
      converter = Bounds.VanishedDeviceGrace.class,
      description = "How long a device that vanished from every namespace keeps its series before they are "
          + "dropped (and how often a namespace still held is looked at again, at most every 5 s); 1s..15s "
          + "(default: ${DEFAULT-VALUE}). Hidden: for tests that watch the grace end in real time.")
  Duration vanishedDeviceGrace;

  @Option(names = "--cache-dir", paramLabel = "DIR", converter = CacheDir.Converter.class,
      description = "Where compiled probe programs are kept, so that a restart on the same kernel with the same "
          + "agent skips the compile; owned by the agent's user, writable by nobody else (else not used); 'none': "
          + "no cache. Default: systemd's $CACHE_DIRECTORY when set, else " + CacheDir.DEFAULT + ".")
  CacheDir cacheDir;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  /** The bounds that involve two flags or a repeat count (a usage error, exit 2). */
  void checkBounds() {
    if (adviceWindow.compareTo(interval) < 0) {
      throw Bounds.violated(spec.commandLine(), "--advice-window " + Bounds.format(adviceWindow)
          + " is shorter than --interval " + Bounds.format(interval) + ": the bound is --interval..24h");
    }
    inventory.checkBounds(spec.commandLine());
  }

  @Override
  public Integer call() throws Exception {
    StopSignal stop = StopSignal.get();
    stop.listen(); // SIGINT/SIGTERM from here on: release everything and exit 0, whatever the start is doing
    checkBounds();
    Optional<WebConfig> web = webConfig();
    if (web.isEmpty()) {
      return 2;
    }
    HttpSettings http = new HttpSettings(listen.host(), listen.port(), web.get(), maxRequests, readHeaderTimeout,
        idleTimeout, h2c);
    CriEndpoints cri;
    try {
      cri = workload.endpoints();
    } catch (IllegalArgumentException e) {
      System.err.println("segscope run: " + e.getMessage());
      return 2;
    }
    AdviceIntent intent;
    try {
      intent = advice.intent();
    } catch (AdviceIntent.IntentException e) {
      System.err.println("segscope run: " + e.getMessage());
      return 2;
    }
    List<String> missing = Privileges.missing();
    if (!missing.isEmpty()) {
      System.err.println("segscope run: missing privileges: " + String.join(", ", missing)
          + " (run as root, or grant these capabilities)");
      return 1;
    }
    Optional<String> notADirectory = inventory.notADirectory();
    if (notADirectory.isPresent()) {
      System.err.println("segscope run: " + notADirectory.get());
      return 2;
    }
    Optional<TracepointAttach> attach;
    try {
      attach = inventory.tracepointAttach();
    } catch (IllegalArgumentException e) {
      System.err.println("segscope run: --tracepoint-attach: " + e.getMessage());
      return 2;
    }
    AgentOptions options = new AgentOptions(http, interval,
        noBpfStats ? SelfCost.Mode.OFF : selfCost, adviceWindow,
        adviceOpenAfter, adviceCloseAfter, inventory.netnsDirs(), probeMode.forced(), attach, inventory.devices(),
        cri, workload.timeout(), intent,
        (cacheDir == null ? CacheDir.fromEnvironment(System.getenv()) : cacheDir).dir(), timingWindow,
        injectLoadFailure, vanishedDeviceGrace);
    try (AgentRuntime agent = AgentRuntime.start(options, stop)) {
      agent.awaitStop(stop);
    } catch (StopSignal.Stopped e) {
      Logger.getLogger(RunCommand.class.getName()).info("stopped during the start: "
          + "nothing left attached");
    }
    return 0;
  }

  /** The web configuration of --web.config.file (none: plain HTTP), or empty after saying why it is unusable. */
  private Optional<WebConfig> webConfig() {
    if (webConfigFile == null) {
      return Optional.of(WebConfig.none());
    }
    try {
      return Optional.of(WebConfig.load(webConfigFile));
    } catch (WebConfig.WebConfigException e) {
      System.err.println("segscope run: --web.config.file " + webConfigFile + ": " + e.getMessage());
      return Optional.empty();
    }
  }
}

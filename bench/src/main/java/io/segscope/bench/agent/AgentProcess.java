package io.segscope.bench.agent;

import io.segscope.testkit.PromText;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The real agent jar as a child process, started the way {@code ./segscope run} starts it (the
 * launcher's JVM flags and environment, {@link Launcher}), listening on a free loopback port. It
 * measures its own start: from spawning the JVM to the first {@code GET /metrics} that answers 200
 * with its programs attached, and to {@code /readyz} = 200.
 */
public final class AgentProcess implements AutoCloseable {
  /** The Accept header Prometheus 3 sends by default (scrape_protocols), and it asks for gzip. */
  public static final String PROMETHEUS_ACCEPT = "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;"
      + "q=0.6,application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=1.0.0;escaping=allow-utf-8;"
      + "q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2";
  /** The text format this suite parses. */
  static final String TEXT_ACCEPT = "text/plain;version=0.0.4";

  private final Process process;
  private final Path log;
  private final int port;
  private final long startedAt;
  private final List<String> command;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(2)).build();
  private double firstScrapeSeconds = -1;
  private double readySeconds = -1;

  private AgentProcess(Process process, Path log, int port, long startedAt, List<String> command) {
    this.process = process;
    this.log = log;
    this.port = port;
    this.startedAt = startedAt;
    this.command = List.copyOf(command);
  }

  /**
   * Starts {@code java FLAGS [extraJvm] -jar jar run --listen 127.0.0.1:PORT ARGS...} with the
   * launcher's environment, output to {@code log}.
   */
  public static AgentProcess start(Launcher launcher, Path jar, Path log, List<String> extraJvm, String... runArgs) {
    int port = freePort();
    List<String> cmd = new ArrayList<>(List.of(java()));
    cmd.addAll(launcher.javaOptions());
    cmd.addAll(extraJvm);
    cmd.addAll(List.of("-jar", jar.toString(), "run", "--listen", "127.0.0.1:" + port));
    cmd.addAll(List.of(runArgs));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().putAll(launcher.environment());
    long t0 = System.nanoTime();
    try {
      return new AgentProcess(pb.start(), log, port, t0, cmd);
    } catch (IOException e) {
      throw new IllegalStateException("start the agent `" + String.join(" ", cmd) + "`: " + e.getMessage(), e);
    }
  }

  /** The java binary running this suite (the same JDK the agent's launcher finds first on PATH here). */
  static String java() {
    return ProcessHandle.current().info().command().orElse("java");
  }

  /**
   * A port free now, chosen at random below the kernel's ephemeral range (32768 and up by default): the
   * agent binds it seconds later, and in the ephemeral range any outgoing connection of another process
   * (a build downloading, another test's client) may take it meanwhile.
   */
  private static int freePort() {
    java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
    IOException last = null;
    for (int attempt = 0; attempt < 50; attempt++) {
      int port = random.nextInt(20_000, 32_000);
      try (ServerSocket s = new ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
        return s.getLocalPort();
      } catch (IOException e) {
        last = e;
      }
    }
    throw new IllegalStateException("find a free port in 20000..31999: " + last.getMessage(), last);
  }

  /**
   * Stops the agent's JVM with SIGSTOP (its BPF programs stay attached and run; nothing of it runs in user
   * space) until {@link #thaw()}.
   */
  public void freeze() {
    signal("STOP");
  }

  /** SIGCONT after {@link #freeze()}. */
  public void thaw() {
    signal("CONT");
  }

  private void signal(String sig) {
    try {
      Process p = new ProcessBuilder("kill", "-" + sig, Long.toString(pid())).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
      if (p.waitFor() != 0) {
        throw new IllegalStateException("kill -" + sig + " " + pid() + ": exit " + p.exitValue() + ": " + out);
      }
    } catch (IOException e) {
      throw new IllegalStateException("kill -" + sig + " " + pid() + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("kill -" + sig + " " + pid() + ": interrupted", e);
    }
  }

  public long pid() {
    return process.pid();
  }

  public List<String> command() {
    return command;
  }

  /**
   * Polls every 20 ms until {@code /metrics} answers 200 with a {@code segscope_probe_attached} series at 1
   * (recording the first-scrape time) and then {@code /readyz} answers 200 (the ready time). Throws
   * with the agent's log otherwise.
   */
  public void awaitReady(Duration timeout) {
    long deadline = startedAt + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("start the agent: it exited with " + process.exitValue() + ": " + tail());
      }
      try {
        if (firstScrapeSeconds < 0) {
          HttpResponse<byte[]> r = get("/metrics", TEXT_ACCEPT, false);
          long now = System.nanoTime();
          if (r.statusCode() == 200 && probesAttached(PromText.parse(new String(r.body(), StandardCharsets.UTF_8)))) {
            firstScrapeSeconds = (now - startedAt) / 1e9;
          }
        }
        // only our agent: another process that took the port first answers too until ours fails to bind
        if (firstScrapeSeconds >= 0 && servingOurPort() && get("/readyz", null, false).statusCode() == 200) {
          readySeconds = (System.nanoTime() - startedAt) / 1e9;
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      sleep(20);
    }
    throw new IllegalStateException("start the agent: not ready within " + timeout.toSeconds() + " s: " + tail());
  }

  /** Whether this agent's own log says it serves on its port. */
  private boolean servingOurPort() {
    return log().contains(" on http://127.0.0.1:" + port + " ");
  }

  static boolean probesAttached(PromText m) {
    return m.samples("segscope_probe_attached").stream().anyMatch(s -> s.value() == 1);
  }

  /** Seconds from spawning the JVM to the first 200 from /metrics with programs attached; -1 before. */
  public double firstScrapeSeconds() {
    return firstScrapeSeconds;
  }

  /** Seconds from spawning the JVM to the first 200 from /readyz; -1 before {@link #awaitReady}. */
  public double readySeconds() {
    return readySeconds;
  }

  /**
   * GET {@code path} with {@code accept} (none when null) and {@code Accept-Encoding: gzip} when asked;
   * the body as sent (not decompressed).
   */
  public HttpResponse<byte[]> get(String path, String accept, boolean gzip) throws IOException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(30));
    if (accept != null) {
      b.header("Accept", accept);
    }
    if (gzip) {
      b.header("Accept-Encoding", "gzip");
    }
    try {
      return http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("GET " + path + ": interrupted", e);
    }
  }

  /** GET /metrics as Prometheus text 0.0.4, parsed; throws unless 200. */
  public PromText scrape() {
    try {
      HttpResponse<byte[]> r = get("/metrics", TEXT_ACCEPT, false);
      if (r.statusCode() != 200) {
        throw new IllegalStateException("scrape the agent: /metrics answered " + r.statusCode());
      }
      return PromText.parse(new String(r.body(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalStateException("scrape the agent: " + e.getMessage(), e);
    }
  }

  /**
   * Scrapes until the snapshot is from a map read that began at or after {@code instant}
   * ({@code segscope_snapshot_timestamp_seconds}); returns that scrape.
   */
  public PromText scrapeAfter(Instant instant, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    double wanted = instant.toEpochMilli() / 1000.0;
    while (true) {
      PromText m = scrape();
      if (m.sum("segscope_snapshot_timestamp_seconds", Map.of()) >= wanted) {
        return m;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("wait for a map read after " + instant + ": none within "
            + timeout.toSeconds() + " s (last snapshot at "
            + m.sum("segscope_snapshot_timestamp_seconds", Map.of()) + ")");
      }
      sleep(200);
    }
  }

  public ProcessUsage usage() {
    return ProcessUsage.of(process.pid());
  }

  /**
   * Waits until the agent's CPU use over {@code window} stays below {@code cores} (its start-up work
   * done: JIT, first reads), at most {@code timeout}; returns the last rate seen.
   */
  public double awaitQuiet(double cores, Duration window, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    double rate;
    do {
      ProcessUsage a = usage();
      sleep(window.toMillis());
      rate = usage().coresSince(a);
    } while (rate >= cores && System.nanoTime() < deadline);
    return rate;
  }

  /** The agent's log so far. */
  public String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "";
    }
  }

  /** The last lines of the agent's log. */
  public String tail() {
    List<String> lines = log().lines().toList();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
  }

  /** SIGTERM, then waits up to 30 s (SIGKILL after); returns the exit code. */
  public int stop() {
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        throw new IllegalStateException("stop the agent: no exit within 30 s of SIGTERM (killed): " + tail());
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    return process.exitValue();
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      stop();
    }
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("wait for the agent: interrupted", e);
    }
  }
}

package io.segscope.bench.agent;

import io.segscope.bench.PromText;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The real agent jar as a child process, started the way {@code ./segscope run} starts it (same JVM flags,
 * {@code SEGSCOPE_JAVA_OPTS} honoured), listening on a free loopback port. Measures its own start: the time
 * from spawning the JVM to the first {@code GET /metrics} that answers 200, and to {@code /readyz} = 200.
 */
public final class AgentProcess implements AutoCloseable {
  /** The launcher's default JVM flags ({@code ./segscope}). */
  public static final String DEFAULT_JAVA_OPTS = "-Xms32m -Xmx192m -XX:+UseSerialGC";

  private final Process process;
  private final Path log;
  private final int port;
  private final long startedAt;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(2)).build();
  private double firstScrapeSeconds = -1;
  private double readySeconds = -1;

  private AgentProcess(Process process, Path log, int port, long startedAt) {
    this.process = process;
    this.log = log;
    this.port = port;
    this.startedAt = startedAt;
  }

  /** Starts {@code java OPTS -jar jar run --listen 127.0.0.1:PORT ARGS...}, output to {@code log}. */
  public static AgentProcess start(Path jar, Path log, String... runArgs) {
    int port = freePort();
    String opts = System.getenv().getOrDefault("SEGSCOPE_JAVA_OPTS", DEFAULT_JAVA_OPTS);
    List<String> cmd = new ArrayList<>(List.of("java"));
    for (String o : opts.trim().split("\\s+")) {
      if (!o.isEmpty()) {
        cmd.add(o);
      }
    }
    cmd.addAll(List.of("-jar", jar.toString(), "run", "--listen", "127.0.0.1:" + port));
    cmd.addAll(List.of(runArgs));
    long t0 = System.nanoTime();
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      return new AgentProcess(p, log, port, t0);
    } catch (IOException e) {
      throw new IllegalStateException("start the agent `" + String.join(" ", cmd) + "`: " + e.getMessage(), e);
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException("find a free port: " + e.getMessage(), e);
    }
  }

  public long pid() {
    return process.pid();
  }

  public int port() {
    return port;
  }

  /**
   * Polls every 20 ms until {@code /metrics} answers 200 (recording the first-scrape time) and then
   * {@code /readyz} answers 200 (recording the ready time). Throws with the agent's log otherwise.
   */
  public void awaitReady(Duration timeout) {
    long deadline = startedAt + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("start the agent: it exited with " + process.exitValue() + ": " + tail());
      }
      try {
        if (firstScrapeSeconds < 0 && get("/metrics").statusCode() == 200) {
          firstScrapeSeconds = (System.nanoTime() - startedAt) / 1e9;
        }
        if (firstScrapeSeconds >= 0 && get("/readyz").statusCode() == 200) {
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

  /** Seconds from spawning the JVM to the first 200 from /metrics; -1 before {@link #awaitReady}. */
  public double firstScrapeSeconds() {
    return firstScrapeSeconds;
  }

  /** Seconds from spawning the JVM to the first 200 from /readyz; -1 before {@link #awaitReady}. */
  public double readySeconds() {
    return readySeconds;
  }

  public HttpResponse<byte[]> get(String path) throws IOException {
    HttpRequest r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(30)).build();
    try {
      return http.send(r, HttpResponse.BodyHandlers.ofByteArray());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("GET " + path + ": interrupted", e);
    }
  }

  /** GET /metrics, parsed; throws unless 200. */
  public PromText scrape() {
    try {
      HttpResponse<byte[]> r = get("/metrics");
      if (r.statusCode() != 200) {
        throw new IllegalStateException("scrape the agent: /metrics answered " + r.statusCode());
      }
      return PromText.parse(new String(r.body(), java.nio.charset.StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalStateException("scrape the agent: " + e.getMessage(), e);
    }
  }

  public ProcessUsage usage() {
    return ProcessUsage.of(process.pid());
  }

  /** The last lines of the agent's log. */
  public String tail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    } catch (IOException e) {
      return "(log " + log + " unreadable: " + e.getMessage() + ")";
    }
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

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("wait for the agent: interrupted", e);
    }
  }
}

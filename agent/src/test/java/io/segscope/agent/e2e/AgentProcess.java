package io.segscope.agent.e2e;

import io.segscope.testing.Readiness;
import io.segscope.testkit.Await;
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
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** The real agent jar running as a child process, for end-to-end tests. */
final class AgentProcess implements AutoCloseable {
  private final Process process;
  private final Path log;
  private final int port;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private AgentProcess(Process process, Path log, int port) {
    this.process = process;
    this.log = log;
    this.port = port;
  }

  static Path jar() {
    String p = System.getProperty("segscope.jar");
    if (p == null || !Files.isRegularFile(Path.of(p))) {
      throw new IllegalStateException("the agent jar is missing (system property segscope.jar=" + p
          + "): run the tests with 'mvn verify'");
    }
    return Path.of(p);
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** Runs {@code java -jar segscope.jar ARGS...} with output to a log file. */
  static ProcessResult runToExit(Duration timeout, String... args) throws Exception {
    return runToExit(List.of(), timeout, args);
  }

  /** As {@link #runToExit(Duration, String...)}, with JVM options before {@code -jar}. */
  static ProcessResult runToExit(List<String> jvmOptions, Duration timeout, String... args) throws Exception {
    Path out = Files.createTempFile("segscope-cli", ".log");
    List<String> cmd = new ArrayList<>(List.of("java"));
    cmd.addAll(jvmOptions);
    cmd.addAll(List.of("-jar", jar().toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("segscope " + String.join(" ", args) + " did not exit within " + timeout);
    }
    // lenient: a report or doctor lists every device, and other labs' names need not be UTF-8
    String text = new String(Files.readAllBytes(out), StandardCharsets.UTF_8);
    Files.deleteIfExists(out);
    return new ProcessResult(p.exitValue(), text);
  }

  record ProcessResult(int exitCode, String output) {}

  /**
   * Starts {@code java [JVM options] -jar segscope.jar run --listen 127.0.0.1:<free port> ARGS...}. JVM
   * options come from the system property {@code segscope.agent.jvmOptions} (space-separated), e.g. an
   * {@code -XX:ErrorFile} for runs inside the guest kernel.
   */
  static AgentProcess start(String... extraArgs) throws Exception {
    return start(List.of(), extraArgs);
  }

  /** As {@link #start(String...)}, with {@code jvmExtra} after those JVM options (e.g. a test hook's -D). */
  static AgentProcess start(List<String> jvmExtra, String... extraArgs) throws Exception {
    int port = freePort();
    Path log = Files.createTempFile("segscope-agent", ".log");
    List<String> cmd = new ArrayList<>(List.of("java"));
    String jvmOptions = System.getProperty("segscope.agent.jvmOptions", "").strip();
    if (!jvmOptions.isEmpty()) {
      cmd.addAll(List.of(jvmOptions.split("\\s+")));
    }
    cmd.addAll(jvmExtra);
    cmd.addAll(List.of("-jar", jar().toString(), "run", "--listen", "127.0.0.1:" + port));
    cmd.addAll(List.of(extraArgs));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    return new AgentProcess(p, log, port);
  }

  long pid() {
    return process.pid();
  }

  int port() {
    return port;
  }

  /** Waits for {@code probe} (e.g. /readyz over TLS) to answer 200; fails with the agent's log otherwise. */
  void awaitReady(Duration timeout, Readiness.Probe probe) throws Exception {
    Readiness.await("the agent", process, probe, timeout, this::log);
  }

  /** Waits for /readyz to answer 200; fails with the agent's log otherwise. */
  void awaitReady(Duration timeout) throws Exception {
    Readiness.await("the agent", process, () -> get("/readyz").statusCode(), timeout, this::log);
  }

  HttpResponse<String> get(String path, String... headers) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** GET {@code path} with the body as bytes (e.g. the protobuf exposition); fails unless 200. */
  byte[] getBytes(String path, String... headers) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    HttpResponse<byte[]> r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    if (r.statusCode() != 200) {
      throw new AssertionError(path + " answered " + r.statusCode());
    }
    return r.body();
  }

  PromText scrape() throws IOException, InterruptedException {
    HttpResponse<String> r = get("/metrics");
    if (r.statusCode() != 200) {
      throw new AssertionError("/metrics answered " + r.statusCode() + ": " + r.body());
    }
    return PromText.parse(r.body());
  }

  /**
   * A scrape whose telemetry comes from a map read that began after {@code moment}: the condition to
   * wait on after traffic, instead of a guess at how long the next read takes. A snapshot's timestamp
   * ({@code segscope_snapshot_timestamp_seconds}) is taken when its read ends, and reads follow one
   * another: so the read after the first snapshot stamped after {@code moment} began after it.
   */
  PromText scrapeOfAReadStartedAfter(Instant moment, Duration limit) throws Exception {
    double[] first = {Double.NaN};
    double[] after = {moment.toEpochMilli() / 1000.0};
    return Await.atMost(limit).every(Duration.ofMillis(100)).pollOrFail(() -> {
      PromText m = scrape();
      double stamp = m.sum("segscope_snapshot_timestamp_seconds", Map.of());
      if (stamp > after[0]) {
        if (!Double.isNaN(first[0])) {
          return Optional.of(m);
        }
        first[0] = stamp;
        after[0] = stamp;
      }
      return Optional.empty();
    }, () -> "no map read began after " + moment + " within " + limit + "; log:\n" + log());
  }

  /**
   * A scrape whose telemetry comes from a map read that began after the device inventory refreshed
   * every namespace following {@code moment} ({@code segscope_inventory_last_refresh_timestamp_seconds}):
   * what to wait on after changing devices, instead of a guess at the refresh and read intervals.
   */
  PromText scrapeAfterAnInventoryRefreshSince(Instant moment, Duration limit) throws Exception {
    double after = moment.toEpochMilli() / 1000.0;
    Await wait = Await.atMost(limit).every(Duration.ofMillis(100));
    double refreshed = wait.pollOrFail(() -> {
      double r = scrape().sum("segscope_inventory_last_refresh_timestamp_seconds", Map.of());
      return r > after ? Optional.of(r) : Optional.empty();
    }, () -> "no inventory refresh after " + moment + " within " + limit + "; log:\n" + log());
    return scrapeOfAReadStartedAfter(Instant.ofEpochMilli((long) Math.ceil(refreshed * 1000)),
        Duration.ofNanos(wait.nanosLeft()));
  }

  String log() throws IOException {
    return new String(Files.readAllBytes(log), StandardCharsets.UTF_8);
  }

  /** SIGTERM, then the exit code. */
  int stop() throws Exception {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("the agent did not exit within 30 s of SIGTERM:\n" + log());
    }
    return process.exitValue();
  }

  @Override
  public void close() throws Exception {
    // keep the agent's warnings in the test's output: the log file itself is removed below
    if (Files.exists(log)) {
      List<String> warnings = Files.readAllLines(log).stream()
          .filter(l -> l.contains(" WARNING ") || l.contains(" SEVERE ") || l.startsWith("\tat ")
              || l.contains("Exception"))
          .limit(80).toList();
      if (!warnings.isEmpty()) {
        System.out.println("agent warnings (pid " + process.pid() + "):");
        warnings.forEach(w -> System.out.println("  " + w));
      }
    }
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    }
    Files.deleteIfExists(log);
  }
}

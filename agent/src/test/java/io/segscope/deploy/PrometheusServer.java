package io.segscope.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.testing.Readiness;
import io.segscope.testkit.Await;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A real Prometheus server (Debian's /usr/bin/prometheus) on 127.0.0.1, scraping one segscope agent
 * every second as job "segscope" and evaluating the segscope alert rules; its data lives in a
 * directory the caller owns. Queried through its HTTP API.
 *
 * <p>With {@code nativeHistograms}, it runs with {@code --enable-feature=native-histograms}: it then
 * scrapes the protobuf format and stores every histogram that has native buckets as a native
 * histogram only (Prometheus 2.42 keeps no {@code _bucket}/{@code _sum}/{@code _count} series of it);
 * without, it scrapes text and stores the classic series.
 */
public final class PrometheusServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Process process;
  private final Path log;
  private final int port;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private PrometheusServer(Process process, Path log, int port) {
    this.process = process;
    this.log = log;
    this.port = port;
  }

  /** Skips (or, under CI=true, fails) the calling test when Prometheus is not installed. */
  public static void require() {
    Tool.PROMETHEUS.require();
  }

  /** Starts Prometheus scraping {@code target} (host:port) and loading {@code ruleFile}; waits until ready. */
  static PrometheusServer start(Path dir, String target, Path ruleFile) throws Exception {
    return start(dir, target, ruleFile, false);
  }

  /**
   * Starts Prometheus scraping {@code target} (host:port) as job "segscope", loading {@code ruleFile}
   * (null: no rules), with or without native histograms; waits until ready.
   */
  public static PrometheusServer start(Path dir, String target, Path ruleFile, boolean nativeHistograms)
      throws Exception {
    return start(dir, ruleFile, String.join("\n",
        "  - job_name: segscope",
        "    static_configs:",
        "      - targets: ['" + target + "']",
        ""), nativeHistograms);
  }

  /** Starts Prometheus with these scrape_configs entries (YAML, each "  - job_name: ..."); waits until ready. */
  static PrometheusServer start(Path dir, Path ruleFile, String scrapeConfigs) throws Exception {
    return start(dir, ruleFile, scrapeConfigs, false);
  }

  static PrometheusServer start(Path dir, Path ruleFile, String scrapeConfigs, boolean nativeHistograms)
      throws Exception {
    int port = freePort();
    Path config = dir.resolve("prometheus.yml");
    List<String> yaml = new ArrayList<>(List.of(
        "global:",
        "  scrape_interval: 1s",
        "  scrape_timeout: 1s",
        "  evaluation_interval: 1s"));
    if (ruleFile != null) {
      yaml.addAll(List.of("rule_files:", "  - " + ruleFile.toAbsolutePath()));
    }
    yaml.addAll(List.of("scrape_configs:", scrapeConfigs));
    Files.writeString(config, String.join("\n", yaml));
    Path log = dir.resolve("prometheus.log");
    List<String> cmd = new ArrayList<>(List.of(Tool.PROMETHEUS.executable().toString(),
        "--config.file=" + config, "--storage.tsdb.path=" + dir.resolve("data"),
        "--web.listen-address=127.0.0.1:" + port, "--log.level=warn"));
    if (nativeHistograms) {
      cmd.add("--enable-feature=native-histograms");
    }
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    PrometheusServer s = new PrometheusServer(p, log, port);
    try {
      s.awaitReady(Duration.ofSeconds(30));
    } catch (Throwable t) {
      s.close();
      throw t;
    }
    return s;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private void awaitReady(Duration timeout) throws Exception {
    Readiness.await("prometheus", process, () -> get("/-/ready").statusCode(), timeout, this::log);
  }

  private HttpResponse<String> get(String pathAndQuery) throws IOException, InterruptedException {
    HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + pathAndQuery))
        .timeout(Duration.ofSeconds(20)).build();
    return http.send(req, HttpResponse.BodyHandlers.ofString());
  }

  /** GET an API path; fails unless Prometheus answers 200 with status "success". Returns "data". */
  public JsonNode api(String pathAndQuery) throws IOException, InterruptedException {
    HttpResponse<String> r = get(pathAndQuery);
    JsonNode body = JSON.readTree(r.body());
    if (r.statusCode() != 200 || !"success".equals(body.path("status").asText())) {
      throw new AssertionError("prometheus " + pathAndQuery + " answered " + r.statusCode() + ": " + r.body());
    }
    return body.path("data");
  }

  /** An instant query now; the result array (vector) or a one-element array (scalar). */
  public JsonNode query(String promql) throws IOException, InterruptedException {
    return queryAt(promql, Double.NaN);
  }

  /** An instant query at {@code time} (Unix seconds; NaN: now); the result array as {@link #query}. */
  public JsonNode queryAt(String promql, double time) throws IOException, InterruptedException {
    String at = Double.isNaN(time) ? "" : "&time=" + String.format(Locale.ROOT, "%.3f", time);
    JsonNode data = api("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8) + at);
    if (data.path("resultType").asText().equals("scalar")) {
      return JSON.createArrayNode().add(data.path("result"));
    }
    return data.path("result");
  }

  /** Polls until the query returns a non-empty result; fails naming the query after the timeout. */
  public JsonNode awaitNonEmpty(String promql, Duration timeout) throws Exception {
    return Await.atMost(timeout).every(Duration.ofMillis(500)).pollOrFail(() -> {
      JsonNode r = query(promql);
      return r.isEmpty() ? Optional.empty() : Optional.of(r);
    }, () -> "no result for " + promql + " within " + timeout);
  }

  public String log() throws IOException {
    return Files.exists(log) ? Files.readString(log) : "";
  }

  @Override
  public void close() throws Exception {
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    }
  }
}

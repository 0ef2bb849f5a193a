package io.segscope.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import java.util.concurrent.TimeUnit;

/**
 * A real Prometheus server (Debian's /usr/bin/prometheus) on 127.0.0.1, scraping one segscope agent
 * every second as job "segscope" and evaluating the segscope alert rules; its data lives in a
 * directory the caller owns. Queried through its HTTP API.
 */
final class PrometheusServer implements AutoCloseable {
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

  /** Starts Prometheus scraping {@code target} (host:port) and loading {@code ruleFile}; waits until ready. */
  static PrometheusServer start(Path dir, String target, Path ruleFile) throws Exception {
    return start(dir, ruleFile, String.join("\n",
        "  - job_name: segscope",
        "    static_configs:",
        "      - targets: ['" + target + "']",
        ""));
  }

  /** Starts Prometheus with these scrape_configs entries (YAML, each "  - job_name: ..."); waits until ready. */
  static PrometheusServer start(Path dir, Path ruleFile, String scrapeConfigs) throws Exception {
    int port = freePort();
    Path config = dir.resolve("prometheus.yml");
    Files.writeString(config, String.join("\n",
        "global:",
        "  scrape_interval: 1s",
        "  scrape_timeout: 1s",
        "  evaluation_interval: 1s",
        "rule_files:",
        "  - " + ruleFile.toAbsolutePath(),
        "scrape_configs:",
        scrapeConfigs));
    Path log = dir.resolve("prometheus.log");
    List<String> cmd = new ArrayList<>(List.of(Tool.PROMETHEUS.executable().toString(),
        "--config.file=" + config, "--storage.tsdb.path=" + dir.resolve("data"),
        "--web.listen-address=127.0.0.1:" + port, "--log.level=warn"));
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
    io.segscope.testing.Readiness.await("prometheus", process, () -> get("/-/ready").statusCode(), timeout, this::log);
  }


  private HttpResponse<String> get(String pathAndQuery) throws IOException, InterruptedException {
    HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + pathAndQuery))
        .timeout(Duration.ofSeconds(20)).build();
    return http.send(req, HttpResponse.BodyHandlers.ofString());
  }

  /** GET an API path; fails unless Prometheus answers 200 with status "success". Returns "data". */
  JsonNode api(String pathAndQuery) throws IOException, InterruptedException {
    HttpResponse<String> r = get(pathAndQuery);
    JsonNode body = JSON.readTree(r.body());
    if (r.statusCode() != 200 || !"success".equals(body.path("status").asText())) {
      throw new AssertionError("prometheus " + pathAndQuery + " answered " + r.statusCode() + ": " + r.body());
    }
    return body.path("data");
  }

  /** An instant query now; the result array (vector) or a one-element array (scalar). */
  JsonNode query(String promql) throws IOException, InterruptedException {
    JsonNode data = api("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
    if (data.path("resultType").asText().equals("scalar")) {
      return JSON.createArrayNode().add(data.path("result"));
    }
    return data.path("result");
  }

  /** Polls until the query returns a non-empty result; fails naming the query after the timeout. */
  JsonNode awaitNonEmpty(String promql, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    JsonNode r = query(promql);
    while (r.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(500);
      r = query(promql);
    }
    if (r.isEmpty()) {
      throw new AssertionError("no result for " + promql + " within " + timeout);
    }
    return r;
  }

  String log() throws IOException {
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

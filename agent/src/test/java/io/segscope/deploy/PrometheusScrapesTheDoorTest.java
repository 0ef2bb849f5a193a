package io.segscope.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.agent.http.DoorServer;
import io.segscope.agent.http.WebConfig;
import io.segscope.testkit.deploy.RepoFiles;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Prometheus (Debian's) scrapes the agent's HTTP server (in process, over a synthetic host
 * of 1,000 devices): the cached, concatenated OpenMetrics body in two gzip members parses, every
 * device arrives; through TLS with the shipped example certificate and basic auth it scrapes with
 * the right password and is refused with a wrong one. And {@code promtool check metrics} finds
 * nothing to say about the text body the server sends.
 */
class PrometheusScrapesTheDoorTest {
  static final int DEVICES = 1000;
  static final int DEVICE_SERIES = deviceSeries(DEVICES);

  /** SyntheticHost's devices: n veths and a macvlan over every twentieth (i % 20 == 1). */
  static int deviceSeries(int n) {
    return n + (n + 18) / 20;
  }

  @TempDir
  Path dir;

  @Test
  void prometheusScrapesTheCachedGzipOpenMetricsBody() throws Exception {
    Tool.PROMETHEUS.require();
    try (DoorServer agent = DoorServer.start(DoorServer.loopback(), DEVICES, List::of);
        PrometheusServer prom = PrometheusServer.start(dir, "127.0.0.1:" + agent.port(),
            RepoFiles.path(AlertRulesTest.RULES))) {
      prom.awaitNonEmpty("up{job=\"segscope\"} == 1", Duration.ofSeconds(30));
      assertThat(prom.awaitNonEmpty("count(segscope_device_info) == " + DEVICE_SERIES, Duration.ofSeconds(30)))
          .hasSize(1);
      double samples = prom.query("scrape_samples_scraped{job=\"segscope\"}").get(0).path("value").get(1).asDouble();
      assertThat(samples).as("samples per scrape").isGreaterThan(20 * DEVICES); // about 29,000 here
      assertThat(prom.query("jvm_memory_used_bytes{job=\"segscope\"}")).as("the per-scrape families too").isNotEmpty();
      assertThat(prom.log()).doesNotContainIgnoringCase("error");
    }
  }

  @Test
  void prometheusScrapesThroughTlsAndBasicAuthWithTheExampleConfig() throws Exception {
    Tool.PROMETHEUS.require();
    Path examples = RepoFiles.path("deploy/web-config");
    WebConfig web = WebConfig.load(examples.resolve("web-config.yml"));
    try (DoorServer agent = DoorServer.start(DoorServer.loopback().withWeb(web), 50, List::of)) {
      String target = "127.0.0.1:" + agent.port();
      String job = String.join("\n",
          "  - job_name: %s",
          "    scheme: https",
          "    tls_config:",
          "      ca_file: " + examples.resolve("example-ca.crt"),
          "      server_name: localhost",
          "    basic_auth:",
          "      username: prometheus",
          "      password: %s",
          "    static_configs:",
          "      - targets: ['" + target + "']",
          "");
      String jobs = String.format(job, "segscope", "example-password") + String.format(job, "wrong", "not-it");
      try (PrometheusServer prom = PrometheusServer.start(dir, RepoFiles.path(AlertRulesTest.RULES), jobs)) {
        prom.awaitNonEmpty("up{job=\"segscope\"} == 1", Duration.ofSeconds(30));
        prom.awaitNonEmpty("up{job=\"wrong\"} == 0", Duration.ofSeconds(30));
        assertThat(prom.query("segscope_device_info{job=\"wrong\"}")).isEmpty();
        assertThat(prom.awaitNonEmpty("count(segscope_device_info{job=\"segscope\"})", Duration.ofSeconds(30))
            .get(0).path("value").get(1).asInt()).isEqualTo(deviceSeries(50));
      }
    }
  }

  @Test
  void promtoolCheckMetricsAcceptsTheServedTextBody() throws Exception {
    Tool.PROMTOOL.require();
    try (DoorServer agent = DoorServer.start(DoorServer.loopback(), DEVICES, List::of)) {
      HttpResponse<byte[]> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + agent.port() + "/metrics")).timeout(Duration.ofSeconds(30)).build(),
          HttpResponse.BodyHandlers.ofByteArray());
      assertThat(r.statusCode()).isEqualTo(200);
      Path body = Files.write(dir.resolve("metrics.txt"), r.body());
      Tool.Result check = Tool.PROMTOOL.runWithInput(dir, body, "check", "metrics");
      assertThat(check.exitCode()).as("promtool check metrics: %s", check.output()).isZero();
      assertThat(check.output()).as("promtool findings").isBlank();
    }
  }
}

package io.segscope.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;

/**
 * The real agent (the jar, root, the kernel's probes) started with the shipped example web config
 * ({@code --web.config.file deploy/web-config/web-config.yml}): it serves HTTPS with the example
 * certificate, /readyz without credentials, /metrics only with the example password, and nothing
 * over plain HTTP. Proves the flag reaches the server, which the in-process tests bypass.
 */
class WebDoorIT {

  static Path examples() {
    return Path.of(System.getProperty("segscope.repo", "..")).resolve("deploy/web-config").toAbsolutePath().normalize();
  }

  static SSLContext trustingTheExampleCa() throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    try (InputStream in = Files.newInputStream(examples().resolve("example-ca.crt"))) {
      trust.setCertificateEntry("example-ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, tmf.getTrustManagers(), null);
    return ctx;
  }

  @Test
  void theAgentServesHttpsWithBasicAuthFromTheExampleWebConfig() throws Exception {
    HttpClient https = HttpClient.newBuilder().sslContext(trustingTheExampleCa()).connectTimeout(Duration.ofSeconds(3))
        .build();
    try (
        AgentProcess agent = AgentProcess.start("--web.config.file", examples().resolve("web-config.yml").toString())) {
      String base = "https://localhost:" + agent.port();
      agent.awaitReady(Duration.ofMinutes(3), () -> get(https, base + "/readyz", null).statusCode());
      assertThat(get(https, base + "/metrics", null).statusCode()).as("no credentials").isEqualTo(401);
      assertThat(get(https, base + "/metrics", "prometheus:wrong").statusCode()).as("wrong password").isEqualTo(401);
      HttpResponse<String> ok = get(https, base + "/metrics", "prometheus:example-password");
      assertThat(ok.statusCode()).isEqualTo(200);
      assertThat(ok.body()).contains("segscope_build_info").contains("segscope_inventory_running 1.0");
      assertThat(agent.log()).contains("https://127.0.0.1:" + agent.port()).contains("basic auth on");
      HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
      boolean answered;
      try {
        get(plain, "http://127.0.0.1:" + agent.port() + "/healthz", null);
        answered = true;
      } catch (IOException e) {
        answered = false;
      }
      assertThat(answered).as("plain HTTP on the TLS port gets no answer").isFalse();
      assertThat(agent.stop()).isZero();
    }
  }

  @Test
  void aKeyThatDoesNotBelongToTheCertificateFailsTheStartWithOneLine() throws Exception {
    Path dir = Files.createTempDirectory("segscope-webdoor");
    try {
      Path config = Files.writeString(dir.resolve("web.yml"), "tls_server_config:\n  cert_file: "
          + examples().resolve("example-server.crt") + "\n  key_file: " + examples().resolve("example-client.key")
          + "\n");
      AgentProcess.ProcessResult r = AgentProcess.runToExit(Duration.ofMinutes(3), "run", "--listen", "127.0.0.1:0",
          "--web.config.file", config.toString());
      assertThat(r.exitCode()).as(r.output()).isEqualTo(1);
      List<String> said = r.output().lines().filter(l -> l.startsWith("segscope: ")).toList();
      assertThat(said).as(r.output()).hasSize(1);
      assertThat(said.get(0)).contains("load TLS key and certificate: the key does not belong to the certificate")
          .doesNotContain("Exception");
      assertThat(r.output()).doesNotContain("\tat ");
    } finally {
      Files.deleteIfExists(dir.resolve("web.yml"));
      Files.delete(dir);
    }
  }

  private static HttpResponse<String> get(HttpClient client, String url, String credentials)
      throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
    if (credentials != null) {
      b.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes()));
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}

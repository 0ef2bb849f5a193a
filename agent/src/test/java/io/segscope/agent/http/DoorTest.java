package io.segscope.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.zip.GZIPInputStream;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The door of the agent's HTTP server, in process (a real {@link AgentVerticle} over a synthetic
 * host): TLS with the shipped example certificate, basic auth, methods, parameters, and what the
 * server does with requests no client should send.
 */
@ExtendWith(VertxExtension.class)
class DoorTest {
  static final String EXAMPLES = "deploy/web-config/";
  static final String USER = "prometheus";
  static final String PASSWORD = "example-password";

  static String basic(String user, String password) {
    return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  static WebConfig example(String name) throws Exception {
    return WebConfig.load(DoorServer.repoFile(EXAMPLES + name));
  }

  static X509Certificate pemCertificate(String name) throws Exception {
    try (InputStream in = Files.newInputStream(DoorServer.repoFile(EXAMPLES + name))) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  /** A client context trusting only the example CA, optionally presenting the example client certificate. */
  static SSLContext exampleClientContext(boolean withClientCertificate) throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("example-ca", pemCertificate("example-ca.crt"));
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    KeyManagerFactory kmf = null;
    if (withClientCertificate) {
      String pem = Files.readString(DoorServer.repoFile(EXAMPLES + "example-client.key"));
      byte[] der = Base64.getMimeDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", ""));
      PrivateKey key = KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(der));
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      ks.setKeyEntry("client", key, new char[0], new Certificate[] {pemCertificate("example-client.crt")});
      kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(ks, new char[0]);
    }
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
    return ctx;
  }

  static HttpResponse<byte[]> get(HttpClient client, String url, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  static String utf8(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  static byte[] gunzip(byte[] b) throws IOException {
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(b))) {
      return in.readAllBytes();
    }
  }

  @Test
  void tlsWithTheExampleCertificateAndBasicAuth(Vertx vertx) throws Exception {
    try (DoorServer s = DoorServer.start(vertx, DoorServer.loopback().withWeb(example("web-config.yml")), 10)) {
      HttpClient client = HttpClient.newBuilder().sslContext(exampleClientContext(false))
          .connectTimeout(Duration.ofSeconds(5)).build();
      String base = "https://localhost:" + s.port();

      HttpResponse<byte[]> none = get(client, base + "/metrics");
      assertThat(none.statusCode()).as("no credentials").isEqualTo(401);
      assertThat(none.headers().firstValue("WWW-Authenticate"))
          .hasValueSatisfying(v -> assertThat(v).startsWith("Basic"));
      assertThat(new JsonObject(utf8(none.body())).getString("error")).contains("unauthorized");
      assertThat(get(client, base + "/metrics", "Authorization", basic(USER, "wrong")).statusCode())
          .as("wrong password").isEqualTo(401);
      assertThat(get(client, base + "/metrics", "Authorization", basic("nobody", PASSWORD)).statusCode())
          .as("unknown user").isEqualTo(401);
      assertThat(get(client, base + "/api/v1/devices", "Authorization", "Bearer " + PASSWORD).statusCode())
          .as("another scheme").isEqualTo(401);
      assertThat(get(client, base + "/api/v1/devices", "Authorization", "Basic %%%not-base64").statusCode())
          .as("bad base64").isEqualTo(401);

      HttpResponse<byte[]> ok = get(client, base + "/metrics", "Authorization", basic(USER, PASSWORD));
      assertThat(ok.statusCode()).as("right credentials").isEqualTo(200);
      assertThat(utf8(ok.body())).contains("segscope_device_info{");
      assertThat(get(client, base + "/api/v1/devices", "Authorization", basic(USER, PASSWORD)).statusCode())
          .isEqualTo(200);
      assertThat(get(client, base + "/healthz").statusCode()).as("health needs no credentials").isEqualTo(200);
      assertThat(ok.sslSession()).hasValueSatisfying(session -> {
        try {
          assertThat(session.getPeerCertificates()[0]).as("the shipped example certificate")
              .isEqualTo(pemCertificate("example-server.crt"));
        } catch (Exception e) {
          throw new AssertionError(e);
        }
        assertThat(session.getProtocol()).isIn("TLSv1.2", "TLSv1.3");
      });
    }
  }

  @Test
  void plainTextIsRefusedOnTheTlsPort(Vertx vertx) throws Exception {
    try (DoorServer s = DoorServer.start(vertx, DoorServer.loopback().withWeb(example("web-config.yml")), 10)) {
      try (RawHttp raw = new RawHttp(null, s.port(), 5000)) {
        raw.send("GET /metrics HTTP/1.1\r\nHost: localhost\r\nAuthorization: " + basic(USER, PASSWORD) + "\r\n\r\n");
        RawHttp.Response r = raw.read();
        assertThat(r.status()).as("no HTTP answer on the TLS port, got: %s", r.raw()).isEqualTo(-1);
        assertThat(r.raw()).doesNotContain("segscope_");
      }
      // and a client that does not trust the example CA does not get through either
      HttpClient untrusting = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      assertThatThrownBy(() -> get(untrusting, "https://localhost:" + s.port() + "/healthz"))
          .isInstanceOf(SSLHandshakeException.class);
    }
  }

  @Test
  void mutualTlsAdmitsOnlyTheExampleClientCertificate(Vertx vertx) throws Exception {
    try (DoorServer s = DoorServer.start(vertx, DoorServer.loopback().withWeb(example("web-config-mtls.yml")), 10)) {
      HttpClient withCert = HttpClient.newBuilder().sslContext(exampleClientContext(true)).build();
      HttpResponse<byte[]> ok = get(withCert, "https://localhost:" + s.port() + "/metrics");
      assertThat(ok.statusCode()).isEqualTo(200);
      assertThat(ok.sslSession().orElseThrow().getProtocol()).as("min_version TLS13").isEqualTo("TLSv1.3");

      SSLContext noCert = exampleClientContext(false);
      assertThatThrownBy(() -> {
        try (SSLSocket socket = (SSLSocket) noCert.getSocketFactory().createSocket("127.0.0.1", s.port())) {
          socket.setSoTimeout(5000);
          socket.startHandshake();
          socket.getOutputStream()
              .write("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
          socket.getOutputStream().flush();
          if (socket.getInputStream().read() < 0) {
            throw new IOException("closed without an answer");
          }
        }
      }).as("a client without a certificate gets no answer").isInstanceOf(IOException.class);
    }
  }

  @Test
  void allowedSansRefuseAClientCertificateWithoutThem(Vertx vertx) throws Exception {
    WebConfig mtls = example("web-config-mtls.yml");
    WebConfig.Tls t = mtls.tls().orElseThrow();
    WebConfig only = new WebConfig(Optional.of(new WebConfig.Tls(t.cert(), t.key(), t.clientAuth(),
        t.clientCa(), List.of("someone-else.example"), t.protocols(), t.cipherSuites())), mtls.users(), true,
        mtls.headers());
    try (DoorServer s = DoorServer.start(vertx, DoorServer.loopback().withWeb(only), 10)) {
      HttpClient withCert = HttpClient.newBuilder().sslContext(exampleClientContext(true)).build();
      assertThatThrownBy(() -> get(withCert, "https://localhost:" + s.port() + "/metrics"))
          .isInstanceOf(IOException.class);
    }
    WebConfig named = new WebConfig(Optional.of(new WebConfig.Tls(t.cert(), t.key(), t.clientAuth(),
        t.clientCa(), List.of("prometheus.example"), t.protocols(), t.cipherSuites())), mtls.users(), true,
        mtls.headers());
    try (DoorServer s = DoorServer.start(vertx, DoorServer.loopback().withWeb(named), 10)) {
      HttpClient withCert = HttpClient.newBuilder().sslContext(exampleClientContext(true)).build();
      assertThat(get(withCert, "https://localhost:" + s.port() + "/metrics").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void http2OnlyWhenAsked(Vertx vertx) throws Exception {
    HttpClient h2 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
    try (DoorServer s = DoorServer.start(vertx, DoorServer.loopback(), 10)) {
      HttpResponse<byte[]> r = get(h2, "http://127.0.0.1:" + s.port() + "/healthz");
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.version()).as("no h2c by default").isEqualTo(HttpClient.Version.HTTP_1_1);
    }
    try (DoorServer s = DoorServer.start(vertx, DoorServer.loopback().withH2c(true), 10)) {
      HttpResponse<byte[]> r = get(h2, "http://127.0.0.1:" + s.port() + "/healthz");
      assertThat(r.version()).as("--web.h2c").isEqualTo(HttpClient.Version.HTTP_2);
    }
    HttpClient tlsH2 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).sslContext(exampleClientContext(true))
        .build();
    try (DoorServer s = DoorServer.start(vertx, DoorServer.loopback().withWeb(example("web-config-mtls.yml")), 10)) {
      assertThat(get(tlsH2, "https://localhost:" + s.port() + "/healthz").version()).as("http2 over TLS (default)")
          .isEqualTo(HttpClient.Version.HTTP_2);
    }
  }

  @Test
  void metricsAreGzippedWhenAskedAndPlainOtherwise(Vertx vertx) throws Exception {
    try (DoorServer s = DoorServer.start(vertx, DoorServer.loopback(), 100)) {
      HttpClient client = HttpClient.newHttpClient();
      String url = "http://127.0.0.1:" + s.port() + "/metrics";
      HttpResponse<byte[]> zipped = get(client, url, "Accept-Encoding", "gzip", "Accept",
          "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5");
      assertThat(zipped.headers().firstValue("Content-Encoding")).hasValue("gzip");
      String om = utf8(gunzip(zipped.body()));
      assertThat(om).contains("segscope_device_info{").endsWith("# EOF\n");
      assertThat(om.split("# EOF", -1)).hasSize(2);
      HttpResponse<byte[]> plain = get(client, url, "Accept-Encoding", "gzip;q=0, identity");
      assertThat(plain.headers().firstValue("Content-Encoding")).isEmpty();
      assertThat(utf8(plain.body())).contains("# TYPE segscope_device_info gauge").doesNotContain("# EOF");
      assertThat(plain.headers().firstValue("Content-Length")).hasValue(String.valueOf(plain.body().length));
    }
  }

  @Test
  void nonGetIs405WithAllowAndBadParametersAre400WithJson(Vertx vertx) throws Exception {
    try (DoorServer s = DoorServer.start(vertx, DoorServer.loopback(), 10)) {
      HttpClient client = HttpClient.newHttpClient();
      String base = "http://127.0.0.1:" + s.port();
      for (String method : List.of("POST", "PUT", "DELETE", "PATCH", "OPTIONS")) {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + "/metrics"))
            .method(method, HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(method).isEqualTo(405);
        assertThat(r.headers().firstValue("Allow")).as(method).hasValue("GET");
        assertThat(new JsonObject(r.body()).getString("error")).contains("GET only");
      }
      for (String query : List.of("netns=9999999999999999999", "netns=12345678901234567890123", "netns=nosuchns",
          "netns=", "netns=1&netns=2", "bogus=1", "device=a&device=b")) {
        HttpResponse<byte[]> r = get(client, base + "/api/v1/devices?" + query);
        assertThat(r.statusCode()).as(query).isEqualTo(400);
        assertThat(r.headers().firstValue("Content-Type")).as(query).hasValue("application/json");
        String error = new JsonObject(utf8(r.body())).getString("error");
        assertThat(error).as(query).isNotBlank().doesNotContain("Exception").doesNotContain("java.");
      }
      assertThat(get(client, base + "/api/v1/devices?netns=4026532500").statusCode()).isEqualTo(200);
      JsonObject one = new JsonObject(utf8(get(client, base + "/api/v1/devices?netns=fleeta&device=fa1").body()));
      assertThat(one.getJsonArray("devices")).hasSize(1);
    }
  }
}

package io.segscope.agent.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Requests no well-behaved client sends, byte for byte over a socket: each gets a 4xx (or, for bytes
 * that are not HTTP at all, the connection closed), never a 500, never an exception's text, and the
 * server answers a normal scrape afterwards.
 */
@ExtendWith(VertxExtension.class)
class MalformedRequestsTest {
  /** One request and the statuses it may get; -1: closed without an answer. */
  record Case(String name, byte[] request, Set<Integer> expected) {
    static Case of(String name, String request, Integer... expected) {
      return new Case(name, request.getBytes(StandardCharsets.ISO_8859_1), Set.of(expected));
    }

    @Override
    public String toString() {
      return name;
    }
  }

  static final String H = "Host: 127.0.0.1\r\n";

  static List<Case> cases() {
    String longName = "x".repeat(10_000);
    byte[] garbage = new byte[512];
    new Random(42).nextBytes(garbage);
    garbage[0] = 0x16; // looks like a TLS record on a plain port
    List<Case> c = new ArrayList<>(List.of(
        Case.of("POST with a body", "POST /metrics HTTP/1.1\r\n" + H + "Content-Length: 3\r\n\r\nabc", 405),
        Case.of("PUT", "PUT /api/v1/devices HTTP/1.1\r\n" + H + "Content-Length: 0\r\n\r\n", 405),
        Case.of("DELETE", "DELETE /api/v1/recommendations HTTP/1.1\r\n" + H + "\r\n", 405),
        Case.of("OPTIONS *", "OPTIONS * HTTP/1.1\r\n" + H + "\r\n", 405),
        Case.of("CONNECT", "CONNECT 127.0.0.1:22 HTTP/1.1\r\n" + H + "\r\n", 405, 400),
        Case.of("TRACE", "TRACE /metrics HTTP/1.1\r\n" + H + "\r\n", 405),
        Case.of("an unknown method", "BREW /metrics HTTP/1.1\r\n" + H + "\r\n", 405, 400),
        Case.of("19-digit netns above 2^63", "GET /api/v1/devices?netns=9999999999999999999 HTTP/1.1\r\n" + H + "\r\n",
            400),
        Case.of("40-digit netns", "GET /api/v1/devices?netns=" + "9".repeat(40) + " HTTP/1.1\r\n" + H + "\r\n", 400),
        Case.of("negative netns", "GET /api/v1/devices?netns=-1 HTTP/1.1\r\n" + H + "\r\n", 400),
        Case.of("bad percent-escape in the query", "GET /api/v1/devices?netns=%zz HTTP/1.1\r\n" + H + "\r\n", 400),
        Case.of("truncated percent-escape", "GET /api/v1/devices?device=% HTTP/1.1\r\n" + H + "\r\n", 400),
        Case.of("NUL in the query", "GET /api/v1/devices?device=%00 HTTP/1.1\r\n" + H + "\r\n", 200),
        Case.of("unknown parameter", "GET /api/v1/recommendations?all=1 HTTP/1.1\r\n" + H + "\r\n", 400),
        Case.of("repeated parameter", "GET /api/v1/devices?device=a&device=b HTTP/1.1\r\n" + H + "\r\n", 400),
        Case.of("path traversal", "GET /api/v1/../../../etc/passwd HTTP/1.1\r\n" + H + "\r\n", 404, 400),
        Case.of("encoded traversal", "GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\n" + H + "\r\n", 404, 400),
        Case.of("bad escape in the path", "GET /api/%zz HTTP/1.1\r\n" + H + "\r\n", 400, 404),
        Case.of("unknown path", "GET /admin HTTP/1.1\r\n" + H + "\r\n", 404),
        Case.of("not a request line", "HELLO\r\n\r\n", 400, -1),
        // Vert.x answers a version it does not speak with 501 Not Implemented itself (the protocol's answer)
        Case.of("unknown HTTP version", "GET /metrics HTTP/9.9\r\n" + H + "\r\n", 400, 501, 505, -1),
        Case.of("URI longer than 4 KiB", "GET /metrics?" + longName + " HTTP/1.1\r\n" + H + "\r\n", 414, 400),
        Case.of("header longer than 8 KiB", "GET /metrics HTTP/1.1\r\n" + H + "X-Long: " + longName + "\r\n\r\n",
            431, 400),
        Case.of("header without a colon", "GET /metrics HTTP/1.1\r\n" + H + "this is not a header\r\n\r\n", 400),
        Case.of("bad Content-Length", "GET /metrics HTTP/1.1\r\n" + H + "Content-Length: abc\r\n\r\n", 400, -1),
        Case.of("two Content-Lengths",
            "GET /metrics HTTP/1.1\r\n" + H + "Content-Length: 1\r\nContent-Length: 2\r\n\r\nx",
            400, -1),
        Case.of("bad chunk size", "GET /healthz HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked\r\n\r\nzz\r\n", 200,
            400, -1),
        Case.of("h2c upgrade when h2c is off", "GET /healthz HTTP/1.1\r\n" + H
            + "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n",
            200),
        Case.of("HTTP/2 preface when h2c is off", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400, 405, 501, -1),
        Case.of("WebSocket upgrade", "GET /metrics HTTP/1.1\r\n" + H + "Connection: Upgrade\r\nUpgrade: websocket\r\n"
            + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", 200, 400),
        Case.of("absurd Accept", "GET /metrics HTTP/1.1\r\n" + H + "Accept: ;;;,,,q=x/y\r\n\r\n", 200),
        Case.of("absurd Accept-Encoding", "GET /metrics HTTP/1.1\r\n" + H + "Accept-Encoding: gzip;q=abc,,;\r\n\r\n",
            200),
        Case.of("control bytes in a header", "GET /metrics HTTP/1.1\r\n" + H + "X-A: \u0001\u0002\u001b[31m\r\n\r\n",
            200, 400),
        Case.of("HTTP/1.0 without Host", "GET /healthz HTTP/1.0\r\n\r\n", 200)));
    c.add(new Case("random bytes", garbage, Set.of(400, -1)));
    return c;
  }

  private DoorServer server;

  @BeforeEach
  void start(Vertx vertx) throws Exception {
    server = DoorServer.start(vertx, DoorServer.loopback(), 20);
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
  }

  @Test
  void everyMalformedRequestGetsItsStatusAndNeverA500() throws Exception {
    List<Case> cases = cases();
    assertThat(cases).hasSizeGreaterThanOrEqualTo(20);
    List<String> wrong = new ArrayList<>();
    for (Case c : cases) {
      RawHttp.Response r;
      try (RawHttp raw = new RawHttp(null, server.port(), 5000)) {
        raw.send(c.request());
        r = raw.read();
      }
      String body = r.text();
      if (!c.expected().contains(r.status()) || r.status() == 500 || body.contains("Exception")
          || body.contains("\tat ") || body.contains("java.")) {
        wrong.add(c.name() + ": got " + r.status() + " " + r.raw().lines().findFirst().orElse("") + " body "
            + body.substring(0, Math.min(200, body.length())));
      }
      if (r.status() == 405) {
        assertThat(r.header("Allow")).as(c.name()).isEqualTo("GET");
      }
      if (r.status() == 400 && r.header("Content-Type") != null
          && r.header("Content-Type").startsWith("application/json")) {
        assertThat(body).as(c.name()).startsWith("{\"error\":");
      }
    }
    assertThat(wrong).as("requests answered otherwise than expected").isEmpty();
    try (RawHttp raw = new RawHttp(null, server.port(), 5000)) {
      raw.send("GET /metrics HTTP/1.1\r\n" + H + "\r\n");
      RawHttp.Response r = raw.read();
      assertThat(r.status()).as("a normal scrape afterwards").isEqualTo(200);
      assertThat(r.text()).contains("segscope_device_info{");
    }
  }
}

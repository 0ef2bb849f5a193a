package io.segscope.agent.http;

import java.time.Duration;
import java.util.Objects;

/**
 * How the HTTP server listens and what it admits.
 *
 * @param host the address to bind
 * @param port the port (0: any free one)
 * @param web the {@code --web.config.file} settings (TLS, basic auth, headers)
 * @param maxRequests requests served at once (503 beyond, at once); 0: no limit. One client address gets
 *     at most half of them, so one noisy client cannot take every slot
 * @param readHeaderTimeout how long a connection may take to send a request's headers (from its
 *     opening, or from the end of the previous response); also the TLS handshake timeout
 * @param idleTimeout how long a connection may stay without reading or writing a byte
 * @param h2c whether plain-text connections may use HTTP/2 (prior knowledge or Upgrade: h2c)
 */
public record HttpSettings(String host, int port, WebConfig web, int maxRequests, Duration readHeaderTimeout,
    Duration idleTimeout, boolean h2c) {

  public static final int DEFAULT_MAX_REQUESTS = 40;
  public static final Duration DEFAULT_READ_HEADER_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);

  public HttpSettings {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(web, "web");
    if (maxRequests < 0) {
      throw new IllegalArgumentException("max requests must be >= 0, got " + maxRequests);
    }
    if (readHeaderTimeout.toMillis() < 1 || idleTimeout.toMillis() < 1) {
      throw new IllegalArgumentException("HTTP timeouts must be at least 1 ms");
    }
  }

  /** Plain HTTP on host:port with the defaults (what tests and a config-less start use). */
  public static HttpSettings plain(String host, int port) {
    return new HttpSettings(host, port, WebConfig.none(), DEFAULT_MAX_REQUESTS, DEFAULT_READ_HEADER_TIMEOUT,
        DEFAULT_IDLE_TIMEOUT, false);
  }

  public HttpSettings withWeb(WebConfig w) {
    return new HttpSettings(host, port, w, maxRequests, readHeaderTimeout, idleTimeout, h2c);
  }

  public HttpSettings withMaxRequests(int n) {
    return new HttpSettings(host, port, web, n, readHeaderTimeout, idleTimeout, h2c);
  }

  public HttpSettings withTimeouts(Duration readHeader, Duration idle) {
    return new HttpSettings(host, port, web, maxRequests, readHeader, idle, h2c);
  }

  public HttpSettings withH2c(boolean on) {
    return new HttpSettings(host, port, web, maxRequests, readHeaderTimeout, idleTimeout, on);
  }

  /** The share of {@link #maxRequests()} one client address may hold; 0 when unlimited. */
  public int maxRequestsPerClient() {
    return maxRequests == 0 ? 0 : Math.max(1, maxRequests / 2);
  }
}

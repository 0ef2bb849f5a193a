package io.segscope.agent.http;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.TooLongFrameException;
import io.segscope.agent.workload.DeviceWorkloads;
import io.segscope.exporters.MetricsRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.security.cert.X509Certificate;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * The HTTP face of the agent: it serves what the telemetry pipeline published (the map reads and their
 * clock are the pipeline's, {@code io.segscope.agent.telemetry.PipelineScheduler}). Blocking work (scrape
 * serialization, bcrypt) runs on named worker pools, never on the event loop.
 *
 * <p>Every request passes the door in this order: a connection must send its request's headers
 * within the read-header timeout (else it is closed); the client certificate must carry an allowed
 * SAN when the web config asks; only GET is served (405 with {@code Allow: GET}); the health endpoints
 * answer at once; every other request takes one of {@code --web.max-requests} slots or gets 503 at
 * once (never queued); then basic auth (401), then the route (404 for unknown paths). Client input
 * never yields a 500, and no body carries an exception's text.
 */
public final class AgentVerticle extends VerticleBase {
  private static final Logger LOG = Logger.getLogger(AgentVerticle.class.getName());
  private static final String TEXT = "text/plain; charset=utf-8";
  static final List<String> PATHS = List.of("/metrics", "/api/v1/devices", "/api/v1/recommendations", "/healthz",
      "/readyz");
  private static final String ENDPOINTS = "GET /metrics, /api/v1/devices, /api/v1/recommendations, /healthz, /readyz";

  private final HttpSettings settings;
  private final Backend backend;
  private final MetricsRegistry metrics;
  private final BasicAuth auth;
  private final Admission admission;
  /** Per connection: its header timer. Touched on the verticle's event loop only. */
  private final Map<HttpConnection, Connection> connections = new IdentityHashMap<>();
  private WorkerExecutor scrapers;
  private WorkerExecutor authenticators;
  private HttpServer server;

  public AgentVerticle(HttpSettings settings, Backend backend, MetricsRegistry metrics) {
    this.settings = settings;
    this.backend = backend;
    this.metrics = metrics;
    this.auth = new BasicAuth(settings.web().users());
    this.admission = new Admission(settings.maxRequests(), settings.maxRequestsPerClient());
  }

  @Override
  public Future<?> start() {
    Router router = Router.router(vertx);
    router.route().handler(this::door);
    router.route().handler(this::available);
    router.get("/metrics").handler(this::metrics);
    router.get("/healthz").handler(this::healthz);
    router.get("/readyz").handler(this::readyz);
    router.get("/api/v1/devices").handler(this::devices);
    router.get("/api/v1/recommendations").handler(this::recommendations);
    router.route().handler(ctx -> Answers.error(ctx, 404, "not found: " + ctx.request().path() + " (endpoints: "
        + ENDPOINTS + ")"));
    router.errorHandler(500, ctx -> {
      LOG.log(Level.WARNING, "serve " + ctx.request().path() + ": " + ctx.failure(), ctx.failure());
      if (!ctx.response().ended() && !ctx.response().headWritten()) {
        Answers.error(ctx, 500, "internal error (see the agent log)");
      }
    });

    HttpServerOptions options = ServerOptions.of(settings);
    try {
      ServerOptions.checkKeyPair(vertx, options);
    } catch (IllegalArgumentException e) {
      return Future.failedFuture(e);
    }
    scrapers = vertx.createSharedWorkerExecutor("segscope-scrape", 2);
    authenticators = vertx.createSharedWorkerExecutor("segscope-auth", 1);
    return vertx.createHttpServer(options)
        .connectionHandler(this::connected)
        .invalidRequestHandler(this::invalid)
        .requestHandler(req -> {
          if (arrived(req)) {
            router.handle(req);
          }
        })
        .listen()
        .onSuccess(s -> {
          server = s;
          LOG.info("serving " + ENDPOINTS + " on " + (options.isSsl() ? "https://" : "http://") + settings.host()
              + ":" + s.actualPort() + " (TLS " + (options.isSsl() ? "on" : "off") + ", basic auth "
              + (auth.enabled() ? "on" : "off") + ", at most " + (settings.maxRequests() == 0 ? "unlimited"
                  : settings.maxRequests())
              + " requests at once)");
        });
  }

  /** Requests holding a {@code --web.max-requests} slot now (tests: no slot outlives its request). */
  int requestsInFlight() {
    return admission.inFlight();
  }

  /** Connections the server holds now. */
  int connectionsOpen() {
    return connections.size();
  }

  /** The port actually bound (useful with port 0). */
  public int actualPort() {
    return server == null ? -1 : server.actualPort();
  }

  /** /metrics and the API: 503 while the backend has no telemetry yet (health endpoints always answer). */
  private void available(RoutingContext ctx) {
    String path = ctx.request().path();
    if (PATHS.contains(path) && !"/healthz".equals(path) && !"/readyz".equals(path)) {
      Optional<String> why = backend.unavailable();
      if (why.isPresent()) {
        ctx.response().putHeader("Retry-After", "1");
        Answers.error(ctx, 503, "not ready: " + why.get());
        return;
      }
    }
    ctx.next();
  }

  // ---- the door

  /** A new connection: it must send a request's headers within the read-header timeout. */
  private void connected(HttpConnection conn) {
    Connection c = new Connection();
    connections.put(conn, c);
    c.arm(conn, settings.readHeaderTimeout().toMillis());
    conn.closeHandler(v -> {
      Connection gone = connections.remove(conn);
      if (gone != null) {
        gone.disarm();
      }
    });
  }

  /** Per connection: the timer that closes it when headers are late, and its SAN verdict. */
  private final class Connection {
    long headerTimer = -1;
    Boolean sanAllowed;

    void arm(HttpConnection conn, long millis) {
      disarm();
      headerTimer = vertx.setTimer(millis, id -> {
        headerTimer = -1;
        conn.close();
      });
    }

    void disarm() {
      if (headerTimer >= 0) {
        vertx.cancelTimer(headerTimer);
        headerTimer = -1;
      }
    }
  }

  /**
   * Every request first: stops its connection's header timer, checks the client certificate's SANs
   * and the method. False when it has been answered (or its connection closed) here.
   */
  private boolean arrived(HttpServerRequest req) {
    HttpConnection conn = req.connection();
    Connection c = connections.get(conn);
    if (c != null) {
      c.disarm(); // re-armed when the response ends (door), for the next request on this connection
      if (!sanAllowed(conn, c)) {
        conn.close();
        return false;
      }
    }
    HttpServerResponse response = req.response();
    settings.web().headers().forEach(response::putHeader);
    if (req.method() != HttpMethod.GET) {
      response.putHeader("Allow", "GET").putHeader("Connection", "close"); // and its body is never read
      if (c != null) {
        c.arm(conn, settings.readHeaderTimeout().toMillis()); // in case the close is slow
      }
      Answers.error(response, 405, "method not allowed: " + BadRequest.quote(req.method().name())
          + " (the API is read-only: GET only)");
      return false;
    }
    return true;
  }

  /** A request Vert.x could not decode: 414 or 431 for the too long, 400 otherwise; the connection closes. */
  private void invalid(HttpServerRequest req) {
    Throwable cause = req.decoderResult().cause();
    int status = cause instanceof TooLongFrameException
        ? (cause.getClass().getSimpleName().contains("Header") ? 431 : 414) : 400;
    HttpServerResponse r = req.response();
    if (r.closed()) {
      return; // the connection went first (e.g. closed by the header timer mid-request)
    }
    r.putHeader("Connection", "close"); // Vert.x closes it after this answer
    Answers.error(r, status,
        status == 414 ? "request line too long (at most " + ServerOptions.MAX_INITIAL_LINE + " bytes)"
            : status == 431 ? "request headers too large (at most " + ServerOptions.MAX_HEADER_BYTES + " bytes)"
                : "malformed HTTP request");
  }

  private void door(RoutingContext ctx) {
    HttpConnection conn = ctx.request().connection();
    HttpServerResponse response = ctx.response();
    Connection c = connections.get(conn);
    if (c != null && ctx.request().version() != HttpVersion.HTTP_2) {
      // keep-alive: the next request's headers may come after an idle pause, but not forever
      long next = settings.idleTimeout().toMillis() + settings.readHeaderTimeout().toMillis();
      ctx.addEndHandler(v -> {
        if (connections.get(conn) == c) {
          c.arm(conn, next);
        }
      });
    }
    String path = ctx.request().path();
    if ("/healthz".equals(path) || "/readyz".equals(path)) {
      ctx.next(); // cheap, on the event loop, and what the kubelet probes without credentials
      return;
    }
    String client = conn.remoteAddress() == null ? "" : String.valueOf(conn.remoteAddress().hostAddress());
    if (!admission.tryAcquire(client)) {
      response.putHeader("Retry-After", "1");
      Answers.error(ctx, 503, "too many requests at once (at most " + settings.maxRequests() + ", "
          + settings.maxRequestsPerClient() + " per client address): try again later");
      return;
    }
    ctx.addEndHandler(v -> admission.release(client));
    if (!auth.enabled()) {
      ctx.next();
      return;
    }
    String authorization = ctx.request().getHeader("Authorization");
    Optional<Boolean> verdict = auth.known(authorization);
    Future<Boolean> allowed = verdict.isPresent() ? Future.succeededFuture(verdict.get())
        : authenticators.executeBlocking(() -> auth.allows(authorization), false);
    allowed.onComplete(ar -> {
      if (ar.succeeded() && ar.result()) {
        ctx.next();
      } else {
        response.putHeader("WWW-Authenticate", "Basic realm=\"segscope\", charset=\"UTF-8\"");
        Answers.error(ctx, 401, "unauthorized: this agent asks for basic authentication");
      }
    });
  }

  private boolean sanAllowed(HttpConnection conn, Connection c) {
    List<String> allowed = settings.web().tls().map(WebConfig.Tls::clientAllowedSans).orElse(List.of());
    if (allowed.isEmpty()) {
      return true;
    }
    if (c.sanAllowed == null) {
      boolean ok;
      try {
        var certs = conn.peerCertificates();
        ok = certs != null && !certs.isEmpty() && certs.get(0) instanceof X509Certificate x
            && ServerOptions.hasAllowedSan(x, allowed);
      } catch (SSLPeerUnverifiedException e) {
        ok = false;
      }
      if (!ok) {
        LOG.warning("refuse a connection from " + conn.remoteAddress()
            + ": its client certificate has none of the allowed SANs");
      }
      c.sanAllowed = ok;
    }
    return c.sanAllowed;
  }

  // ---- the endpoints

  private void metrics(RoutingContext ctx) {
    String accept = ctx.request().getHeader("Accept");
    boolean gzip = Query.acceptsGzip(ctx.request().getHeader("Accept-Encoding"));
    scrapers.executeBlocking(() -> metrics.scrapeParts(accept, gzip), false).onComplete(ar -> {
      HttpServerResponse r = ctx.response();
      if (ar.failed()) {
        LOG.log(Level.WARNING, "scrape: " + ar.cause(), ar.cause());
        Answers.error(ctx, 500, "scrape failed (see the agent log)");
        return;
      }
      MetricsRegistry.ScrapeParts p = ar.result();
      r.putHeader("Content-Type", p.contentType()).putHeader("Vary", "Accept, Accept-Encoding")
          .putHeader("Content-Length", String.valueOf(p.length()));
      if (p.gzip()) {
        r.putHeader("Content-Encoding", "gzip");
      }
      // the cached part is written from the shared bytes without a copy; only the small part is new
      r.write(BufferInternal.buffer(Unpooled.wrappedBuffer(p.cached())));
      r.end(Buffer.buffer(p.fresh()));
    });
  }

  /** GET /api/v1/devices[?netns=INODE|NAME][&device=NAME][&pod=[NAMESPACE/]NAME] */
  private void devices(RoutingContext ctx) {
    Map<String, String> q;
    try {
      q = Query.check("GET /api/v1/devices", ctx.queryParams(), Set.of("netns", "device", "pod"));
    } catch (BadRequest e) {
      Answers.error(ctx, 400, e.getMessage());
      return;
    } catch (RuntimeException e) {
      Answers.error(ctx, 400, "malformed query string");
      return;
    }
    scrapers.executeBlocking(() -> {
      var inv = backend.inventory();
      var workloads = backend.workloads();
      try {
        return Answers.pretty(ApiJson.devices(inv, backend.costs(), Query.devices(q, inv, workloads), workloads));
      } catch (BadRequest e) {
        return new Answers.Refusal(e.getMessage());
      }
    }, false).onComplete(ar -> Answers.json(ctx, ar));
  }

  /** GET /api/v1/recommendations */
  private void recommendations(RoutingContext ctx) {
    try {
      Query.check("GET /api/v1/recommendations", ctx.queryParams(), Set.of());
    } catch (BadRequest e) {
      Answers.error(ctx, 400, e.getMessage());
      return;
    } catch (RuntimeException e) {
      Answers.error(ctx, 400, "malformed query string");
      return;
    }
    scrapers.executeBlocking(() -> Answers.pretty(ApiJson.recommendations(backend.recommendations(),
        new DeviceWorkloads(backend.inventory(), backend.workloads()),
        backend.verifiedSavings())),
        false)
        .onComplete(ar -> Answers.json(ctx, ar));
  }

  private void healthz(RoutingContext ctx) {
    ctx.response().putHeader("Content-Type", TEXT).end("ok\n");
  }

  private void readyz(RoutingContext ctx) {
    List<String> reasons;
    try {
      reasons = backend.notReadyReasons();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "readiness: " + e, e);
      reasons = List.of("readiness could not be determined (see the agent log)");
    }
    if (reasons.isEmpty()) {
      ctx.response().putHeader("Content-Type", TEXT).end("ready\n");
    } else {
      ctx.response().setStatusCode(503).putHeader("Content-Type", TEXT)
          .end("not ready: " + String.join("; ", reasons) + "\n");
    }
  }
}

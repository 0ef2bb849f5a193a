package io.segscope.agent.http;

import io.segscope.agent.telemetry.TelemetryService;
import io.segscope.exporters.MetricsRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.logging.Logger;

/**
 * The HTTP face of the agent and the clock that drives map reads. Blocking work (map reads, scrape
 * serialization) runs on named worker pools, never on the event loop.
 */
public final class AgentVerticle extends VerticleBase {
  private static final Logger LOG = Logger.getLogger(AgentVerticle.class.getName());

  private final String host;
  private final int port;
  private final Duration interval;
  private final TelemetryService telemetry;
  private final MetricsRegistry metrics;
  private final BooleanSupplier probesAttached;
  private WorkerExecutor readers;
  private WorkerExecutor scrapers;
  private HttpServer server;
  private long timer = -1;

  public AgentVerticle(String host, int port, Duration interval, TelemetryService telemetry,
      MetricsRegistry metrics, BooleanSupplier probesAttached) {
    this.host = host;
    this.port = port;
    this.interval = interval;
    this.telemetry = telemetry;
    this.metrics = metrics;
    this.probesAttached = probesAttached;
  }

  @Override
  public Future<?> start() {
    Router router = Router.router(vertx);
    router.get("/metrics").handler(this::metrics);
    router.get("/healthz").handler(this::healthz);
    router.get("/readyz").handler(this::readyz);
    router.get("/api/v1/devices").handler(this::devices);
    router.get("/api/v1/recommendations").handler(this::recommendations);
    router.route().handler(ctx -> ctx.response().setStatusCode(404)
        .putHeader("content-type", "text/plain; charset=utf-8")
        .end("not found: " + ctx.request().method() + " " + ctx.request().path()
            + " (endpoints: GET /metrics, /healthz, /readyz, /api/v1/devices, /api/v1/recommendations)\n"));

    readers = vertx.createSharedWorkerExecutor("segscope-map-reader", 1);
    scrapers = vertx.createSharedWorkerExecutor("segscope-scrape", 2);
    // first read right away, then on the interval; never two reads at once
    readOnce();
    timer = vertx.setPeriodic(interval.toMillis(), id -> readOnce());
    return vertx.createHttpServer()
        .requestHandler(router)
        .listen(port, host)
        .onSuccess(s -> {
          server = s;
          LOG.info("serving /metrics, /api/v1/devices, /api/v1/recommendations, /healthz, /readyz on " + host + ":"
              + s.actualPort());
        });
  }

  /** The port actually bound (useful with port 0). */
  public int actualPort() {
    return server == null ? -1 : server.actualPort();
  }

  private boolean reading;

  private void readOnce() {
    if (reading) {
      return; // the previous read is still running: skip this tick rather than queue
    }
    reading = true;
    readers.executeBlocking(() -> {
      telemetry.refresh();
      return null;
    }, true).onComplete(ar -> reading = false);
  }

  private void metrics(RoutingContext ctx) {
    String accept = ctx.request().getHeader("Accept");
    scrapers.executeBlocking(() -> metrics.scrape(accept), false).onComplete(ar -> {
      if (ar.succeeded()) {
        ctx.response().putHeader("content-type", ar.result().contentType()).end(
            io.vertx.core.buffer.Buffer.buffer(ar.result().body()));
      } else {
        LOG.warning("scrape: " + ar.cause());
        ctx.response().setStatusCode(500).putHeader("content-type", "text/plain; charset=utf-8")
            .end("scrape failed: " + ar.cause().getMessage() + "\n");
      }
    });
  }

  /** GET /api/v1/devices[?netns=INODE|NAME][&device=NAME][&pod=[NAMESPACE/]NAME] */
  private void devices(RoutingContext ctx) {
    String netns = ctx.request().getParam("netns");
    String device = ctx.request().getParam("device");
    String pod = ctx.request().getParam("pod");
    scrapers.executeBlocking(() -> {
      var inv = telemetry.inventory();
      var workloads = telemetry.workloads();
      java.util.function.Predicate<io.segscope.agent.inventory.Device> filter = d -> true;
      if (netns != null) {
        if (netns.matches("\\d{1,19}")) {
          long inode = Long.parseLong(netns);
          filter = filter.and(d -> d.netns() == inode);
        } else if (inv.namespaces().stream().anyMatch(n -> n.name().equals(netns))) {
          filter = filter.and(d -> d.netnsName().equals(netns));
        } else {
          throw new BadRequest("netns '" + netns + "' is neither an inode number nor the name of a namespace");
        }
      }
      if (device != null) {
        filter = filter.and(d -> d.name().equals(device));
      }
      if (pod != null) {
        if (pod.isEmpty()) {
          throw new BadRequest("pod must name a pod: NAME or NAMESPACE/NAME");
        }
        var served = new io.segscope.agent.workload.DeviceWorkloads(inv, workloads);
        filter = filter.and(d -> {
          var w = served.served(d).workload();
          return w.kind() == io.segscope.agent.workload.WorkloadKind.POD && !w.pod().isEmpty()
              && (pod.equals(w.pod()) || pod.equals(w.podNamespace() + "/" + w.pod()));
        });
      }
      return ApiJson.devices(inv, telemetry.advisor().lastCosts(), filter, workloads).encodePrettily();
    }, false).onComplete(ar -> json(ctx, ar));
  }

  /** GET /api/v1/recommendations */
  private void recommendations(RoutingContext ctx) {
    scrapers.executeBlocking(() -> ApiJson.recommendations(telemetry.advisor().open(),
        new io.segscope.agent.workload.DeviceWorkloads(telemetry.inventory(), telemetry.workloads())).encodePrettily(),
        false)
        .onComplete(ar -> json(ctx, ar));
  }

  /** A query the API cannot answer: 400 with the reason. */
  static final class BadRequest extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BadRequest(String message) {
      super(message);
    }
  }

  private void json(RoutingContext ctx, io.vertx.core.AsyncResult<String> ar) {
    if (ar.succeeded()) {
      ctx.response().putHeader("content-type", "application/json").end(ar.result() + "\n");
    } else if (ar.cause() instanceof BadRequest b) {
      ctx.response().setStatusCode(400).putHeader("content-type", "application/json")
          .end(new io.vertx.core.json.JsonObject().put("error", b.getMessage()).encode() + "\n");
    } else {
      LOG.warning(ctx.request().path() + ": " + ar.cause());
      ctx.response().setStatusCode(500).putHeader("content-type", "application/json")
          .end(new io.vertx.core.json.JsonObject().put("error", String.valueOf(ar.cause().getMessage())).encode()
              + "\n");
    }
  }

  private void healthz(RoutingContext ctx) {
    ctx.response().putHeader("content-type", "text/plain; charset=utf-8").end("ok\n");
  }

  private void readyz(RoutingContext ctx) {
    boolean attached = probesAttached.getAsBoolean();
    boolean read = telemetry.firstReadDone();
    if (attached && read) {
      ctx.response().putHeader("content-type", "text/plain; charset=utf-8").end("ready\n");
    } else {
      ctx.response().setStatusCode(503).putHeader("content-type", "text/plain; charset=utf-8")
          .end("not ready: " + (attached ? "" : "probes not attached; ") + (read ? "" : "first map read pending")
              + "\n");
    }
  }

  @Override
  public Future<?> stop() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
    return Future.succeededFuture();
  }
}

package io.segscope.agent.http;

import io.segscope.agent.telemetry.PipelineScheduler;
import io.segscope.exporters.MetricsRegistry;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The agent's HTTP server in this JVM: a real {@link AgentVerticle} (the same door, routes and
 * scrape path as {@code segscope run}) serving a {@link SyntheticHost} instead of the kernel's maps,
 * on 127.0.0.1 with any free port. For the HTTP behaviour the kernel is not needed. A
 * {@link PipelineScheduler} publishes the host's next read every interval (the first at once) and renders
 * the metrics after it, as the agent's pipeline does.
 */
public final class DoorServer implements AutoCloseable {
  private final Vertx vertx;
  private final boolean ownsVertx;
  private final MetricsRegistry metrics;
  private final AgentVerticle verticle;
  private final PipelineScheduler reads;
  private final AtomicReference<TelemetrySnapshot> current = new AtomicReference<>();

  private DoorServer(Vertx vertx, boolean ownsVertx, HttpSettings settings, int devices, Duration interval,
      Supplier<List<String>> notReady) throws Exception {
    this(vertx, ownsVertx, settings, interval, null, null, devices, notReady);
  }

  private DoorServer(Vertx vertx, boolean ownsVertx, HttpSettings settings, Duration interval, Backend given,
      MetricsRegistry givenMetrics, int devices, Supplier<List<String>> notReady) throws Exception {
    this.vertx = vertx;
    this.ownsVertx = ownsVertx;
    SyntheticHost host = given != null ? null : new SyntheticHost(devices, 2);
    Backend backend = given != null ? given : host.backend(current, notReady);
    this.metrics = givenMetrics != null ? givenMetrics : new MetricsRegistry(current::get);
    this.verticle = new AgentVerticle(settings, backend, metrics);
    Runnable read = () -> {
      if (host != null) {
        host.nextRead(current);
      }
      metrics.render();
    };
    read.run(); // the first read before the server answers, then one every interval
    this.reads = new PipelineScheduler(read, () -> {}, interval);
    try {
      vertx.deployVerticle(verticle).toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
      reads.start(interval);
    } catch (Exception e) {
      close();
      throw e;
    }
  }

  /** Deploys on {@code vertx} (e.g. the one VertxExtension gives a test). */
  public static DoorServer start(Vertx vertx, HttpSettings settings, int devices) throws Exception {
    return new DoorServer(vertx, false, settings, devices, Duration.ofSeconds(5), List::of);
  }

  /** Deploys on a Vert.x of its own, closed with the server. */
  public static DoorServer start(HttpSettings settings, int devices, Supplier<List<String>> notReady)
      throws Exception {
    return new DoorServer(Vertx.vertx(), true, settings, devices, Duration.ofSeconds(5), notReady);
  }

  /** Serves {@code backend} and {@code metrics} (closed with the server) on a Vert.x of its own. */
  public static DoorServer start(HttpSettings settings, Backend backend, MetricsRegistry metrics) throws Exception {
    return new DoorServer(Vertx.vertx(), true, settings, Duration.ofSeconds(5), backend, metrics, 0, List::of);
  }

  /** Plain HTTP on 127.0.0.1, any port, default limits. */
  public static HttpSettings loopback() {
    return HttpSettings.plain("127.0.0.1", 0);
  }

  public int port() {
    return verticle.actualPort();
  }

  int requestsInFlight() {
    return verticle.requestsInFlight();
  }

  int connectionsOpen() {
    return verticle.connectionsOpen();
  }

  public MetricsRegistry metrics() {
    return metrics;
  }

  /** The repository file {@code relative} (deploy/web-config/...), found from the working directory. */
  public static Path repoFile(String relative) {
    for (Path p = Path.of(System.getProperty("user.dir")).toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.exists(p.resolve(relative)) && Files.isRegularFile(p.resolve("pom.xml"))
          && Files.isDirectory(p.resolve("deploy"))) {
        return p.resolve(relative);
      }
    }
    throw new IllegalStateException("find " + relative + ": not under any ancestor of the working directory");
  }

  @Override
  public void close() throws Exception {
    reads.close();
    try {
      if (ownsVertx) {
        vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      }
    } finally {
      metrics.close();
    }
  }
}

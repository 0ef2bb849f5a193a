package io.segscope.agent;

import io.segscope.agent.http.AgentVerticle;
import io.vertx.core.Vertx;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Logger;

/** Vert.x and the verticle deployed on it: the HTTP server. */
final class Http {
  private static final Logger LOG = Logger.getLogger(Http.class.getName());

  final Vertx vertx;
  private CompletableFuture<String> deployment;

  Http(Vertx vertx) {
    this.vertx = vertx;
  }

  CompletableFuture<String> deploy(AgentVerticle verticle) {
    deployment = vertx.deployVerticle(verticle).toCompletionStage().toCompletableFuture();
    return deployment;
  }

  /**
   * Closes Vert.x (the port with it), waiting a second at most. A deployment still in progress is not
   * closed under its feet (Vert.x logs an internal error then): the process ends right after a failed
   * start, and the kernel closes its port with it.
   */
  void close() {
    if (deployment != null && !deployment.isDone()) {
      return;
    }
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(1, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      LOG.fine("close HTTP server: " + e);
    }
  }
}

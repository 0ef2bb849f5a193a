package io.segscope.agent.http;

import io.vertx.core.AsyncResult;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.logging.Level;
import java.util.logging.Logger;

/** How the HTTP server answers: JSON bodies, and errors as {"error": message} (never an exception's text). */
final class Answers {
  private static final Logger LOG = Logger.getLogger(Answers.class.getName());
  static final String JSON = "application/json";

  private Answers() {}

  /** A 400 computed on a worker (the query needed the inventory). */
  record Refusal(String message) {}

  /**
   * {@code json} pretty-printed straight into a buffer: at 1,000 devices the body is megabytes, and the
   * String that encodePrettily() made (then a copy with the newline, then its UTF-8 bytes) tripled the
   * garbage of every request and grew the heap.
   */
  static Buffer pretty(JsonObject json) {
    return Json.CODEC.toBuffer(json, true);
  }

  private static final Buffer NEWLINE = Buffer.buffer("\n");

  /** A worker's answer: a refusal (400), a JSON body, or a failure (500, logged). */
  static void json(RoutingContext ctx, AsyncResult<?> ar) {
    if (ar.succeeded() && ar.result() instanceof Refusal r) {
      error(ctx, 400, r.message());
    } else if (ar.succeeded() && ar.result() instanceof Buffer body) {
      HttpServerResponse resp = ctx.response();
      resp.putHeader("Content-Type", JSON).putHeader("Content-Length", String.valueOf(body.length() + 1));
      resp.write(body);
      resp.end(NEWLINE.copy());
    } else if (ar.succeeded()) {
      ctx.response().putHeader("Content-Type", JSON).end(ar.result() + "\n");
    } else {
      LOG.log(Level.WARNING, ctx.request().path() + ": " + ar.cause(), ar.cause());
      error(ctx, 500, "internal error (see the agent log)");
    }
  }

  /** An error answer: the status and {"error": message}, never an exception's text. */
  static void error(RoutingContext ctx, int status, String message) {
    error(ctx.response(), status, message);
  }

  static void error(HttpServerResponse r, int status, String message) {
    if (r.ended() || r.closed()) {
      return;
    }
    r.setStatusCode(status).putHeader("Content-Type", JSON)
        .end(new JsonObject().put("error", message).encode() + "\n");
  }
}

package io.segscope.agent;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What a start has opened so far, in the order it was opened: the try-with-resources chain of
 * {@link AgentRuntime#start}. Closed (by try-with-resources) while the start has not {@linkplain
 * #handOver() handed it over}, it closes every part, newest first; a part whose close fails is logged
 * and the older ones are still closed. Once handed over (the start succeeded and the runtime owns the
 * parts), closing it does nothing. One thread.
 */
final class OpenedSoFar implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(OpenedSoFar.class.getName());

  /** How one part is released. */
  @FunctionalInterface
  interface Release<T> {
    void release(T part) throws Exception;
  }

  private record Part(String name, Runnable close) {}

  private final Deque<Part> parts = new ArrayDeque<>();
  private final Consumer<String> closed;
  private boolean handedOver;

  OpenedSoFar() {
    this(name -> {});
  }

  /** @param closed told each part's name once it was released (tests) */
  OpenedSoFar(Consumer<String> closed) {
    this.closed = Objects.requireNonNull(closed, "closed");
  }

  /** Records {@code part} (just opened) as the newest, released by {@code release}; returns it. */
  <T> T add(String name, T part, Release<? super T> release) {
    Objects.requireNonNull(part, name);
    parts.push(new Part(name, () -> {
      try {
        release.release(part);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        LOG.log(Level.FINE, "close " + name + ": interrupted", e);
      } catch (Exception e) {
        LOG.log(Level.WARNING, "close " + name + ": " + e.getMessage(), e);
      }
    }));
    return part;
  }

  /** The names of the parts opened so far, newest first. */
  List<String> names() {
    return parts.stream().map(Part::name).toList();
  }

  /** The start succeeded: the parts belong to the runtime now, and {@link #close} leaves them open. */
  void handOver() {
    handedOver = true;
  }

  /** Closes every part, newest first, unless they were handed over. */
  @Override
  public void close() {
    if (handedOver) {
      return;
    }
    while (!parts.isEmpty()) {
      Part p = parts.pop();
      p.close().run();
      closed.accept(p.name());
    }
  }
}

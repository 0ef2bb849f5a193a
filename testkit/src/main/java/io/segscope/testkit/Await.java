package io.segscope.testkit;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * The one way the tests wait for something: poll a condition every {@link #every} until it holds, up to
 * a deadline ({@link #atMost}) or while something else still runs ({@link #whileTrue}: traffic, a
 * process), whichever ends first. Waits on conditions, never on clocks: the sleep between two polls is
 * the only one, and it is here.
 *
 * <pre>{@code
 * Await.atMost(Duration.ofSeconds(30)).every(Duration.ofMillis(200))
 *     .untilOrFail(() -> agent.ready(), () -> "agent not ready within 30 s; log:\n" + agent.log());
 * Optional<JsonNode> r = Await.whileTrue(() -> !traffic.isDone()).every(Duration.ofMillis(300))
 *     .poll(() -> recommendation(agent));
 * }</pre>
 */
public final class Await {
  /** A condition that may throw {@code E} (an HTTP call, a file read; nothing checked for a plain lambda). */
  @FunctionalInterface
  public interface Condition<E extends Exception> {
    boolean holds() throws E;
  }

  /** A probe that may throw {@code E}: present once what is waited for is there. */
  @FunctionalInterface
  public interface Probe<T, E extends Exception> {
    Optional<T> get() throws E;
  }

  /** The failure's text, computed only when the wait failed; it may read a log (and fail to). */
  @FunctionalInterface
  public interface Why {
    String text() throws Exception;
  }

  /** The default pause between two polls. */
  public static final Duration DEFAULT_POLL = Duration.ofMillis(200);

  private final long deadlineNanos;
  private final boolean hasDeadline;
  private final BooleanSupplier going;
  private final Duration poll;
  private final Duration timeout;

  private Await(Duration timeout, BooleanSupplier going, Duration poll, long deadlineNanos) {
    this.timeout = timeout;
    this.hasDeadline = timeout != null;
    this.deadlineNanos = deadlineNanos;
    this.going = Objects.requireNonNull(going, "going");
    this.poll = Objects.requireNonNull(poll, "poll");
    if (poll.isNegative()) {
      throw new IllegalArgumentException("await: negative poll interval " + poll);
    }
  }

  /** Waits up to {@code timeout} from now. */
  public static Await atMost(Duration timeout) {
    return new Await(Objects.requireNonNull(timeout, "timeout"), () -> true, DEFAULT_POLL,
        System.nanoTime() + timeout.toNanos());
  }

  /** Waits while {@code going} holds (checked before each pause), with no deadline of its own. */
  public static Await whileTrue(BooleanSupplier going) {
    return new Await(null, going, DEFAULT_POLL, 0);
  }

  /** The same wait, polling every {@code poll}. */
  public Await every(Duration poll) {
    return new Await(timeout, going, poll, deadlineNanos);
  }

  /** The same wait, also ended when {@code alsoGoing} stops holding. */
  public Await andWhile(BooleanSupplier alsoGoing) {
    BooleanSupplier g = going;
    return new Await(timeout, () -> g.getAsBoolean() && alsoGoing.getAsBoolean(), poll, deadlineNanos);
  }

  /** The deadline's length (null without one), for failure messages. */
  public Duration timeout() {
    return timeout;
  }

  /** Nanoseconds left before the deadline (0 when passed; Long.MAX_VALUE without one). */
  public long nanosLeft() {
    return hasDeadline ? Math.max(0, deadlineNanos - System.nanoTime()) : Long.MAX_VALUE;
  }

  /**
   * Polls {@code probe} until it is present and returns that; empty when the deadline passed or the wait's
   * {@code whileTrue} stopped holding first. An interrupt while waiting fails the wait (the flag set again).
   */
  public <T, E extends Exception> Optional<T> poll(Probe<T, E> probe) throws E {
    while (true) {
      Optional<T> v = probe.get();
      if (v.isPresent()) {
        return v;
      }
      if (!goOn()) {
        return Optional.empty();
      }
      try {
        Thread.sleep(poll.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("await: interrupted", e);
      }
    }
  }

  /** Polls until {@code c} holds: true then, false when the wait ended first. */
  public <E extends Exception> boolean until(Condition<E> c) throws E {
    return poll(() -> c.holds() ? Optional.of(Boolean.TRUE) : Optional.empty()).isPresent();
  }

  /** Polls until {@code c} holds, else fails with {@code why} (computed only then). */
  public <E extends Exception> void untilOrFail(Condition<E> c, Why why) throws E {
    if (!until(c)) {
      throw new AssertionError(text(why));
    }
  }

  /** Polls {@code probe} until present and returns it, else fails with {@code why}. */
  public <T, E extends Exception> T pollOrFail(Probe<T, E> probe, Why why) throws E {
    return poll(probe).orElseThrow(() -> new AssertionError(text(why)));
  }

  private static String text(Why why) {
    try {
      return why.text();
    } catch (Exception e) {
      return "(the failure's text could not be made: " + e + ")";
    }
  }

  private boolean goOn() {
    return (!hasDeadline || System.nanoTime() < deadlineNanos) && going.getAsBoolean();
  }
}

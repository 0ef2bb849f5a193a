package io.segscope.agent;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Logger;
import sun.misc.Signal;

/**
 * SIGINT and SIGTERM for {@code segscope run}, from the first moment of the command on: a signal asks
 * the agent to stop wherever it is (reading BTF, compiling, loading, serving), and the command then
 * exits 0 once everything it took is released. Installed once, by the command line's Main (agent.cli)
 * before anything else runs; commands that do not {@linkplain #listen() listen} (report, doctor) keep
 * the usual meaning of the signals (exit at once with 128 + the signal number).
 */
public final class StopSignal {
  private static final Logger LOG = Logger.getLogger(StopSignal.class.getName());
  private static final StopSignal INSTANCE = new StopSignal();

  /**
   * The longest a stop may take after the signal: past it the process ends at once with 0 (whatever is
   * still open is released by the kernel with the process; the compiler child dies with it).
   */
  static final Duration EXIT_WITHIN = Duration.ofSeconds(8);

  private final CompletableFuture<String> stopped = new CompletableFuture<>();
  private volatile boolean listening;

  StopSignal() {}

  /** The process' one instance. */
  public static StopSignal get() {
    return INSTANCE;
  }

  /**
   * Installs the SIGINT and SIGTERM handlers. Call first thing in main, with {@code listen} true when the
   * command is {@code run} (known from the first argument before the command line is even parsed, so
   * that a signal during parsing already counts as a stop).
   */
  public static void install(boolean listen) {
    if (listen) {
      INSTANCE.listen();
    }
    for (String name : new String[] {"INT", "TERM"}) {
      Signal.handle(new Signal(name), s -> INSTANCE.received("SIG" + s.getName(), s.getNumber()));
    }
    Installed.mark();
  }

  /**
   * Loaded once both handlers are in place: a JVM run with {@code -Xlog:class+load} shows when a signal
   * starts counting as segscope's (ProcessDeathIT; the handlers' lambda class loads before they are).
   */
  private static final class Installed {
    static void mark() {}
  }

  /** From now on a signal asks this process to stop instead of ending it at once. */
  public void listen() {
    listening = true;
  }

  void received(String name, int number) {
    if (!listening) {
      Runtime.getRuntime().exit(128 + number); // what the JVM's own handler does
      return;
    }
    if (stopped.complete(name)) {
      LOG.info("stopping: " + name + " received");
      Thread watchdog = new Thread(() -> {
        try {
          Thread.sleep(EXIT_WITHIN.toMillis());
        } catch (InterruptedException e) {
          return;
        }
        LOG.warning("stopping: not done " + EXIT_WITHIN.toSeconds() + " s after " + name
            + "; exiting now (the kernel releases the programs, maps and links with the process)");
        Runtime.getRuntime().halt(0);
      }, "segscope-stop-watchdog");
      watchdog.setDaemon(true);
      watchdog.start();
    }
  }

  /** Throws {@link Stopped} when a stop was asked for: between the slow steps of a start. */
  public void check() throws Stopped {
    if (requested()) {
      throw new Stopped(stopped.getNow("stop"));
    }
  }

  /** Asks to stop as a signal would (tests, and a failure that ends the run). */
  public void request(String why) {
    stopped.complete(why);
  }

  /** Whether a stop was asked for. */
  public boolean requested() {
    return stopped.isDone();
  }

  /** Blocks until a stop is asked for; returns what asked (e.g. "SIGTERM"). */
  public String await() throws InterruptedException {
    try {
      return stopped.get();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Thrown by {@link #await(Future, Duration)} when a stop was asked for first. */
  public static final class Stopped extends Exception {
    private static final long serialVersionUID = 1L;

    Stopped(String why) {
      super("stopped (" + why + ")");
    }
  }

  /**
   * The value of {@code work} once it is done, unless a stop is asked for first (then {@link Stopped}).
   *
   * @throws ExecutionException what {@code work} failed with
   * @throws TimeoutException when {@code work} takes longer than {@code limit}
   */
  public <T> T await(Future<T> work, Duration limit) throws Stopped, ExecutionException, TimeoutException,
      InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    while (true) {
      if (requested()) {
        throw new Stopped(stopped.getNow("stop"));
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new TimeoutException("not done within " + limit.toSeconds() + " s");
      }
      try {
        return work.get(Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        // look at the stop again
      }
    }
  }
}

package io.segscope.agent.telemetry;

import io.segscope.probes.ProbeSource;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The clock of the {@link TelemetryPipeline}: a turn every interval on the one reader thread
 * ({@code segscope-map-reader}; never two turns at once: a tick that finds the previous turn still
 * running is skipped, not queued), and a tick of the probes' timing windows every
 * {@link ProbeSource#TIMING_TICK} on the clock's own thread ({@code segscope-pipeline-clock}), so that a
 * slow read never stretches a window. {@code run} schedules the pipeline for as long as the agent runs,
 * {@code report} for its duration; nothing of HTTP is here.
 */
public final class PipelineScheduler implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(PipelineScheduler.class.getName());

  private final Runnable turn;
  private final Runnable windows;
  private final Duration interval;
  private final ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor(
      r -> daemon(r, "segscope-pipeline-clock"));
  private final ExecutorService reader = Executors.newSingleThreadExecutor(r -> daemon(r, "segscope-map-reader"));
  private final AtomicBoolean turning = new AtomicBoolean();
  private final AtomicBoolean started = new AtomicBoolean();

  /** Schedules {@code pipeline}'s turns every {@code interval} and its timing windows. */
  public PipelineScheduler(TelemetryPipeline pipeline, Duration interval) {
    this(pipeline::turn, pipeline::tickTimingWindows, interval);
  }

  /**
   * @param turn one turn of a pipeline (blocking)
   * @param windows one tick of the timing windows (short)
   */
  public PipelineScheduler(Runnable turn, Runnable windows, Duration interval) {
    this.turn = Objects.requireNonNull(turn, "turn");
    this.windows = Objects.requireNonNull(windows, "windows");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("pipeline interval must be positive, got " + interval);
    }
    this.interval = interval;
  }

  /** Starts the clock: the first turn after {@code firstTurnAfter} (zero: at once), then every interval. */
  public PipelineScheduler start(Duration firstTurnAfter) {
    return start(firstTurnAfter, Long.MAX_VALUE);
  }

  /**
   * Starts the clock for at most {@code turns} scheduled turns (a report's duration): the first after
   * {@code firstTurnAfter}, then every interval. The timing windows tick until {@link #close()}.
   */
  public PipelineScheduler start(Duration firstTurnAfter, long turns) {
    if (!started.compareAndSet(false, true)) {
      throw new IllegalStateException("pipeline scheduler already started");
    }
    long tick = ProbeSource.TIMING_TICK.toMillis();
    clock.scheduleWithFixedDelay(this::tickWindows, tick, tick, TimeUnit.MILLISECONDS);
    AtomicLong left = new AtomicLong(turns);
    clock.scheduleAtFixedRate(() -> {
      if (left.getAndDecrement() > 0) {
        turnNow();
      }
    }, firstTurnAfter.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    return this;
  }

  /** Starts a turn now on the reader thread (e.g. as soon as the probes are attached), unless one is running. */
  public void turnNow() {
    if (!turning.compareAndSet(false, true)) {
      return; // the previous turn is still running: skip this tick rather than queue
    }
    try {
      reader.execute(() -> {
        try {
          turn.run();
        } catch (RuntimeException e) {
          LOG.log(Level.WARNING, "read maps: " + e, e);
        } finally {
          turning.set(false);
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      turning.set(false); // closed meanwhile
    }
  }

  private void tickWindows() {
    try {
      windows.run();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "timing window: " + e, e);
    }
  }

  /** Stops the clock and waits (up to 30 s) for a running turn to end: no turn runs after this returns. */
  @Override
  public void close() {
    clock.shutdownNow();
    reader.shutdown();
    try {
      clock.awaitTermination(30, TimeUnit.SECONDS);
      if (!reader.awaitTermination(30, TimeUnit.SECONDS)) {
        LOG.warning("a map read still runs 30 s after the pipeline was stopped");
        reader.shutdownNow();
      }
    } catch (InterruptedException e) {
      reader.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }
}

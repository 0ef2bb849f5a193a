package io.segscope.probes;

import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.LongUnaryOperator;

/**
 * When a sampling window opens and closes: the decision only, over a monotonic clock in nanoseconds
 * ({@link ProbeSession} ticks it and attaches or detaches the timing programs). Time is cut into cycles
 * of {@link Timing#cycle()}, counted from the first window; one window of {@link Timing#window()} opens
 * per cycle while segmentation is wanted (seen recently), at an offset drawn at random within the cycle
 * (so that it fits: 0 to cycle − window). The first window opens as soon as segmentation is wanted.
 *
 * <p>The random offset keeps the windows from keeping step with anything periodic on the host: the agent's
 * own map read (every 5 s by default, which a window at the start of every 10 s cycle would always
 * meet), a cron job, a load generator's rhythm. Over many cycles each moment of the cycle is sampled
 * alike, and the share of the time is still window ÷ cycle. With {@link Timing#isAlways()} a window
 * opens once and stays open.
 */
final class TimingWindows {
  private final Timing timing;
  private final LongUnaryOperator offsets;
  private boolean open;
  private long openedAt;
  private boolean everOpened;
  private long cycleStart;
  private long nextOpen;
  private long closedNanos;

  /** Windows at random offsets within their cycles. */
  TimingWindows(Timing timing) {
    this(timing, new SplittableRandom()::nextLong);
  }

  /**
   * @param offsets given the largest offset a window may start at within its cycle (cycle − window, in
   *     ns; at least 1), the offset of the next cycle's window, in [0, that bound)
   */
  TimingWindows(Timing timing, LongUnaryOperator offsets) {
    this.timing = Objects.requireNonNull(timing, "timing");
    this.offsets = Objects.requireNonNull(offsets, "offsets");
  }

  /** What to do at {@code now}: open or close a window, or nothing. */
  enum Step { OPEN, CLOSE, NONE }

  /**
   * The step at {@code now} with segmentation {@code wanted}; the state moves as if the step were done
   * (call {@link #undoOpen} when it failed).
   */
  Step tick(long now, boolean wanted) {
    if (timing.isAlways()) {
      if (!open) {
        open = true;
        openedAt = now;
        everOpened = true;
        return Step.OPEN;
      }
      return Step.NONE;
    }
    if (open) {
      if (now - openedAt >= timing.window().toNanos()) {
        open = false;
        closedNanos += now - openedAt;
        return Step.CLOSE;
      }
      return Step.NONE;
    }
    if (wanted && (!everOpened || now >= nextOpen)) {
      if (!everOpened) {
        cycleStart = now;
      }
      open = true;
      openedAt = now;
      everOpened = true;
      scheduleNext(now);
      return Step.OPEN;
    }
    return Step.NONE;
  }

  /**
   * The next window: in the cycle after the one {@code now} lies in (a window opened late, after a stretch
   * without segmentation, takes its cycle's turn), at a random offset that lets it end within that cycle.
   */
  private void scheduleNext(long now) {
    long cycle = timing.cycle().toNanos();
    long cyclesPassed = (now - cycleStart) / cycle;
    cycleStart += (cyclesPassed + 1) * cycle;
    long room = Math.max(1, cycle - timing.window().toNanos() + 1);
    long offset = offsets.applyAsLong(room);
    if (offset < 0 || offset >= room) {
      throw new IllegalStateException("window offset " + offset + " outside [0, " + room + ")");
    }
    nextOpen = cycleStart + offset;
  }

  /** An OPEN that could not be done: closed again; the next try is the next cycle's window. */
  void undoOpen() {
    open = false;
  }

  boolean isOpen() {
    return open;
  }

  /** How long windows have been open up to {@code now}, ns. */
  long openNanos(long now) {
    return closedNanos + (open ? now - openedAt : 0);
  }
}

package io.segscope.probes;

import java.util.Objects;

/**
 * When a sampling window opens and closes: the decision only, over a monotonic clock in nanoseconds
 * ({@link ProbeSession} ticks it and attaches or detaches the timing programs). A window opens when
 * segmentation is wanted (seen recently) and the previous window opened at least one cycle ago; it
 * closes after {@link Timing#window()}. With {@link Timing#isAlways()} it opens once and stays open.
 */
final class TimingWindows {
  private final Timing timing;
  private boolean open;
  private long openedAt;
  private boolean everOpened;
  private long closedNanos;

  TimingWindows(Timing timing) {
    this.timing = Objects.requireNonNull(timing, "timing");
  }

  /** What to do at {@code now}: open or close a window, or nothing. */
  enum Step { OPEN, CLOSE, NONE }

  /**
   * The step at {@code now} with segmentation {@code wanted}; the state moves as if the step were done
   * (call {@link #undo} when it failed).
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
    if (wanted && (!everOpened || now - openedAt >= timing.cycle().toNanos())) {
      open = true;
      openedAt = now;
      everOpened = true;
      return Step.OPEN;
    }
    return Step.NONE;
  }

  /** An OPEN that could not be done: closed again, as if never opened at {@code now}. */
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

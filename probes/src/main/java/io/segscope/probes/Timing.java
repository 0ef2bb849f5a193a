package io.segscope.probes;

import java.time.Duration;
import java.util.Objects;

/**
 * When the timing programs run (the start stamps at net_dev_queue and qdisc_dequeue, and the queued
 * count): in a window of {@code window} at a random moment of every {@code cycle} while software
 * segmentation was seen recently, or always. The counting programs run always either way.
 *
 * @param window how long each sampling window lasts; equal to {@code cycle} for {@link #always()}
 * @param cycle one window opens per cycle
 */
public record Timing(Duration window, Duration cycle) {
  /**
   * The default: 1 s in every 10 s (a tenth of the time, while segmentation is seen). Six windows a minute
   * rather than two of 3 s in every 30 s: the same cost, and a sample spread over the minute. Against the
   * bench's oracle that times every segmentation (part 1c), 60 s of S1 at load 9: the estimated time 1.6 %
   * and p50/p90/p99 within 3.1 % of the exact ones.
   */
  public static final Timing DEFAULT = new Timing(Duration.ofSeconds(1), Duration.ofSeconds(10));

  public Timing {
    Objects.requireNonNull(window, "window");
    Objects.requireNonNull(cycle, "cycle");
    if (window.isNegative() || window.isZero() || window.compareTo(cycle) > 0) {
      throw new IllegalArgumentException("timing window " + window + " must be in (0, cycle " + cycle + "]");
    }
  }

  /** The timing programs attached for as long as the probes run: every segmentation timed, offloaded exact. */
  public static Timing always() {
    return new Timing(Duration.ofSeconds(30), Duration.ofSeconds(30));
  }

  /** A window of {@code window} in every default cycle (10 s). */
  public static Timing sampled(Duration window) {
    return new Timing(window, DEFAULT.cycle());
  }

  /** Whether the windows cover all the time. */
  public boolean isAlways() {
    return window.equals(cycle);
  }

  /** {@code always}, or {@code 1s/10s}. */
  public String label() {
    return isAlways() ? "always" : seconds(window) + "/" + seconds(cycle);
  }

  private static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
  }
}

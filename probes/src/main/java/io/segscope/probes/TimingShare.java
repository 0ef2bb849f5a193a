package io.segscope.probes;

/**
 * How much of the time the timing programs ran: durations, quantiles and the offloaded count come
 * from those windows only; the software-segmentation counts are exact regardless.
 *
 * @param label the setting: {@code always} or {@code WINDOW/CYCLE} ({@link Timing#label()})
 * @param sampledSeconds how long they have been attached since the probes opened
 * @param elapsedSeconds how long the probes have been open
 */
public record TimingShare(String label, double sampledSeconds, double elapsedSeconds) {
  /** Timing programs attached all the time (fakes, recorded inputs). */
  public static final TimingShare ALWAYS = new TimingShare("always", 0, 0);

  /** sampled ÷ elapsed, 1 for {@code always} (and before any time passed). */
  public double ratio() {
    if (label.equals("always") || elapsedSeconds <= 0) {
      return label.equals("always") ? 1 : 0;
    }
    return Math.min(1, sampledSeconds / elapsedSeconds);
  }
}

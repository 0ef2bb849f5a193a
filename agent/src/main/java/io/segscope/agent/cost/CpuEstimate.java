package io.segscope.agent.cost;

/**
 * CPU time spent per second of wall time (in cores), and how it was obtained.
 *
 * @param cores CPU seconds per second
 * @param basis {@code measured} (every event timed), {@code extrapolated} (a share of the events
 *     timed, scaled to all of them), {@code estimated} (the mode cannot time: a stated per-event cost
 *     times the measured rate) or {@code none} (no events)
 * @param explanation in words, for the evidence of a recommendation
 */
public record CpuEstimate(double cores, String basis, String explanation) {
  public static final CpuEstimate NONE = new CpuEstimate(0, "none", "no events in the window");

  public CpuEstimate {
    if (!(cores >= 0) || Double.isInfinite(cores)) {
      throw new IllegalArgumentException("CpuEstimate.cores must be finite and >= 0, got " + cores);
    }
  }
}

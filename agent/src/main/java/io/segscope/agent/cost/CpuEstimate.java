package io.segscope.agent.cost;

/**
 * CPU time spent per second of wall time (in cores), and how it was obtained.
 *
 * @param cores CPU seconds per second
 * @param basis {@code measured} (every event timed), {@code extrapolated} (a share of the events
 *     timed, scaled to all of them), {@code estimated} (the mode cannot time: a stated per-event cost
 *     times the measured rate) or {@code none} (no events)
 * @param relativeError the half-width of the estimate's 95 % confidence interval relative to it, from the
 *     timed sample's spread ({@link Histograms#meanRelativeError}): 0 when every event was timed, NaN where
 *     the samples cannot tell ({@code estimated}, {@code none}). It covers the sampling of events, not a
 *     change of their cost between the timing windows and the time outside them
 * @param explanation in words, for the evidence of a recommendation
 */
public record CpuEstimate(double cores, String basis, double relativeError, String explanation) {
  public static final CpuEstimate NONE = new CpuEstimate(0, "none", Double.NaN, "no events in the window");

  public CpuEstimate {
    if (!(cores >= 0) || Double.isInfinite(cores)) {
      throw new IllegalArgumentException("CpuEstimate.cores must be finite and >= 0, got " + cores);
    }
    if (relativeError < 0 || Double.isInfinite(relativeError)) {
      throw new IllegalArgumentException("CpuEstimate.relativeError must be NaN or finite and >= 0, got "
          + relativeError);
    }
  }
}

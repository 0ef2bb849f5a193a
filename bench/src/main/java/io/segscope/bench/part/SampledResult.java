package io.segscope.bench.part;

import java.util.Map;
import java.util.TreeMap;

/**
 * Part 1c: the default sampling windows against an oracle that times every segmentation. An agent with
 * default flags (timing 1 s in every 10 s once segmentation is seen) and S1 traffic for {@code seconds};
 * the bpftrace oracle ({@code durations.bt}) times every software segmentation on the uplink.
 *
 * @param seconds the traffic's duration
 * @param agentSkbs super-packets the agent counted on the uplink (exact)
 * @param agentTimed of those, timed in the windows
 * @param agentTimedNanos their summed time
 * @param sampledSeconds how long the timing programs ran (segscope_timing_sampled_seconds_total delta)
 * @param untimed segmentations counted in a window whose start the agent did not see on that CPU
 *     (segscope_probe_diagnostic_total{kind="segmented_untimed"} delta, all devices)
 * @param apiQuantilesNanos p50, p90, p99 the agent's API gives for the uplink (the advice window covers the
 *     traffic): from the windows' timed events
 * @param apiRelativeError the 95 % half-width the agent states for its CPU estimate (NaN: none stated)
 * @param oracleCount segmentations the oracle timed at validate_xmit_skb*
 * @param oracleSumNanos their exact summed time
 * @param oracleSteps the oracle's durations: 64 ns step index → segmentations
 */
public record SampledResult(double seconds, long agentSkbs, long agentTimed, double agentTimedNanos,
    double sampledSeconds, double untimed, double[] apiQuantilesNanos, double apiRelativeError, long oracleCount,
    long oracleSumNanos, TreeMap<Long, Long> oracleSteps) {
  public static final long STEP_NANOS = 64;
  public static final double[] QUANTILES = {0.5, 0.9, 0.99};

  /** The agent's estimate of the segmentation time: exact count × the windows' mean, in ns. */
  public double estimatedNanos() {
    return agentTimed == 0 ? Double.NaN : agentSkbs * (agentTimedNanos / agentTimed);
  }

  /** |estimate − exact| ÷ exact. */
  public double estimateError() {
    return oracleSumNanos == 0 ? Double.NaN : Math.abs(estimatedNanos() - oracleSumNanos) / oracleSumNanos;
  }

  /** The exact q-quantile of the oracle's durations, in ns (the middle of its 64 ns step). */
  public double exactQuantileNanos(double q) {
    long total = oracleSteps.values().stream().mapToLong(Long::longValue).sum();
    if (total == 0) {
      return Double.NaN;
    }
    double rank = Math.max(1, Math.ceil(q * total));
    long seen = 0;
    for (Map.Entry<Long, Long> e : oracleSteps.entrySet()) {
      seen += e.getValue();
      if (seen >= rank) {
        return e.getKey() * STEP_NANOS + STEP_NANOS / 2.0;
      }
    }
    return oracleSteps.lastKey() * STEP_NANOS + STEP_NANOS / 2.0;
  }

  /** The worst |agent − exact| ÷ exact over p50, p90, p99. */
  public double worstQuantileError() {
    double worst = 0;
    for (int i = 0; i < QUANTILES.length; i++) {
      double exact = exactQuantileNanos(QUANTILES[i]);
      double e = Math.abs(apiQuantilesNanos[i] - exact) / exact;
      if (Double.isNaN(e)) {
        return Double.NaN;
      }
      worst = Math.max(worst, e);
    }
    return worst;
  }
}

package io.segscope.bench.part;

import java.util.List;
import java.util.Map;

/**
 * Part 3: per device, what the agent counted (deltas of its counters) against the bpftrace oracle.
 *
 * @param devices every lab device of S1, S2 and S0 (healthy S1)
 * @param otherFreeSites GSO skbs the oracle saw freed at call sites other than validate_xmit_skb*, by site
 *     (on lab devices): not segmentation, listed so nothing is hidden
 * @param segmentedUntracked Δ segscope_probe_diagnostic_total{kind="segmented_untracked"} in the window
 */
public record AccuracyResult(List<DeviceAccuracy> devices, Map<String, Long> otherFreeSites,
    double segmentedUntracked) {

  /**
   * One device.
   *
   * @param agentSkbs Δ segscope_gso_sw_skbs_total
   * @param oracleSkbs GSO skbs freed at validate_xmit_skb* on it
   * @param agentOffloaded Δ segscope_gso_offloaded_skbs_total
   * @param oracleOffloaded GSO skbs seen at net_dev_start_xmit on it
   */
  public record DeviceAccuracy(String scenario, String role, long netns, String device, double agentSkbs,
      double oracleSkbs, double agentSegments, double oracleSegments, double agentBytes, double oracleBytes,
      double agentOffloaded, double oracleOffloaded) {

    /** |agent − oracle| / oracle; 0 when both are 0; +Inf when only the agent counted. */
    public static double relativeError(double agent, double oracle) {
      if (oracle == 0) {
        return agent == 0 ? 0 : Double.POSITIVE_INFINITY;
      }
      return Math.abs(agent - oracle) / oracle;
    }

    /** The largest relative error of the four counts. */
    public double worstError() {
      return Math.max(Math.max(relativeError(agentSkbs, oracleSkbs), relativeError(agentSegments, oracleSegments)),
          Math.max(relativeError(agentBytes, oracleBytes), relativeError(agentOffloaded, oracleOffloaded)));
    }
  }
}

package io.segscope.bench.part;

import java.util.List;

/**
 * Part 1b: the agent's per-device counts against the bpftrace oracle over the same traffic.
 *
 * @param devices every lab device of the scenarios driven
 * @param untracked segmented_untracked diagnostics in the window (all devices)
 */
public record AccuracyResult(List<DeviceCount> devices, double untracked) {

  /** One device: the agent's count next to the oracle's, for each figure. */
  public record DeviceCount(String scenario, String role, long netns, String device, long agentSkbs,
      long oracleSkbs, long agentSegments, long oracleSegments, long agentBytes, long oracleBytes,
      long agentOffloaded, long oracleOffloaded) {

    /** The largest |agent − oracle| ÷ max(agent, oracle) of the four figures (0 when both count nothing). */
    public double worstError() {
      return Math.max(Math.max(err(agentSkbs, oracleSkbs), err(agentSegments, oracleSegments)),
          Math.max(err(agentBytes, oracleBytes), err(agentOffloaded, oracleOffloaded)));
    }

    /** Whether either side counted anything on this device. */
    public boolean counted() {
      return agentSkbs + oracleSkbs + agentOffloaded + oracleOffloaded > 0;
    }

    static double err(long a, long o) {
      long m = Math.max(Math.abs(a), Math.abs(o));
      return m == 0 ? 0 : (double) Math.abs(a - o) / m;
    }
  }

  /** The worst error over every device that counted anything; 0 when none did. */
  public double worstError() {
    return devices.stream().filter(DeviceCount::counted).mapToDouble(DeviceCount::worstError).max().orElse(0);
  }
}

package io.segscope.lab;

/**
 * One iperf3 TCP run as the client saw it.
 *
 * @param sentBytes     {@code end.sum_sent.bytes}
 * @param bitsPerSecond {@code end.sum_sent.bits_per_second}
 * @param rawJson       the client's full {@code -J} output
 */
public record IperfResult(long sentBytes, double bitsPerSecond, String rawJson) {
  /** Throughput in Gbit/s, for reports. */
  public double gbitsPerSecond() {
    return bitsPerSecond / 1e9;
  }
}

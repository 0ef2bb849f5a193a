package io.segscope.bench.part;

import java.nio.file.Path;
import java.time.Duration;

/**
 * What a run of the suite uses.
 *
 * @param agentJar the agent's shaded jar
 * @param benchJar this suite's shaded jar (run inside namespaces for the scale traffic)
 * @param costTraffic iperf3 duration of the S1 run measured for in-kernel cost and accuracy
 * @param overheadPairs with/without-agent pairs of the overhead part
 * @param overheadRun iperf3 duration of each overhead run
 * @param scaleLevels device counts of the scale part
 * @param latencyRequests requests per endpoint and level
 * @param jmhQuick fewer, shorter JMH iterations (development)
 */
public record BenchConfig(Path agentJar, Path benchJar, Duration costTraffic, int overheadPairs,
    Duration overheadRun, int[] scaleLevels, int latencyRequests, boolean jmhQuick) {

  public static BenchConfig full(Path agentJar, Path benchJar) {
    return new BenchConfig(agentJar, benchJar, Duration.ofSeconds(5), 5, Duration.ofSeconds(3),
        new int[] {10, 100, 1000}, 100, false);
  }

  /** Short runs for developing the suite itself: same steps, smaller numbers. */
  public static BenchConfig quick(Path agentJar, Path benchJar) {
    return new BenchConfig(agentJar, benchJar, Duration.ofSeconds(2), 2, Duration.ofSeconds(1),
        new int[] {10, 40}, 20, true);
  }
}

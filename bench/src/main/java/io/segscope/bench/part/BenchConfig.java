package io.segscope.bench.part;

import io.segscope.bench.agent.Launcher;
import java.nio.file.Path;
import java.time.Duration;

/**
 * What a run of the suite uses.
 *
 * @param root the repository (scripts/guest-run is there)
 * @param agentJar the agent's shaded jar
 * @param benchJar this suite's shaded jar (runs inside namespaces and inside the guest)
 * @param launcherScript the repository's {@code segscope} launcher
 * @param launcher the JVM flags and environment it starts the agent with
 * @param kernelWindow S1 traffic of the in-kernel cost window (and of each oracle scenario)
 * @param overheadPairs with/without-agent pairs of the overhead part
 * @param overheadRun iperf3 duration of each overhead run
 * @param udpRound UDP_SEGMENT sender duration of each overhead round
 * @param scaleLevels device counts of the scale part
 * @param latencyRequests requests per endpoint, variant and level
 * @param jmhQuick fewer, shorter JMH iterations
 * @param guestDevices devices of the guest's fleet
 * @param guestMaxCpus the guest's possible CPUs
 * @param guestPairs 64-byte UDP pairs per mode in the guest's cost boot
 */
public record BenchConfig(Path root, Path agentJar, Path benchJar, Path launcherScript, Launcher launcher,
    Duration kernelWindow, int overheadPairs, Duration overheadRun, Duration udpRound, int[] scaleLevels,
    int latencyRequests, boolean jmhQuick, int guestDevices, int guestMaxCpus, int guestPairs) {

  /** The full run: what BENCHMARKS.md is made from (about 20 minutes here). */
  public static BenchConfig full(Path agentJar, Path benchJar, Path launcherScript) {
    return new BenchConfig(launcherScript.toAbsolutePath().getParent(), agentJar, benchJar, launcherScript,
        Launcher.read(launcherScript), Duration.ofSeconds(10), 15, Duration.ofSeconds(3), Duration.ofSeconds(3),
        new int[] {10, 100, 1000}, 100, false, 1000, 128, 9);
  }

  /** Short runs for developing the suite itself: same steps, smaller numbers. */
  public static BenchConfig quick(Path agentJar, Path benchJar, Path launcherScript) {
    return new BenchConfig(launcherScript.toAbsolutePath().getParent(), agentJar, benchJar, launcherScript,
        Launcher.read(launcherScript), Duration.ofSeconds(2), 2, Duration.ofSeconds(1), Duration.ofSeconds(1),
        new int[] {10, 100}, 20, true, 100, 128, 2);
  }
}

package io.segscope.deploy;

import io.segscope.lab.containerd.PrivateContainerd.Pod;
import io.segscope.testkit.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * iperf3 between two pods of a {@code PrivateContainerd}: the server in the receiver pod, the client in the
 * sender pod (nsenter: their namespaces have no /run/netns name). One copy for the end-to-end tests that
 * drive traffic between CRI pods (ContainerdPodsIT, ContainerImageIT).
 */
final class PodIperf {
  private static final String PORT = "5201";

  private PodIperf() {}

  /** Runs the client for {@code d} once the server listens; "exit N: output" of the client. */
  static String run(Pod sender, Pod receiver, Path serverLog, Duration d) {
    try {
      Process server = new ProcessBuilder("nsenter", "--net=" + receiver.netnsPath(), "iperf3", "-s", "-1", "-B",
          receiver.ip(), "-p", PORT).redirectErrorStream(true).redirectOutput(serverLog.toFile()).start();
      try {
        // not listening within 10 s: the client's own error says so
        Await.atMost(Duration.ofSeconds(10)).every(Duration.ofMillis(50)).until(() -> listening(receiver));
        Process client = new ProcessBuilder("nsenter", "--net=" + sender.netnsPath(), "iperf3", "-c", receiver.ip(),
            "-p", PORT, "-t", Long.toString(Math.max(1, d.toSeconds()))).redirectErrorStream(true).start();
        String out = new String(client.getInputStream().readAllBytes());
        client.waitFor(d.toSeconds() + 30, TimeUnit.SECONDS);
        return "exit " + client.exitValue() + ": " + out;
      } finally {
        server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (Exception e) {
      throw new IllegalStateException("run iperf3 between the pods: " + e, e);
    }
  }

  /** The client's summary line ("... sender"), else its whole output. */
  static String senderLine(String out) {
    return out.lines().filter(l -> l.contains("sender")).findFirst().orElse(out);
  }

  private static boolean listening(Pod receiver) throws Exception {
    Process ss = new ProcessBuilder("nsenter", "--net=" + receiver.netnsPath(), "ss", "-Hltn", "sport", "=", ":" + PORT)
        .redirectErrorStream(true).start();
    String out = new String(ss.getInputStream().readAllBytes());
    ss.waitFor(10, TimeUnit.SECONDS);
    return out.contains(PORT);
  }
}

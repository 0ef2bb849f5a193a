package io.segscope.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.lab.containerd.PrivateContainerd.Pod;
import io.segscope.testkit.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * iperf3 between two pods of a {@code PrivateContainerd}: the server in the receiver pod, the client in the
 * sender pod (nsenter: their namespaces have no /run/netns name). One copy for the end-to-end tests that
 * drive traffic between CRI pods (ContainerdPodsIT, ContainerImageIT), and their wait for the recommendation
 * that traffic opens.
 */
final class PodIperf {
  private static final String PORT = "5201";
  private static final ObjectMapper JSON = new ObjectMapper();

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

  /** GET of the agent's /api/v1/recommendations body, through whatever reaches it (a forward, the host). */
  @FunctionalInterface
  interface Recommendations {
    String body() throws Exception;
  }

  /**
   * Runs iperf3 for {@code traffic} and polls the agent until it opens a gso_size_mismatch recommendation on a
   * device of the node's namespace ({@code nodeInode}); fails with iperf's output and the agent's log if the
   * traffic ends first. Waits up to {@code drain} for iperf3 to end either way.
   */
  static JsonNode awaitGsoSizeMismatch(Pod sender, Pod receiver, Path serverLog, long nodeInode,
      Recommendations recommendations, Callable<String> agentLog, Duration traffic, Duration drain) throws Exception {
    CompletableFuture<String> running = CompletableFuture.supplyAsync(() -> run(sender, receiver, serverLog, traffic));
    try {
      return Await.whileTrue(() -> !running.isDone()).every(Duration.ofMillis(300)).pollOrFail(() -> {
        for (JsonNode r : JSON.readTree(recommendations.body()).path("recommendations")) {
          if (r.path("rule").asText().equals("gso_size_mismatch")
              && r.path("subject").path("netns").asLong() == nodeInode) {
            return Optional.of(r);
          }
        }
        return Optional.empty();
      }, () -> "no gso_size_mismatch recommendation during " + traffic + " of traffic between the pods; iperf: "
          + running.get() + "\nagent log:\n" + agentLog.call());
    } finally {
      running.get(drain.toSeconds(), TimeUnit.SECONDS);
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

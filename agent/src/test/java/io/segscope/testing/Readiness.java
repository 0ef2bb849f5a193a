package io.segscope.testing;

import io.segscope.testkit.Await;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Callable;

/** Waits for a child process's HTTP readiness endpoint, failing with its log when it dies or times out. */
public final class Readiness {
  private Readiness() {}

  /** One readiness request: the HTTP status it got. */
  @FunctionalInterface
  public interface Probe {
    int status() throws IOException, InterruptedException;
  }

  /**
   * Polls {@code probe} every 200 ms until it answers 200.
   *
   * @param what the process, for messages ("the agent", "prometheus")
   * @param log the process's output so far, appended to failures
   */
  public static void await(String what, Process process, Probe probe, Duration timeout, Callable<String> log)
      throws Exception {
    boolean ready = Await.atMost(timeout).every(Duration.ofMillis(200)).until(() -> {
      if (!process.isAlive()) {
        throw new AssertionError(what + " exited with " + process.exitValue() + ":\n" + log.call());
      }
      try {
        return probe.status() == 200;
      } catch (IOException e) {
        return false; // not listening yet
      }
    });
    if (!ready) {
      throw new AssertionError(what + " was not ready within " + timeout + ":\n" + log.call());
    }
  }
}

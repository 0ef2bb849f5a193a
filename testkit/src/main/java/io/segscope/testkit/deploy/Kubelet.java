package io.segscope.testkit.deploy;

import io.segscope.testkit.Await;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The kubelet's probes against the pod's address (through the forward): the startup probe until it
 * succeeds or fails failureThreshold times in a row, then liveness and readiness at their periods.
 */
public final class Kubelet implements AutoCloseable {
  private final int port;
  private final Path log;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final AtomicInteger livenessInARow = new AtomicInteger();
  private final AtomicInteger worstLiveness = new AtomicInteger();
  private final AtomicReference<Boolean> ready = new AtomicReference<>(false);
  private final List<Thread> pollers = new ArrayList<>();
  private final java.util.function.BooleanSupplier running;
  private volatile boolean closed;

  public Kubelet(int port, Path log, java.util.function.BooleanSupplier running) {
    this.port = port;
    this.log = log;
    this.running = running;
  }

  public HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return get(path, Duration.ofSeconds(10));
  }

  public HttpResponse<String> get(String path, Duration timeout) throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(timeout)
        .build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Whether an HTTP GET probe succeeds (2xx or 3xx within its timeout), as the kubelet judges it. */
  public boolean probe(AgentPod.Probe p) {
    try {
      int code = get(p.path(), Duration.ofSeconds(p.timeoutSeconds())).statusCode();
      return code >= 200 && code < 400;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  public void awaitStarted(AgentPod.Probe startup) throws Exception {
    for (int failures = 0; failures < startup.failureThreshold(); failures++) {
      if (probe(startup)) {
        return;
      }
      if (!running.getAsBoolean()) {
        throw new AssertionError("the container exited before its startup probe succeeded\nlog:\n" + log());
      }
      // The kubelet's own pace, not a wait for a condition: it counts failures, one per period.
      Thread.sleep(startup.periodSeconds() * 1000L);
    }
    throw new AssertionError("the startup probe " + startup + " failed " + startup.failureThreshold()
        + " times: the kubelet restarts the container\nlog:\n" + log());
  }

  public void pollLivenessAndReadiness(AgentPod.Probe liveness, AgentPod.Probe readiness) {
    pollers.add(poller("liveness", liveness, ok -> {
      int n = ok ? 0 : livenessInARow.incrementAndGet();
      if (ok) {
        livenessInARow.set(0);
      }
      worstLiveness.accumulateAndGet(n, Math::max);
    }));
    pollers.add(poller("readiness", readiness, ready::set));
  }

  private Thread poller(String name, AgentPod.Probe p, java.util.function.Consumer<Boolean> result) {
    Thread t = new Thread(() -> loop(p, result), "kubelet-" + name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  private void loop(AgentPod.Probe p, java.util.function.Consumer<Boolean> result) {
    while (!closed) {
      result.accept(probe(p));
      try {
        Thread.sleep(p.periodSeconds() * 1000L); // the probe's period, as the kubelet paces it
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  public void awaitReady(Duration timeout) throws Exception {
    Await.atMost(timeout).untilOrFail(ready::get,
        () -> "the readiness probe did not succeed within " + timeout + "\nlog:\n" + log());
  }

  public int livenessFailuresInARow() {
    return worstLiveness.get();
  }

  public String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() {
    closed = true;
    pollers.forEach(Thread::interrupt);
  }
}

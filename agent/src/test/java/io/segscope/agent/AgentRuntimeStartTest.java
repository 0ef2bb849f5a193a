package io.segscope.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.segscope.agent.http.HttpSettings;
import io.segscope.agent.telemetry.DeviceSelection;
import io.segscope.agent.telemetry.SelfCost;
import io.segscope.agent.workload.CriEndpoints;
import io.segscope.lab.LabTest;
import io.segscope.probes.ProbeException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link AgentRuntime#start} failing at each step, with the real device inventory (every namespace of
 * this host, read only), metrics registry, workload resolver and HTTP server, and a fake probe opener
 * (no compile: it waits until interrupted, or fails when the probes are awaited). Everything opened
 * before the failing step is closed, newest first: the parts are told closed in reverse order, the
 * opener is interrupted, every thread the start made has ended and the HTTP port is free again.
 * Steps after the probes are attached need a real probe session; they are not reached here.
 */
@LabTest
class AgentRuntimeStartTest {
  /** The thread names of the parts a start opens (its own, the inventory's, Vert.x's). */
  static boolean ofTheStart(Thread t) {
    return t.getName().startsWith("segscope-") || t.getName().startsWith("vert.x-")
        || t.getName().startsWith("vertx-");
  }

  static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  static AgentOptions options(int port) {
    return new AgentOptions(HttpSettings.plain("127.0.0.1", port), Duration.ofSeconds(1), SelfCost.Mode.OFF,
        Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofMinutes(2), List.of(), Optional.empty(),
        Optional.empty(), DeviceSelection.Config.DEFAULT, CriEndpoints.none(), Duration.ofSeconds(1));
  }

  @ParameterizedTest(name = "failure at {0}")
  @ValueSource(strings = {AgentRuntime.STEP_PROBES, AgentRuntime.STEP_INVENTORY, AgentRuntime.STEP_METRICS,
      AgentRuntime.STEP_WORKLOADS, AgentRuntime.STEP_HTTP, AgentRuntime.STEP_ATTACHED, "stop at probes attached"})
  void everythingOpenedBeforeTheFailingStepIsClosedNewestFirst(String failAt) throws Exception {
    boolean stopCase = failAt.startsWith("stop at ");
    String step = stopCase ? AgentRuntime.STEP_ATTACHED : failAt;
    boolean openerFails = step.equals(AgentRuntime.STEP_ATTACHED) && !stopCase;
    Set<Thread> before = Thread.getAllStackTraces().keySet();
    int port = freePort();
    StopSignal stop = new StopSignal();
    CountDownLatch interrupted = new CountDownLatch(1);
    List<String> reached = new CopyOnWriteArrayList<>();
    List<String> closed = new CopyOnWriteArrayList<>();
    AgentRuntime.ProbeOpener opener = request -> {
      if (openerFails) {
        throw new ProbeException("open probes: injected");
      }
      try {
        new CountDownLatch(1).await(); // a compile that never ends by itself
      } catch (InterruptedException e) {
        interrupted.countDown();
        throw e;
      }
      throw new AssertionError("unreachable");
    };
    AgentRuntime.StartHook hook = s -> {
      reached.add(s);
      if (s.equals(step)) {
        if (stopCase) {
          stop.request("test");
        } else if (!openerFails) {
          throw new ProbeException("start " + s + ": injected");
        }
      }
    };

    var thrown = assertThatThrownBy(() -> AgentRuntime.start(options(port), stop,
        new AgentRuntime.Seams(opener, hook, closed::add)));
    if (stopCase) {
      thrown.isInstanceOf(StopSignal.Stopped.class);
    } else {
      thrown.isInstanceOf(ProbeException.class)
          .hasMessage(openerFails ? "open probes: injected" : "start " + step + ": injected");
    }

    assertThat(reached).as("the steps reached").containsExactlyElementsOf(
        AgentRuntime.STEPS.subList(0, AgentRuntime.STEPS.indexOf(step) + 1));
    List<String> opened = new ArrayList<>(AgentRuntime.STEPS.subList(0, AgentRuntime.STEPS.indexOf(step)));
    opened.remove(AgentRuntime.STEP_ATTACHED); // awaiting the probes opens nothing of its own
    Collections.reverse(opened);
    assertThat(closed).as("parts closed, newest first").containsExactlyElementsOf(opened);
    if (!step.equals(AgentRuntime.STEP_PROBES) && !openerFails) {
      assertThat(interrupted.getCount()).as("the probe opener was interrupted").isZero();
    }
    // every thread the start made ends (asynchronously, just after its part closed): joined, 15 s at most
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    List<Thread> made = Thread.getAllStackTraces().keySet().stream().filter(t -> !before.contains(t))
        .filter(AgentRuntimeStartTest::ofTheStart).toList();
    for (Thread t : made) {
      t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
    }
    assertThat(made.stream().filter(Thread::isAlive).map(Thread::getName).sorted().collect(Collectors.toList()))
        .as("threads of the start still alive").isEmpty();
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress("127.0.0.1", port)); // the HTTP server's port is free again
    }
  }
}

package io.segscope.agent;

import io.segscope.agent.probing.ProbeFactory;
import io.segscope.probes.ProbeException;
import io.segscope.probes.ProbeSession;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Logger;

/**
 * The probes being opened on their own thread ("segscope-probes") while the rest of the start goes
 * on: the compile (the slowest step) overlaps with the inventory and the HTTP server.
 */
final class ProbeOpening {
  private static final Logger LOG = Logger.getLogger(ProbeOpening.class.getName());

  private final CompletableFuture<ProbeSession> opening =
      new CompletableFuture<>();
  private final Thread opener;

  private ProbeOpening(AgentRuntime.ProbeOpener open, ProbeFactory.Request request) {
    opener = new Thread(() -> {
      try {
        opening.complete(open.open(request));
      } catch (Throwable t) {
        opening.completeExceptionally(t);
      }
    }, "segscope-probes");
    opener.setDaemon(true);
  }

  static ProbeOpening start(AgentRuntime.ProbeOpener open, ProbeFactory.Request request) {
    ProbeOpening o = new ProbeOpening(open, request);
    o.opener.start();
    return o;
  }

  /** The opened probes, or why not (the opener's ProbeException as it is). */
  ProbeSession await(StopSignal stop) throws ProbeException, InterruptedException, StopSignal.Stopped {
    try {
      return stop.await(opening, Duration.ofMinutes(30));
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof ProbeException p) {
        throw p;
      }
      if (c instanceof InterruptedException i) {
        throw i;
      }
      throw new ProbeException("open probes: " + c, c);
    } catch (TimeoutException e) {
      throw new ProbeException("open probes: " + e.getMessage(), e);
    }
  }

  /** Interrupts the opener: a compile in progress ends at once (its compiler child is killed). */
  void cancel() {
    opener.interrupt();
  }

  /**
   * Stops the opener and closes what it opened. An interrupted opener kills its compiler child at once
   * and closes what it loaded; one still parsing BTF (which takes nothing from the kernel) is not
   * waited for beyond half a second: the process ends without it.
   */
  void close() {
    opener.interrupt();
    try {
      opening.get(500, TimeUnit.MILLISECONDS).close();
    } catch (TimeoutException e) {
      LOG.fine("open probes: still reading the kernel's BTF; not waited for");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      // it failed, or was interrupted before it had anything: nothing of it is open
    }
  }
}

package io.segscope.agent.workload;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.segscope.agent.workload.cri.v1.NamespaceMode;
import io.segscope.agent.workload.cri.v1.PodSandbox;
import io.segscope.agent.workload.cri.v1.PodSandboxState;
import io.segscope.agent.workload.cri.v1.PodSandboxStatusResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * One runtime's pod sandboxes, asked over its CRI socket: {@code ListPodSandbox} every round, and
 * {@code PodSandboxStatus} (verbose) once per sandbox id, remembered while the sandbox is listed. A
 * round is bounded: every call has a deadline, at most {@link #MAX_STATUS_PER_ROUND} status calls
 * are made (the rest wait for the next round), and a call that times out ends the round for this
 * runtime. When a round fails, the last good answer stands.
 */
final class CriSource implements AutoCloseable {
  static final int MAX_STATUS_PER_ROUND = 64;

  /** A sandbox as far as attribution goes. */
  record Sandbox(String id, String name, String namespace, String uid, boolean ready, long createdAt,
      boolean hostNetwork, SandboxInfo info) {}

  private final Path socket;
  private final Duration deadline;
  private final Consumer<String> errors;
  private final Map<String, Sandbox> known = new HashMap<>();
  private CriClient client;
  private List<Sandbox> last = List.of();
  private boolean up;
  private String lastError = "";

  /**
   * @param errors told each failed call's message (counted and logged by the caller)
   */
  CriSource(Path socket, Duration deadline, Consumer<String> errors) {
    this.socket = socket;
    this.deadline = deadline;
    this.errors = errors;
  }

  Path socket() {
    return socket;
  }

  /** Whether the last ListPodSandbox was answered. */
  boolean up() {
    return up;
  }

  String lastError() {
    return lastError;
  }

  /** One round: the sandboxes now, or the last good answer if the runtime did not answer. */
  List<Sandbox> refresh() {
    if (client == null) {
      client = new CriClient(socket, deadline);
    }
    List<PodSandbox> listed;
    try {
      listed = client.listPodSandbox();
    } catch (CriClient.CriException e) {
      fail(e.getMessage());
      return last;
    }
    up = true;
    lastError = "";
    Set<String> ids = new HashSet<>();
    List<Sandbox> out = new ArrayList<>();
    int statusCalls = 0;
    boolean slow = false;
    for (PodSandbox p : listed) {
      ids.add(p.getId());
      boolean ready = p.getState() == PodSandboxState.SANDBOX_READY;
      Sandbox s = known.get(p.getId());
      if (s == null && !slow && statusCalls < MAX_STATUS_PER_ROUND && !p.getId().isEmpty()) {
        statusCalls++;
        try {
          s = fromStatus(p, client.podSandboxStatus(p.getId()));
          known.put(p.getId(), s);
        } catch (CriClient.CriException e) {
          errors.accept(e.getMessage());
          slow = e.getCause() instanceof StatusRuntimeException sre
              && sre.getStatus().getCode() == Status.Code.DEADLINE_EXCEEDED;
        } catch (IllegalArgumentException e) {
          // unreadable verbose info: the sandbox is still a pod, matched without it
          errors.accept("read status of pod sandbox " + p.getId() + " on " + socket + ": " + e.getMessage());
          s = new Sandbox(p.getId(), p.getMetadata().getName(), p.getMetadata().getNamespace(),
              p.getMetadata().getUid(), ready, p.getCreatedAt(), false, SandboxInfo.none());
          known.put(p.getId(), s);
        }
      }
      if (s != null) {
        out.add(new Sandbox(s.id(), s.name(), s.namespace(), s.uid(), ready, s.createdAt(), s.hostNetwork(), s.info()));
      }
    }
    known.keySet().retainAll(ids);
    last = List.copyOf(out);
    return last;
  }

  private static Sandbox fromStatus(PodSandbox listed, PodSandboxStatusResponse r) {
    var st = r.getStatus();
    var meta = st.hasMetadata() ? st.getMetadata() : listed.getMetadata();
    boolean hostNetwork = st.getLinux().getNamespaces().getOptions().getNetwork() == NamespaceMode.NODE;
    return new Sandbox(listed.getId(), meta.getName(), meta.getNamespace(), meta.getUid(),
        st.getState() == PodSandboxState.SANDBOX_READY, st.getCreatedAt() != 0 ? st.getCreatedAt()
            : listed.getCreatedAt(),
        hostNetwork, SandboxInfo.parse(r.getInfoMap()));
  }

  private void fail(String message) {
    up = false;
    lastError = message;
    errors.accept(message);
  }

  @Override
  public void close() {
    if (client != null) {
      client.close();
      client = null;
    }
  }
}

package io.segscope.lab;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A lab's way back: every step that creates something records how to undo it, and {@link #run()} undoes them
 * newest first, carrying on past failures. The lab's devices all live in its namespaces and are virtual:
 * deleting a namespace deletes them (a device without link ops would move to the root namespace, and no lab
 * device is one). So the namespaces go last, all in one ip -batch (under emulation one ip per device and
 * namespace took 17 s for the guest's kinds). Not thread-safe: the {@link Lab} holds its lock around it.
 */
final class Teardown {
  /** One step that failed, and why. */
  record Failure(String text, RuntimeException cause) {}

  /**
   * One recorded way back: what it undoes, and how; {@code namespace}: the lab namespace it deletes (those go
   * last, in one batch), null for any other step.
   */
  private record Undo(String what, Runnable action, String namespace) {
  }

  private final String ip;
  private final Deque<Undo> undo = new ArrayDeque<>();

  Teardown(String ip) {
    this.ip = ip;
  }

  void record(String what, Runnable action) {
    undo.push(new Undo(what, action, null));
  }

  /** Namespace {@code name}, deleted with the others after every other step. */
  void recordNamespace(String name) {
    undo.push(new Undo("delete namespace " + name, () -> deleteNamespace(name), name));
  }

  /** Runs every recorded step once (newest first, namespaces last); the failures, empty when all went. */
  List<Failure> run() {
    List<Failure> failures = new ArrayList<>();
    List<String> namespacesToDelete = new ArrayList<>();
    while (!undo.isEmpty()) {
      Undo u = undo.pop();
      if (u.namespace() != null) {
        namespacesToDelete.add(u.namespace());
        continue;
      }
      try {
        u.action().run();
      } catch (RuntimeException e) {
        failures.add(new Failure(u.what() + ": " + e.getMessage(), e));
      }
    }
    try {
      deleteNamespaces(namespacesToDelete);
    } catch (RuntimeException e) {
      failures.add(new Failure(e.getMessage(), e));
    }
    return failures;
  }

  /**
   * Deletes {@code names} (those that still exist) with one {@code ip -force -batch}, then one by one any that is
   * still there, so a failure names its namespace.
   */
  private void deleteNamespaces(List<String> names) {
    List<String> present = names.stream().filter(Netnses::exists).toList();
    if (present.isEmpty()) {
      return;
    }
    Command.attempt(List.of(ip, "-force", "-batch", "-"),
        present.stream().map(n -> "netns del " + n + "\n").collect(Collectors.joining()), Command.DEFAULT_TIMEOUT);
    List<String> failed = new ArrayList<>();
    for (String n : present) {
      try {
        deleteNamespace(n);
      } catch (RuntimeException e) {
        failed.add("delete namespace " + n + ": " + e.getMessage());
      }
    }
    if (!failed.isEmpty()) {
      throw new LabException(String.join("; ", failed));
    }
  }

  private void deleteNamespace(String name) {
    if (Netnses.exists(name)) {
      Command.run(List.of(ip, "netns", "del", name));
    }
  }
}

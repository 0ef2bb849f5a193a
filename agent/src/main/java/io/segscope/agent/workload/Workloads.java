package io.segscope.agent.workload;

import io.segscope.agent.inventory.model.Netns;
import java.time.Instant;
import java.util.Map;

/**
 * The workload of each network namespace, as of one resolution round. Immutable.
 *
 * @param byNetns what was resolved, by namespace inode
 * @param resolvedAt when ({@link Instant#EPOCH} before the first round)
 */
public record Workloads(Map<Long, Workload> byNetns, Instant resolvedAt) {
  public Workloads {
    byNetns = Map.copyOf(byNetns);
  }

  public static Workloads none() {
    return new Workloads(Map.of(), Instant.EPOCH);
  }

  /**
   * The workload of {@code ns}: the host for the root namespace; the resolved one, unless that is a plain
   * process in a named namespace (the name says what the namespace is for, any process may be in it);
   * else its name for a named one, else unknown (not resolved yet).
   */
  public Workload of(Netns ns) {
    if (ns.root()) {
      return Workload.host();
    }
    Workload w = byNetns.get(ns.inode());
    if (w != null && !(w.kind() == WorkloadKind.PROCESS && !ns.name().isEmpty())) {
      return w;
    }
    return ns.name().isEmpty() ? Workload.unknown() : Workload.named(ns.name());
  }
}

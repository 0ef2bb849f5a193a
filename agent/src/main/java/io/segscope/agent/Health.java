package io.segscope.agent;

import io.segscope.agent.inventory.DeviceInventory;
import io.segscope.probes.PathPlan;
import io.segscope.probes.ProbeAttachment;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Why the agent is not ready, from what the probes and the inventory report. Pure: the caller
 * gathers the facts.
 */
public final class Health {
  /** The inventory refreshes every second; no refresh for this long means it is stuck. */
  public static final Duration INVENTORY_STALE_AFTER = Duration.ofSeconds(30);

  private Health() {}

  /**
   * What the device inventory says of itself.
   *
   * @param lastRefresh when it last completed a pass over every namespace
   * @param death why its thread stopped, empty while it runs
   */
  public record InventoryStatus(Instant lastRefresh, Optional<String> death) {}

  /** What the running inventory says of itself now. */
  public static InventoryStatus status(DeviceInventory inventory) {
    return new InventoryStatus(inventory.lastRefresh(), inventory.death());
  }

  /**
   * The reasons the agent is not ready (empty when it is): a planned path one of whose always-on
   * programs is not attached, the first map read still pending, the inventory thread dead, or its
   * last refresh older than {@code staleAfter}. Programs attached on demand (the per-packet generic-XDP
   * program while no generic XDP program exists, the qdisc dequeue while nothing segments) are
   * detached on purpose when there is nothing to measure, and do not count against readiness; a
   * program that fails to load takes its whole path to the next mode (the probe session's fallback).
   *
   * @param planned the paths the probe plan measures
   * @param attachments what the probe session reports now
   */
  public static List<String> notReady(List<PathPlan> planned, List<ProbeAttachment> attachments,
      boolean firstReadDone, InventoryStatus inventory, Instant now, Duration staleAfter) {
    List<String> reasons = new ArrayList<>();
    for (PathPlan p : planned) {
      if (!p.measured()) {
        continue;
      }
      String path = p.path().label();
      List<ProbeAttachment> detached = attachments.stream()
          .filter(a -> a.path().equals(path) && !a.onDemand() && !a.attached()).toList();
      if (!detached.isEmpty()) {
        ProbeAttachment first = detached.get(0);
        reasons.add("probe path " + path + " not attached (" + first.program() + ": "
            + (first.detail().isEmpty() ? "not attached" : first.detail()) + ")");
      }
    }
    if (!firstReadDone) {
      reasons.add("first map read pending");
    }
    if (inventory.death().isPresent()) {
      reasons.add("device inventory thread died: " + inventory.death().get());
    } else {
      Duration age = Duration.between(inventory.lastRefresh(), now);
      if (age.compareTo(staleAfter) > 0) {
        reasons.add("device inventory stale: last refresh " + age.toSeconds() + " s ago (more than "
            + staleAfter.toSeconds() + " s)");
      }
    }
    return reasons;
  }
}

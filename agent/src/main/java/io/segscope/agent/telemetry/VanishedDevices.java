package io.segscope.agent.telemetry;

import io.segscope.agent.inventory.Inventory;
import io.segscope.agent.inventory.Netns;
import io.segscope.probes.wire.Counts;
import io.segscope.probes.wire.DeviceKey;
import io.segscope.probes.wire.DeviceReading;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Decides which devices the probes counted are gone, so their map entries (and series) can be dropped.
 * Pure: no kernel access.
 *
 * <ul>
 *   <li>The namespace is known to the inventory under another cookie: its inode was reused by a new
 *       namespace, the entry belongs to the old one: forgotten at once (a new namespace never
 *       inherits an old one's counters).
 *   <li>The namespace is known but the device is not: forgotten after a grace period (it was
 *       deleted; the grace covers a device created moments ago that the inventory has not read yet).
 *   <li>The namespace is unknown to the inventory (held only by a file descriptor, or not enterable):
 *       kept and exported with what the probes know (inode, kernel name), and forgotten only once its
 *       counters have not moved for {@code idle}.
 * </ul>
 */
public final class VanishedDevices {
  private final Duration grace;
  private final Duration idle;
  private final Map<DeviceKey, Instant> missingSince = new HashMap<>();
  private final Map<DeviceKey, Long> lastTotal = new HashMap<>();
  private final Map<DeviceKey, Instant> lastMoved = new HashMap<>();

  public VanishedDevices(Duration grace, Duration idle) {
    this.grace = grace;
    this.idle = idle;
  }

  /** The devices to forget now. */
  public List<DeviceKey> update(Instant now, List<DeviceReading> counted, Inventory inventory) {
    List<DeviceKey> forget = new ArrayList<>();
    Set<DeviceKey> present = new HashSet<>();
    boolean inventoryRead = !inventory.namespaces().isEmpty();
    for (DeviceReading r : counted) {
      DeviceKey k = r.key();
      present.add(k);
      long total = total(r.counts());
      if (!Long.valueOf(total).equals(lastTotal.put(k, total))) {
        lastMoved.put(k, now);
      }
      if (!inventoryRead) {
        continue;
      }
      Optional<Netns> ns = inventory.namespace(k.netns());
      if (ns.isPresent()) {
        long cookie = ns.get().cookie();
        if (cookie != 0 && k.netnsCookie() != 0 && cookie != k.netnsCookie()) {
          forget.add(k); // the inode now belongs to another namespace
          continue;
        }
        if (inventory.device(k.netns(), k.ifindex()).isPresent()) {
          missingSince.remove(k);
          continue;
        }
        Instant since = missingSince.computeIfAbsent(k, x -> now);
        if (!Duration.between(since, now).minus(grace).isNegative()) {
          forget.add(k);
        }
      } else {
        missingSince.remove(k);
        if (!Duration.between(lastMoved.getOrDefault(k, now), now).minus(idle).isNegative()) {
          forget.add(k); // not seen by the inventory and idle: its namespace is most likely gone
        }
      }
    }
    for (DeviceKey k : forget) {
      missingSince.remove(k);
      lastTotal.remove(k);
      lastMoved.remove(k);
    }
    missingSince.keySet().retainAll(present);
    lastTotal.keySet().retainAll(present);
    lastMoved.keySet().retainAll(present);
    return forget;
  }

  private static long total(Counts c) {
    return c.gsoQueued() + c.swSkbs() + c.gsoTxDropped() + c.xdpCopied() + c.xdpPassed();
  }
}

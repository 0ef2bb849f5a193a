package io.segscope.agent.telemetry;

import io.segscope.agent.inventory.Inventory;
import io.segscope.probes.gso.DeviceCounters;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Decides which devices the probes counted are gone, so their map entries (and series) can be
 * dropped: a device missing from the inventory for longer than a grace period. The grace covers a
 * namespace created moments ago that the inventory has not scanned yet: its counters are kept, so
 * nothing is lost.
 */
public final class VanishedDevices {
  private final Duration grace;
  private final Map<Key, Instant> missingSince = new HashMap<>();

  record Key(long netns, int ifindex) {}

  public VanishedDevices(Duration grace) {
    this.grace = grace;
  }

  /** The (netns, ifindex) pairs to forget now. */
  public List<long[]> update(Instant now, List<DeviceCounters> counted, Inventory inventory) {
    List<long[]> forget = new ArrayList<>();
    Set<Key> present = new HashSet<>();
    for (DeviceCounters c : counted) {
      Key k = new Key(c.netns(), c.ifindex());
      present.add(k);
      if (inventory.device(c.netns(), c.ifindex()).isPresent()) {
        missingSince.remove(k);
        continue;
      }
      Instant since = missingSince.computeIfAbsent(k, x -> now);
      if (!Duration.between(since, now).minus(grace).isNegative()) {
        forget.add(new long[] {c.netns(), c.ifindex()});
        missingSince.remove(k);
      }
    }
    missingSince.keySet().retainAll(present);
    return forget;
  }
}

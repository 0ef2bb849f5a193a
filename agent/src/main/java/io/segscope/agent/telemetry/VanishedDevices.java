package io.segscope.agent.telemetry;

import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.device.DeviceId;
import io.segscope.probes.wire.Counts;
import io.segscope.probes.wire.DeviceReading;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Decides which devices the probes counted are gone, so their map entries (and series) can be dropped,
 * and which must stay. Pure but for {@link NamespaceHolders}, which the caller supplies.
 *
 * <p>The probes key every device by (netns cookie, netns inode, ifindex). The cookie is unique for the
 * life of the host but not ordered by creation (per-CPU batches); the inode is reused once a namespace
 * is destroyed, and the exported series carry the inode. So:
 *
 * <ul>
 *   <li><b>Inode reused.</b> A key whose inode another namespace has now (the inventory's namespace
 *       under that inode, or, where the inventory has no cookie for it, the key that counted last):
 *       never exported (a new namespace never inherits an old one's counters; it starts at zero), and
 *       forgotten once its counters have not moved for {@code grace} (a destroyed namespace never
 *       counts again; a newer one the inventory has not read yet keeps counting and is kept).
 *   <li><b>Known namespace, device gone.</b> Forgotten after {@code grace} (the grace covers a device
 *       created moments ago that the inventory has not read yet).
 *   <li><b>Namespace the inventory does not follow</b> (held only by a file descriptor or a bind mount
 *       outside the named directories, or not enterable): kept and exported with what the probes know
 *       (inode, the kernel's name) while its counters move. Once they have not moved for
 *       {@code grace}, the namespace is looked for among what processes hold ({@link NamespaceHolders}:
 *       /proc/PID/ns/net, open file descriptors, bind mounts): not held by anything, it is destroyed and
 *       its devices are forgotten; held, its devices are kept (the holder is looked at again every
 *       {@code recheck}), until they have not moved for {@code idle} (the bound on devices deleted
 *       inside a namespace segscope cannot follow).
 * </ul>
 */
public final class VanishedDevices {

  /** Which network namespaces (by nsfs inode) something on the host still holds. */
  @FunctionalInterface
  public interface NamespaceHolders {
    /** The subset of {@code inodes} some process holds (its namespace, an open fd, a bind mount). */
    Set<Long> held(Set<Long> inodes);

    /** Nothing is known to hold anything: an idle namespace the inventory lacks is gone. */
    NamespaceHolders NONE = inodes -> Set.of();
  }

  private final Duration grace;
  private final Duration idle;
  private final Duration recheck;
  private final NamespaceHolders holders;
  private final Map<DeviceId, Instant> missingSince = new HashMap<>();
  private final Map<DeviceId, Long> lastTotal = new HashMap<>();
  private final Map<DeviceId, Instant> lastMoved = new HashMap<>();
  /** Namespaces (inode) last found held, and when: looked for again after {@link #recheck}. */
  private final Map<Long, Instant> heldAt = new HashMap<>();
  /** The keys of the last update whose inode another (the current) namespace has. */
  private Set<DeviceId> superseded = Set.of();

  /** The grace as the agent runs by default. */
  public static final Duration GRACE = Duration.ofSeconds(15);
  /** The shortest grace the (hidden) --vanished-device-grace takes. */
  public static final Duration MIN_GRACE = Duration.ofSeconds(1);
  private static final Duration RECHECK = Duration.ofSeconds(5);

  /**
   * As the agent runs it: {@code grace} ({@link #GRACE} unless --vanished-device-grace says less), 10 min
   * idle, a held namespace's holder looked at again every 5 s or every grace if shorter (where it was
   * found: cheap while it stays).
   */
  public VanishedDevices(Duration grace, NamespaceHolders holders) {
    this(grace, Duration.ofMinutes(10), grace.compareTo(RECHECK) < 0 ? grace : RECHECK, holders);
  }

  public VanishedDevices(Duration grace, Duration idle, Duration recheck, NamespaceHolders holders) {
    this.grace = Objects.requireNonNull(grace, "grace");
    this.idle = Objects.requireNonNull(idle, "idle");
    this.recheck = Objects.requireNonNull(recheck, "recheck");
    this.holders = Objects.requireNonNull(holders, "holders");
  }

  /** The devices to forget now (the caller drops them from the maps and from this reading). */
  public List<DeviceId> update(Instant now, List<DeviceReading> counted, Inventory inventory) {
    Set<DeviceId> forget = new LinkedHashSet<>();
    Set<DeviceId> present = new HashSet<>();
    noteMoved(now, counted);
    Map<Long, Long> current = currentCookies(counted, inventory, lastMoved);
    boolean inventoryRead = !inventory.namespaces().isEmpty();
    Map<Long, List<DeviceId>> idleUnknown = new HashMap<>();
    Set<DeviceId> older = new HashSet<>();
    for (DeviceReading r : counted) {
      DeviceId k = r.id();
      present.add(k);
      Long owner = current.get(k.netns());
      if (k.netnsCookie() != 0 && owner != null && owner != k.netnsCookie()) {
        // another namespace has this inode now: never exported under its labels; forgotten once still
        // (a destroyed namespace never counts again; one the inventory has not read yet keeps counting)
        older.add(k);
        if (!Duration.between(lastMoved.getOrDefault(k, now), now).minus(grace).isNegative()) {
          forget.add(k);
        }
        continue;
      }
      if (!inventoryRead) {
        continue;
      }
      Optional<Netns> ns = inventory.namespace(k.netns());
      if (ns.isPresent() && sameNamespace(k, ns.get())) {
        if (inventory.device(k.netns(), k.ifindex()).isPresent()) {
          missingSince.remove(k);
          continue;
        }
        Instant since = missingSince.computeIfAbsent(k, x -> now);
        if (!Duration.between(since, now).minus(grace).isNegative()) {
          forget.add(k);
        }
        continue;
      }
      missingSince.remove(k);
      Duration still = Duration.between(lastMoved.getOrDefault(k, now), now);
      if (!still.minus(idle).isNegative()) {
        forget.add(k); // not followed by the inventory and idle for long: bounded, even if held
      } else if (!still.minus(grace).isNegative()) {
        idleUnknown.computeIfAbsent(k.netns(), x -> new ArrayList<>()).add(k);
      }
    }
    forget.addAll(destroyed(now, idleUnknown));
    keepOnly(present, forget);
    superseded = Set.copyOf(older);
    return List.copyOf(forget);
  }

  /** Remembers when each device's counts last changed. */
  private void noteMoved(Instant now, List<DeviceReading> counted) {
    for (DeviceReading r : counted) {
      long total = total(r.counts());
      if (!Long.valueOf(total).equals(lastTotal.put(r.id(), total))) {
        lastMoved.put(r.id(), now);
      }
    }
  }

  /** Drops what this class remembers of devices forgotten or no longer counted, and of their namespaces. */
  private void keepOnly(Set<DeviceId> present, Set<DeviceId> forget) {
    for (DeviceId k : forget) {
      missingSince.remove(k);
      lastTotal.remove(k);
      lastMoved.remove(k);
    }
    missingSince.keySet().retainAll(present);
    lastTotal.keySet().retainAll(present);
    lastMoved.keySet().retainAll(present);
    Set<Long> inodes = new HashSet<>();
    present.forEach(k -> inodes.add(k.netns()));
    heldAt.keySet().retainAll(inodes);
  }

  /**
   * Whether the last {@link #update} found {@code key}'s inode taken by a newer namespace: its counters
   * must not be exported at all (they would appear under the new namespace's labels).
   */
  public boolean superseded(DeviceId key) {
    return superseded.contains(key);
  }

  /**
   * The idle devices of namespaces the inventory lacks whose namespace nothing holds any more. Holders
   * are looked for only for namespaces not found held within {@link #recheck}.
   */
  private List<DeviceId> destroyed(Instant now, Map<Long, List<DeviceId>> idleUnknown) {
    if (idleUnknown.isEmpty()) {
      return List.of();
    }
    Set<Long> ask = new HashSet<>();
    for (Long inode : idleUnknown.keySet()) {
      Instant at = heldAt.get(inode);
      if (at == null || !Duration.between(at, now).minus(recheck).isNegative()) {
        ask.add(inode);
      }
    }
    if (ask.isEmpty()) {
      return List.of();
    }
    Set<Long> held = holders.held(Set.copyOf(ask));
    List<DeviceId> gone = new ArrayList<>();
    for (Long inode : ask) {
      if (held.contains(inode)) {
        heldAt.put(inode, now);
      } else {
        heldAt.remove(inode);
        gone.addAll(idleUnknown.get(inode));
      }
    }
    return gone;
  }

  /**
   * The greatest cookie seen per namespace inode, among the counted keys and the inventory's
   * namespaces. Cookies come from one counter that only grows, so the greatest is the newest.
   */
  /**
   * For each inode, the cookie of the namespace that has it now. Cookies are unique but not ordered
   * by creation (the kernel hands them out from per-CPU batches: a namespace made later on another
   * CPU can get a smaller one), so age is never judged by cookie order. The inventory's namespace
   * under the inode is the live one; where the inventory has no cookie for it, the key that counted
   * last (a destroyed namespace never counts again); no entry where that is not decided (keys that
   * moved at the same read).
   */
  static Map<Long, Long> currentCookies(List<DeviceReading> counted, Inventory inventory,
      Map<DeviceId, Instant> lastMoved) {
    Map<Long, Long> current = new HashMap<>();
    for (Netns n : inventory.namespaces()) {
      if (n.cookie() != 0) {
        current.put(n.inode(), n.cookie());
      }
    }
    Map<Long, Instant> latest = new HashMap<>();
    Map<Long, Set<Long>> latestCookies = new HashMap<>();
    for (DeviceReading r : counted) {
      DeviceId k = r.id();
      if (k.netnsCookie() == 0 || current.containsKey(k.netns())) {
        continue;
      }
      Instant moved = lastMoved.getOrDefault(k, Instant.MIN);
      Instant best = latest.get(k.netns());
      if (best == null || moved.isAfter(best)) {
        latest.put(k.netns(), moved);
        latestCookies.put(k.netns(), new HashSet<>(Set.of(k.netnsCookie())));
      } else if (moved.equals(best)) {
        latestCookies.get(k.netns()).add(k.netnsCookie());
      }
    }
    latestCookies.forEach((inode, cookies) -> {
      if (cookies.size() == 1) {
        current.put(inode, cookies.iterator().next());
      }
    });
    return current;
  }

  /** Whether the key belongs to the namespace the inventory has under its inode (or no cookie says). */
  private static boolean sameNamespace(DeviceId k, Netns ns) {
    return k.sameNamespace(ns.cookie());
  }

  private static long total(Counts c) {
    return c.gsoQueued() + c.swSkbs() + c.gsoTxDropped() + c.xdpCopied() + c.xdpPassed();
  }
}

package io.segscope.agent.inventory;

import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.agent.netlink.NetlinkException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The namespaces the {@link DeviceInventory} follows, each with its open sockets
 * ({@link NamespaceState}): found and dropped by {@link #rescan}, their links dumped again in turns
 * by {@link #refreshTurn}. Only the follower thread changes the set; {@link #list} may be called
 * from any thread.
 */
final class FollowedNamespaces implements AutoCloseable {
  /**
   * The periodic refresh goes through the namespaces in turns of about this long (one namespace at
   * least), with the notifications that arrived meanwhile applied in between: a host with thousands
   * of devices takes seconds to dump, and a burst elsewhere must not wait for all of it.
   */
  static final long REFRESH_TURN_NANOS = 50_000_000L;

  private final InventoryConfig config;
  private final DecodeWarnings warnings;
  private final NetnsDiscovery discovery;
  private final NetnsThread netnsThread;
  private final Map<Long, NamespaceState> states = new LinkedHashMap<>();
  /** The namespaces (inodes) the refresh under way has still to dump; empty between refreshes. */
  private final ArrayDeque<Long> toRefresh = new ArrayDeque<>();

  FollowedNamespaces(InventoryConfig config, DecodeWarnings warnings) {
    this.config = config;
    this.warnings = warnings;
    this.discovery = new NetnsDiscovery(config.proc(), config.namedNetnsDirs());
    this.netnsThread = new NetnsThread("segscope-netns");
  }

  /** The namespaces followed now, in the order they were found. */
  List<NamespaceState> list() {
    synchronized (states) {
      return new ArrayList<>(states.values());
    }
  }

  /** Whether a refresh is under way (some namespaces still to dump). */
  boolean refreshing() {
    return !toRefresh.isEmpty();
  }

  /** Rediscovers namespaces: opens new ones, closes vanished ones. True when the set changed. */
  boolean rescan() {
    List<Netns> found = discovery.scan();
    Set<Long> alive = new HashSet<>();
    boolean changed = false;
    for (Netns ns : found) {
      alive.add(ns.inode());
      NamespaceState existing;
      synchronized (states) {
        existing = states.get(ns.inode());
      }
      if (existing != null) {
        if (!existing.netns().name().equals(ns.name())) {
          // renamed (named after the fact): reopen under the new name
          closeState(ns.inode());
        } else {
          continue;
        }
      }
      NamespaceState state = InventoryReader.open(netnsThread, ns, config, true, warnings);
      if (state == null) {
        continue;
      }
      reload(state);
      synchronized (states) {
        states.put(ns.inode(), state);
      }
      changed = true;
    }
    List<Long> gone = new ArrayList<>();
    synchronized (states) {
      for (Long inode : states.keySet()) {
        if (!alive.contains(inode)) {
          gone.add(inode);
        }
      }
    }
    for (Long inode : gone) {
      closeState(inode);
      changed = true;
    }
    return changed;
  }

  /**
   * One turn of the periodic refresh: re-dumps the links of the next namespaces for the changes the
   * kernel does not announce, and their routes and qdiscs where notifications said they changed,
   * until {@link #REFRESH_TURN_NANOS} have passed (one namespace at least). A refresh starts with
   * every namespace followed at that moment; it is complete when {@link #refreshing} is false.
   */
  boolean refreshTurn() {
    if (toRefresh.isEmpty()) {
      synchronized (states) {
        toRefresh.addAll(states.keySet());
      }
    }
    long start = System.nanoTime();
    boolean changed = false;
    while (!toRefresh.isEmpty() && (System.nanoTime() - start < REFRESH_TURN_NANOS)) {
      long inode = toRefresh.poll();
      NamespaceState state;
      synchronized (states) {
        state = states.get(inode);
      }
      if (state == null) {
        continue; // closed since the refresh started
      }
      try {
        changed |= state.refreshLinks();
      } catch (NetlinkException e) {
        warnings.warn("refresh links of namespace " + state.netns().inode() + ": " + e.getMessage());
      }
      changed |= state.refreshRouting();
    }
    return changed;
  }

  /** Reads {@code state}'s namespace again in full (a failure is a warning); true: it changed. */
  boolean reload(NamespaceState state) {
    try {
      state.reload();
    } catch (NetlinkException e) {
      warnings.warn("read namespace " + state.netns().inode() + ": " + e.getMessage());
    }
    return true;
  }

  private void closeState(long inode) {
    NamespaceState state;
    synchronized (states) {
      state = states.remove(inode);
      states.values().forEach(s -> s.session().forget(inode));
    }
    if (state != null) {
      state.close();
    }
  }

  /** Closes every namespace's sockets and the thread that opens them. */
  @Override
  public void close() {
    synchronized (states) {
      states.values().forEach(NamespaceState::close);
      states.clear();
    }
    netnsThread.close();
  }
}

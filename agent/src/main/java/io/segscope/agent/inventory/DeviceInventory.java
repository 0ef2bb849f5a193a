package io.segscope.agent.inventory;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.wire.LinkNotifications;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.agent.netlink.NetlinkException;
import io.segscope.agent.netlink.NetlinkMessage;
import io.segscope.host.sys.Errno;
import io.segscope.host.sys.Libc;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The live device inventory of every network namespace.
 *
 * <p>On {@link #start} it reads everything once (synchronously) and then follows changes on one
 * platform thread, "segscope-inventory": each namespace has a socket subscribed to RTNLGRP_LINK,
 * so device creation, deletion and the changes the kernel announces (MTU, state, master, features)
 * are applied as they come; every {@link InventoryConfig#linkRefreshInterval()} the links are dumped
 * again for the changes it does not announce (gso/gro limits, XDP through bpf_link); namespaces
 * are rediscovered every {@link InventoryConfig#rescanInterval()} and at once when a
 * named-namespace directory changes.
 * Devices and namespaces that vanish disappear from the next snapshot. If notifications overflow
 * (ENOBUFS) the namespace is read again in full, counted by {@link #resyncs} (not as a decode warning:
 * no byte was malformed).
 *
 * <p>Sockets are opened inside namespaces by a second dedicated thread ({@link NetnsThread}); no
 * other thread changes namespace. While a namespace is followed the agent's sockets keep it alive:
 * a namespace whose last process exited lives until the next rescan closes them.
 */
public final class DeviceInventory implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(DeviceInventory.class.getName());
  private static final int POLL_MILLIS = FollowerTurns.POLL_MILLIS;
  /** After a directory event, rescan again this much later (ip netns add mounts after creating). */
  private static final long SETTLE_NANOS = 300_000_000L;
  private final InventoryConfig config;
  private final DecodeWarnings warnings;
  private final FollowedNamespaces namespaces;
  /** Full re-reads of a namespace because its notifications overflowed (ENOBUFS). */
  private final AtomicLong overflowResyncs = new AtomicLong();
  private final List<InventoryListener> listeners = new CopyOnWriteArrayList<>();
  private final Thread follower;
  private final NetnsDirectoryWatch directories;
  private volatile Inventory current = Inventory.empty();
  private volatile boolean closing;
  /** Wall-clock time of the last completed link refresh (every linkRefreshInterval while following). */
  private volatile long lastRefreshMillis;
  /** Why the follower thread stopped, null while it runs. */
  private volatile Throwable death;
  private long nextRescan;
  private long nextRefresh;
  private long settleRescan = Long.MAX_VALUE;
  /** Whether the last poll brought link notifications (set by {@link #pollEvents}). */
  private boolean notificationsArrived;
  /** Changes not yet published (publishing is rate-limited during a burst). */
  private boolean publishPending;
  private long lastPublish;
  private final InventoryWork work = new InventoryWork();

  private DeviceInventory(InventoryConfig config, DecodeWarnings warnings) {
    this.config = config;
    this.warnings = warnings;
    this.namespaces = new FollowedNamespaces(config, warnings);
    this.directories = NetnsDirectoryWatch.open(config.namedNetnsDirs());
    this.follower = new Thread(this::follow, "segscope-inventory");
    this.follower.setDaemon(true);
  }

  /** Reads the first snapshot and starts following. */
  public static DeviceInventory start(InventoryConfig config, DecodeWarnings warnings) {
    DeviceInventory inv = new DeviceInventory(config, warnings);
    try {
      inv.rescan();
      inv.publish();
      inv.lastRefreshMillis = System.currentTimeMillis();
    } catch (RuntimeException e) {
      inv.closeResources();
      throw e;
    }
    inv.nextRescan = System.nanoTime() + config.rescanInterval().toNanos();
    inv.nextRefresh = System.nanoTime() + config.linkRefreshInterval().toNanos();
    inv.follower.start();
    return inv;
  }

  /** The latest snapshot. */
  public Inventory current() {
    return current;
  }

  /** When the inventory last completed a refresh of every namespace's links (it does so every second). */
  public Instant lastRefresh() {
    return Instant.ofEpochMilli(lastRefreshMillis);
  }

  /**
   * Why the thread that follows devices stopped ("ExceptionType: message"), empty while it runs. Once
   * it has stopped, the inventory no longer changes: {@link #current()} keeps its last snapshot.
   */
  public Optional<String> death() {
    Throwable t = death;
    if (t == null && !closing && !follower.isAlive() && lastRefreshMillis != 0) {
      return Optional.of("the inventory thread is not running");
    }
    return t == null ? Optional.empty() : Optional.of(t.getClass().getSimpleName()
        + (t.getMessage() == null ? "" : ": " + t.getMessage()));
  }

  /** The reasons {@link #resyncs} counts: {@code overflow} (link notifications overflowed, ENOBUFS). */
  public static final List<String> RESYNC_REASONS = List.of("overflow");

  /**
   * How often a namespace was read again in full for {@code reason} (one of {@link #RESYNC_REASONS}):
   * {@code overflow} when a burst of link changes overflowed its notification socket.
   */
  public long resyncs(String reason) {
    if (!RESYNC_REASONS.contains(reason)) {
      throw new IllegalArgumentException("count resyncs: unknown reason " + reason + " (" + RESYNC_REASONS + ")");
    }
    return overflowResyncs.get();
  }

  public DecodeWarnings warnings() {
    return warnings;
  }

  public void addListener(InventoryListener listener) {
    listeners.add(listener);
  }

  @Override
  public void close() {
    closing = true;
    follower.interrupt();
    try {
      follower.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    closeResources();
  }

  private void closeResources() {
    namespaces.close();
    directories.close();
  }

  private void follow() {
    try {
      followUntilClosed();
    } catch (Throwable t) { // an Error: the thread ends here; say so where readiness and metrics see it
      if (!closing) {
        death = t;
        LOG.log(System.Logger.Level.ERROR, "device inventory stopped following devices: " + t, t);
      }
    }
  }

  private void followUntilClosed() {
    while (!closing) {
      config.beforeTurn().run();
      try {
        boolean changed = pollEvents();
        long now = System.nanoTime();
        if (directories.changed()) {
          changed |= rescan();
          settleRescan = now + SETTLE_NANOS;
        }
        if (now >= nextRescan || now >= settleRescan) {
          if (now >= settleRescan) {
            settleRescan = Long.MAX_VALUE;
          }
          changed |= rescan();
          nextRescan = now + config.rescanInterval().toNanos();
        }
        // during a burst the notifications tell what a dump would (and a dump then reads devices twice):
        // the refresh waits for a turn without notifications, at most FollowerTurns.MAX_REFRESH_DELAY_NANOS
        if (FollowerTurns.refreshNow(namespaces.refreshing(), notificationsArrived, now, nextRefresh)) {
          long r0 = System.nanoTime();
          changed |= namespaces.refreshTurn();
          work.refreshed(System.nanoTime() - r0);
          if (!namespaces.refreshing()) {
            nextRefresh = System.nanoTime() + config.linkRefreshInterval().toNanos();
            lastRefreshMillis = System.currentTimeMillis();
          }
        }
        publishPending |= changed;
        long t = System.nanoTime();
        if (FollowerTurns.publishNow(publishPending, notificationsArrived, t, lastPublish)) {
          publish();
          publishPending = false;
          lastPublish = System.nanoTime();
          work.published(lastPublish - t, lastPublish);
        }
        work.turnEnded(notificationsArrived, publishPending, System.nanoTime())
            .ifPresent(summary -> LOG.log(System.Logger.Level.INFO, summary));
      } catch (RuntimeException e) {
        if (closing) {
          return;
        }
        warnings.warn("follow devices: " + e);
        sleepQuietly();
      }
    }
  }

  /** Waits for notifications (up to POLL_MILLIS) and applies them; true when something changed. */
  private boolean pollEvents() {
    notificationsArrived = false;
    List<NamespaceState> list = namespaces.list();
    if (list.isEmpty()) {
      sleepQuietly();
      return false;
    }
    // two sockets per namespace: link notifications, then route/netconf/tc notifications
    int n2 = 2 * list.size();
    try (Memory fds = new Memory(8L * n2)) { // freed after the turn, not when the collector finds it
      return poll(list, fds, n2);
    }
  }

  /** Polls the sockets of {@code list} through {@code fds} (two pollfd each) and applies what came. */
  private boolean poll(List<NamespaceState> list, Memory fds, int n2) {
    for (int i = 0; i < list.size(); i++) {
      fds.setInt(16L * i, list.get(i).session().eventFd());
      fds.setInt(16L * i + 8, list.get(i).session().routingEventFd());
    }
    for (int i = 0; i < n2; i++) {
      fds.setShort(8L * i + 4, (short) Libc.POLLIN);
      fds.setShort(8L * i + 6, (short) 0);
    }
    // a pending snapshot is published when it is due or when the notifications pause: wait no longer
    int timeout = FollowerTurns.pollMillis(namespaces.refreshing(), publishPending, System.nanoTime(), lastPublish);
    int n = Libc.INSTANCE.poll(fds, n2, timeout);
    if (n < 0) {
      int err = Native.getLastError();
      if (err != Errno.EINTR) {
        throw NetlinkException.errno("wait for link notifications (poll)", err);
      }
      return false;
    }
    boolean changed = false;
    for (int i = 0; n > 0 && i < list.size(); i++) {
      if (fds.getShort(16L * i + 6) != 0) {
        notificationsArrived = true;
        changed |= drain(list.get(i));
      }
      if (fds.getShort(16L * i + 8 + 6) != 0) {
        drainRouting(list.get(i));
      }
    }
    return changed;
  }

  private boolean drain(NamespaceState state) {
    List<NetlinkMessage> events;
    try {
      events = state.session().drainEvents();
    } catch (NetlinkException e) {
      if (e.errno() == Errno.ENOBUFS) {
        // not malformed bytes: the kernel dropped notifications of a burst; the full read repairs it
        long n = overflowResyncs.incrementAndGet();
        if (n == 1 || Long.bitCount(n) == 1) {
          LOG.log(System.Logger.Level.INFO, "follow namespace " + state.netns().inode()
              + ": link notifications overflowed (ENOBUFS); reading it again in full (" + n + " so far)");
        }
        return namespaces.reload(state);
      }
      throw e;
    }
    long t0 = System.nanoTime();
    long requests = state.featureRequests();
    long dumps = state.featureDumps();
    LinkNotifications batch = LinkNotifications.of(events);
    boolean changed = state.apply(batch);
    long end = System.nanoTime();
    work.applied(state.netns().inode(), batch, end - t0, state.featureRequests() - requests,
        state.featureDumps() - dumps, end);
    return changed;
  }

  /**
   * Route, netconf and qdisc notifications only mark what to read again at the next refresh (a
   * router's table may change thousands of times a second); an overflow marks both.
   */
  private void drainRouting(NamespaceState state) {
    try {
      state.noteRoutingEvents(state.session().drainRoutingEvents());
    } catch (NetlinkException e) {
      if (e.errno() != Errno.ENOBUFS) {
        throw e;
      }
      warnings.warn("follow namespace " + state.netns().inode()
          + ": route/qdisc notifications overflowed (ENOBUFS); reading routes and qdiscs again");
      state.routingOverflowed();
    }
  }

  /** Rediscovers namespaces, then watches the named-namespace directories that appeared. */
  private boolean rescan() {
    boolean changed = namespaces.rescan();
    directories.watchNewDirectories();
    return changed;
  }

  private void publish() {
    Inventory previous = current;
    Inventory next = InventoryReader.snapshot(namespaces.list(), warnings);
    current = next;
    for (InventoryListener l : listeners) {
      try {
        l.changed(previous, next);
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "inventory listener " + l + " failed", e);
      }
    }
  }

  private static void sleepQuietly() {
    try {
      Thread.sleep(POLL_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

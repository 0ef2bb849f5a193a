package io.segscope.agent.inventory;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Settings of the inventory.
 *
 * @param proc the procfs mount (/proc)
 * @param namedNetnsDirs directories of named namespace bind mounts (default /run/netns)
 * @param rescanInterval how often namespaces are rediscovered (namespaces that appear or vanish
 *     are found by this rescan and, for named ones, at once through a directory watch)
 * @param linkRefreshInterval how often each namespace's links are dumped again, for the changes
 *     the kernel does not announce (gso/gro limits, XDP attached through a bpf_link); creation,
 *     deletion, MTU, state, master and feature changes arrive as notifications at once
 * @param requestTimeout how long to wait for a kernel reply
 * @param features how offload features are read
 * @param eventBufferBytes the receive buffer of each namespace's link-notification socket (4 MiB; the
 *     kernel rounds small values up to its minimum). When a burst of changes overflows it (ENOBUFS),
 *     the namespace is read again in full and counted in segscope_inventory_resyncs_total.
 * @param beforeTurn runs on the follower thread before each turn of its loop (the agent: nothing). What
 *     it throws ends the thread as if the turn had thrown it; tests end the thread this way to see that
 *     readiness and the metrics tell its death.
 */
public record InventoryConfig(Path proc, List<Path> namedNetnsDirs, Duration rescanInterval,
    Duration linkRefreshInterval, Duration requestTimeout, FeatureMode features, int eventBufferBytes,
    Runnable beforeTurn) {

  /** The agent's {@link #beforeTurn}: nothing. */
  public static final Runnable NOTHING = () -> {};

  /** The default notification buffer: 4 MiB per namespace. */
  public static final int EVENT_BUFFER_BYTES = 4 * 1024 * 1024;

  /** With the default notification buffer. */
  public InventoryConfig(Path proc, List<Path> namedNetnsDirs, Duration rescanInterval,
      Duration linkRefreshInterval, Duration requestTimeout, FeatureMode features) {
    this(proc, namedNetnsDirs, rescanInterval, linkRefreshInterval, requestTimeout, features, EVENT_BUFFER_BYTES,
        NOTHING);
  }

  /** How features are read. */
  public enum FeatureMode {
    /** ethtool netlink, falling back to the SIOCETHTOOL ioctl when the family is missing. */
    AUTO,
    /** ethtool netlink only (a namespace fails to open without it). */
    NETLINK,
    /** The SIOCETHTOOL ioctl only (what kernels before 5.6 offer). */
    IOCTL,
    /** Do not read features. */
    NONE
  }

  public InventoryConfig {
    namedNetnsDirs = List.copyOf(namedNetnsDirs);
    if (rescanInterval.isNegative() || rescanInterval.isZero()) {
      throw new IllegalArgumentException("inventory rescan interval must be positive, got " + rescanInterval);
    }
    if (linkRefreshInterval.isNegative() || linkRefreshInterval.isZero()) {
      throw new IllegalArgumentException("link refresh interval must be positive, got " + linkRefreshInterval);
    }
    if (requestTimeout.isNegative() || requestTimeout.isZero()) {
      throw new IllegalArgumentException("netlink request timeout must be positive, got " + requestTimeout);
    }
    Objects.requireNonNull(beforeTurn, "beforeTurn");
    if (eventBufferBytes <= 0) {
      throw new IllegalArgumentException("notification buffer must be positive, got " + eventBufferBytes);
    }
  }

  /** /proc, /run/netns, rescan every 3 s, links refreshed every 1 s, 5 s request timeout, features AUTO. */
  public static InventoryConfig defaults() {
    return new InventoryConfig(Path.of("/proc"), List.of(Path.of("/run/netns")), Duration.ofSeconds(3),
        Duration.ofSeconds(1), Duration.ofSeconds(5), FeatureMode.AUTO);
  }

  public InventoryConfig withRescanInterval(Duration interval) {
    return new InventoryConfig(proc, namedNetnsDirs, interval, linkRefreshInterval, requestTimeout, features,
        eventBufferBytes, beforeTurn);
  }

  public InventoryConfig withLinkRefreshInterval(Duration interval) {
    return new InventoryConfig(proc, namedNetnsDirs, rescanInterval, interval, requestTimeout, features,
        eventBufferBytes, beforeTurn);
  }

  public InventoryConfig withFeatures(FeatureMode mode) {
    return new InventoryConfig(proc, namedNetnsDirs, rescanInterval, linkRefreshInterval, requestTimeout, mode,
        eventBufferBytes, beforeTurn);
  }

  public InventoryConfig withNamedNetnsDirs(List<Path> dirs) {
    return new InventoryConfig(proc, dirs, rescanInterval, linkRefreshInterval, requestTimeout, features,
        eventBufferBytes, beforeTurn);
  }

  /** With {@code dirs} after the named-namespace directories it already has (each directory once). */
  public InventoryConfig plusNamedNetnsDirs(List<Path> dirs) {
    List<Path> all = new ArrayList<>(namedNetnsDirs);
    dirs.stream().filter(d -> !all.contains(d)).forEach(all::add);
    return withNamedNetnsDirs(all);
  }

  /** With another notification buffer size (tests provoke overflows with a small one). */
  public InventoryConfig withEventBufferBytes(int bytes) {
    return new InventoryConfig(proc, namedNetnsDirs, rescanInterval, linkRefreshInterval, requestTimeout, features,
        bytes, beforeTurn);
  }

  /** With {@code hook} run on the follower thread before each turn (see {@link #beforeTurn}). */
  public InventoryConfig withBeforeTurn(Runnable hook) {
    return new InventoryConfig(proc, namedNetnsDirs, rescanInterval, linkRefreshInterval, requestTimeout, features,
        eventBufferBytes, hook);
  }
}

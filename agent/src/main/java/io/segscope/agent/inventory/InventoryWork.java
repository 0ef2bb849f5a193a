package io.segscope.agent.inventory;

import io.segscope.agent.inventory.wire.LinkNotifications;
import java.util.HashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * What the inventory thread spent on one burst of link notifications, from the first notification
 * to the first turn without any: how many it applied, to how many devices and namespaces, how long
 * applying them (decoding, features) and publishing snapshots took, and the periodic refreshes in
 * between. The summary of a burst of at least {@link #LOGGED} notifications is logged, so a slow
 * catch-up after a churn says where its time went. Used by one thread.
 */
final class InventoryWork {
  /** Bursts with fewer notifications are not worth a log line. */
  static final int LOGGED = 100;
  /** A burst that does not pause is summed up (and counted afresh) after this long. */
  static final long LONGEST = 60_000_000_000L;

  private long first = -1;
  private long last;
  private int notifications;
  private int devices;
  private final Set<Long> namespaces = new HashSet<>();
  private long applyNanos;
  private long featureRequests;
  private long featureDumps;
  private int publishes;
  private long publishNanos;
  private int refreshes;
  private long refreshNanos;

  /** One namespace's drained batch was applied, ending at {@code end}. */
  void applied(long netns, LinkNotifications batch, long nanos, long requests, long dumps, long end) {
    if (batch.notifications() == 0) {
      return;
    }
    if (first < 0) {
      first = end - nanos;
    }
    last = end;
    notifications += batch.notifications();
    devices += batch.latest().size();
    namespaces.add(netns);
    applyNanos += nanos;
    featureRequests += requests;
    featureDumps += dumps;
  }

  /** A snapshot was published, ending at {@code end}. */
  void published(long nanos, long end) {
    if (first >= 0) {
      publishes++;
      publishNanos += nanos;
      last = Math.max(last, end);
    }
  }

  /** A turn of the periodic link refresh ran. */
  void refreshed(long nanos) {
    if (first >= 0) {
      refreshes++;
      refreshNanos += nanos;
    }
  }

  /** Whether a burst is being worked through. */
  boolean busy() {
    return first >= 0;
  }

  /**
   * The end of a turn of the inventory thread at {@code now}: when no notification arrived in it and
   * none is left to publish, a burst that was going on is over; returns its summary when it is worth
   * logging. Notifications that never pause are summed up every {@link #LONGEST} nanoseconds.
   */
  Optional<String> turnEnded(boolean notificationsArrived, boolean publishPending, long now) {
    if (first < 0 || (notificationsArrived || publishPending) && now - first < LONGEST) {
      return Optional.empty();
    }
    String summary = String.format(Locale.ROOT, "followed a burst of %d link notifications (%d device"
        + " changes in %d namespaces) in %d ms: applying them %d ms (features: %d requests, %d namespace dumps),"
        + " %d snapshots published in %d ms, %d link refresh turns in %d ms",
        notifications, devices, namespaces.size(), (last - first) / 1_000_000, applyNanos / 1_000_000,
        featureRequests, featureDumps, publishes, publishNanos / 1_000_000, refreshes, refreshNanos / 1_000_000);
    boolean logged = notifications >= LOGGED;
    reset();
    return logged ? Optional.of(summary) : Optional.empty();
  }

  private void reset() {
    first = -1;
    last = 0;
    notifications = 0;
    devices = 0;
    namespaces.clear();
    applyNanos = 0;
    featureRequests = 0;
    featureDumps = 0;
    publishes = 0;
    publishNanos = 0;
    refreshes = 0;
    refreshNanos = 0;
  }
}

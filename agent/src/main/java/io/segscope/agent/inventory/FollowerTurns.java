package io.segscope.agent.inventory;

/**
 * The inventory thread's timing decisions for one turn, as plain functions of the clock (nanoseconds
 * from {@link System#nanoTime}): when to publish a snapshot, how long to wait for notifications, and
 * whether the periodic link refresh runs in this turn.
 */
final class FollowerTurns {
  /** How long a turn waits for notifications when nothing else is due. */
  static final int POLL_MILLIS = 100;
  /**
   * While notifications keep arriving, a snapshot is published at most this often (each one is every
   * device of every namespace, and the graph, the API and the next read work on it); once a turn
   * brings none, at once.
   */
  static final long PUBLISH_EVERY_NANOS = 250_000_000L;
  /** How long the periodic link refresh may wait for a burst of notifications to pause. */
  static final long MAX_REFRESH_DELAY_NANOS = 3_000_000_000L;

  private FollowerTurns() {}

  /** Whether changes not yet published are published at the end of this turn. */
  static boolean publishNow(boolean pending, boolean notificationsArrived, long now, long lastPublish) {
    return pending && (!notificationsArrived || now - lastPublish >= PUBLISH_EVERY_NANOS);
  }

  /**
   * How long the next poll waits: not at all while a refresh is under way, no longer than until a
   * pending snapshot is due, else {@link #POLL_MILLIS}.
   */
  static int pollMillis(boolean refreshUnderWay, boolean publishPending, long now, long lastPublish) {
    int timeout = refreshUnderWay ? 0 : POLL_MILLIS;
    if (publishPending) {
      long due = (lastPublish + PUBLISH_EVERY_NANOS - now) / 1_000_000;
      timeout = (int) Math.max(0, Math.min(timeout, due));
    }
    return timeout;
  }

  /**
   * Whether the periodic refresh runs (starts or goes on) in this turn: when it is due or under way,
   * unless notifications arrived in this turn and it is less than {@link #MAX_REFRESH_DELAY_NANOS}
   * late (the notifications tell what a dump would, and a dump then reads the same devices twice).
   */
  static boolean refreshNow(boolean underWay, boolean notificationsArrived, long now, long nextRefresh) {
    boolean due = underWay || now >= nextRefresh;
    return due && !(notificationsArrived && now - nextRefresh < MAX_REFRESH_DELAY_NANOS);
  }
}

package io.segscope.agent.inventory;

import static io.segscope.agent.inventory.FollowerTurns.MAX_REFRESH_DELAY_NANOS;
import static io.segscope.agent.inventory.FollowerTurns.POLL_MILLIS;
import static io.segscope.agent.inventory.FollowerTurns.PUBLISH_EVERY_NANOS;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When the inventory thread publishes, how long it waits, and when the periodic refresh runs. */
class FollowerTurnsTest {
  private static final long MS = 1_000_000L;
  private static final long T = 1_000_000 * MS; // any clock reading

  @Test
  void aChangeIsPublishedAtOnceWhenNotificationsPauseAndEvery250MsWhileTheyKeepComing() {
    assertThat(FollowerTurns.publishNow(false, false, T, T - 10 * PUBLISH_EVERY_NANOS)).isFalse();
    assertThat(FollowerTurns.publishNow(true, false, T, T - MS)).isTrue();
    assertThat(FollowerTurns.publishNow(true, true, T, T - MS)).isFalse();
    assertThat(FollowerTurns.publishNow(true, true, T, T - PUBLISH_EVERY_NANOS + 1)).isFalse();
    assertThat(FollowerTurns.publishNow(true, true, T, T - PUBLISH_EVERY_NANOS)).isTrue();
  }

  @Test
  void thePollWaitsNoLongerThanUntilASnapshotIsDueAndNotAtAllDuringARefresh() {
    assertThat(FollowerTurns.pollMillis(false, false, T, T)).isEqualTo(POLL_MILLIS);
    assertThat(FollowerTurns.pollMillis(true, false, T, T)).isZero();
    assertThat(FollowerTurns.pollMillis(false, true, T, T - 200 * MS)).isEqualTo(50);
    assertThat(FollowerTurns.pollMillis(false, true, T, T - 10 * MS)).isEqualTo(POLL_MILLIS);
    assertThat(FollowerTurns.pollMillis(false, true, T, T - 10 * PUBLISH_EVERY_NANOS)).isZero();
    assertThat(FollowerTurns.pollMillis(true, true, T, T - 10 * MS)).isZero();
  }

  @Test
  void theRefreshWaitsForABurstToPauseAtMostThreeSeconds() {
    assertThat(FollowerTurns.refreshNow(false, false, T, T + MS)).isFalse(); // not due
    assertThat(FollowerTurns.refreshNow(false, false, T, T)).isTrue();
    assertThat(FollowerTurns.refreshNow(false, true, T, T - MS)).isFalse(); // a burst: wait
    assertThat(FollowerTurns.refreshNow(false, true, T, T - MAX_REFRESH_DELAY_NANOS + 1)).isFalse();
    assertThat(FollowerTurns.refreshNow(false, true, T, T - MAX_REFRESH_DELAY_NANOS)).isTrue(); // waited enough
    assertThat(FollowerTurns.refreshNow(true, false, T, T - MS)).isTrue(); // under way: goes on
    assertThat(FollowerTurns.refreshNow(true, true, T, T - MS)).isFalse(); // but not in a burst's turn
  }
}

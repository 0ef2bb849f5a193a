package io.segscope.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class HeapReleaseTest {
  private final AtomicInteger collections = new AtomicInteger();
  private final AtomicLong clock = new AtomicLong(1_000L);
  private final HeapRelease release = new HeapRelease(collections::incrementAndGet, clock::get);

  @Test
  void theFirstAskCollects() {
    assertThat(release.release("the start")).isTrue();
    assertThat(collections).hasValue(1);
  }

  @Test
  void asksWithinTheGapAreRefusedAndTheGapCountsFromTheLastCollection() {
    assertThat(release.release("the start")).isTrue();
    clock.addAndGet(HeapRelease.MIN_GAP_NANOS - 1);
    assertThat(release.release("a burst of device changes")).isFalse();
    clock.addAndGet(1);
    assertThat(release.release("a burst of device changes")).isTrue();
    clock.addAndGet(HeapRelease.MIN_GAP_NANOS / 2);
    assertThat(release.release("a burst of device changes")).isFalse();
    assertThat(collections).hasValue(2);
  }

  @Test
  void aClockBeforeTheFirstCollectionStillCollectsOnce() {
    clock.set(Long.MIN_VALUE + 1); // nanoTime may be any value, negative included
    assertThat(release.release("the start")).isTrue();
    assertThat(release.release("the start")).isFalse();
    assertThat(collections).hasValue(1);
  }
}

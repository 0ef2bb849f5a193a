package io.segscope.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class HeapReleaseTest {
  private final AtomicInteger collections = new AtomicInteger();
  private final AtomicInteger trims = new AtomicInteger();
  private final HeapRelease release =
      new HeapRelease(collections::incrementAndGet, () -> 64L << 20, trims::incrementAndGet, () -> 90_000L);

  @Test
  void theStartCollectsOnceAndTheNextReadTrimsTheCHeap() {
    release.afterStart();
    assertThat(collections).hasValue(1);
    assertThat(trims).hasValue(0);
    release.afterRead(20);
    assertThat(trims).hasValue(1);
    release.afterRead(20);
    assertThat(trims).hasValue(1);
  }

  @Test
  void aDeletionCollectsAtEachHalvingDownToItsEndAndOnceMoreWhenItSettles() {
    assertThat(release.afterRead(20)).isFalse();
    assertThat(release.afterRead(2020)).isFalse(); // a thousand veth pairs
    assertThat(release.afterRead(2020)).isFalse(); // steady: nothing gone
    assertThat(release.afterRead(1200)).isFalse(); // deleting, more than half left
    assertThat(release.afterRead(1000)).isTrue(); // half gone
    assertThat(release.afterRead(700)).isFalse(); // more than half of 1,000 left
    assertThat(release.afterRead(300)).isTrue();
    assertThat(release.afterRead(120)).isTrue(); // 180 fewer, under half of 300
    assertThat(release.afterRead(20)).isTrue(); // the end: 100 fewer
    assertThat(release.afterRead(20)).isFalse(); // unchanged once
    assertThat(release.afterRead(20)).isFalse(); // twice
    assertThat(release.afterRead(20)).isTrue(); // three reads unchanged: settled
    for (int i = 0; i < 10; i++) {
      assertThat(release.afterRead(20)).isFalse(); // once
    }
    assertThat(collections).hasValue(5);
    assertThat(trims).as("one trim on the read after each collection").hasValue(5);
  }

  @Test
  void aFastDeletionSettlesWithOneMoreCollection() {
    release.afterRead(2020);
    assertThat(release.afterRead(700)).isTrue(); // most gone between two reads
    assertThat(release.afterRead(20)).isTrue(); // the rest
    assertThat(release.afterRead(21)).isFalse(); // a device came: not settled yet
    assertThat(release.afterRead(21)).isFalse();
    assertThat(release.afterRead(21)).isFalse();
    assertThat(release.afterRead(21)).isTrue();
    assertThat(collections).hasValue(3);
  }

  @Test
  void aNewBurstBeforeTheDeletionSettledCancelsTheSettledCollection() {
    release.afterRead(2020);
    assertThat(release.afterRead(20)).isTrue();
    assertThat(release.afterRead(2020)).isFalse(); // the next thousand pairs
    for (int i = 0; i < 5; i++) {
      assertThat(release.afterRead(2020)).isFalse();
    }
    assertThat(collections).hasValue(1);
  }

  @Test
  void fewDevicesGoneAreNotWorthACollection() {
    release.afterRead(150);
    assertThat(release.afterRead(60)).isFalse(); // half gone, but only 90
    assertThat(release.afterRead(0)).isTrue(); // 150 gone
    assertThat(collections).hasValue(1);
  }

  @Test
  void growthNeverCollects() {
    for (int n = 0; n <= 5000; n += 250) {
      assertThat(release.afterRead(n)).isFalse();
    }
    for (int i = 0; i < 5; i++) {
      assertThat(release.afterRead(5000)).isFalse();
    }
    assertThat(collections).hasValue(0);
    assertThat(trims).hasValue(0);
  }
}

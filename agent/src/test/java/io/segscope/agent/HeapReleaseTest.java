package io.segscope.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class HeapReleaseTest {
  private final AtomicInteger collections = new AtomicInteger();
  private final HeapRelease release = new HeapRelease(collections::incrementAndGet, () -> 64L << 20);

  @Test
  void theStartCollectsOnce() {
    release.afterStart();
    assertThat(collections).hasValue(1);
  }

  @Test
  void aDeletionCollectsOnceItIsOverNotHalfWay() {
    assertThat(release.afterRead(20)).isFalse();
    assertThat(release.afterRead(2020)).isFalse(); // a thousand veth pairs
    assertThat(release.afterRead(2020)).isFalse(); // steady: nothing gone
    assertThat(release.afterRead(1200)).isFalse(); // deleting
    assertThat(release.afterRead(600)).isFalse(); // still deleting: under half, but not settled
    assertThat(release.afterRead(20)).isFalse();
    assertThat(release.afterRead(20)).isTrue(); // held still: the deletion is over
    assertThat(release.afterRead(20)).isFalse(); // once
    assertThat(collections).hasValue(1);
  }

  @Test
  void aSettledCountHalfWayDownCollectsAndTheNextOneNeedsHalfAgain() {
    release.afterRead(2000);
    release.afterRead(1000);
    assertThat(release.afterRead(1000)).isTrue();
    release.afterRead(600);
    assertThat(release.afterRead(600)).isFalse(); // 600 > 1000 / 2
    release.afterRead(400);
    assertThat(release.afterRead(400)).isTrue();
    assertThat(collections).hasValue(2);
  }

  @Test
  void fewDevicesGoneAreNotWorthACollection() {
    release.afterRead(150);
    release.afterRead(60);
    assertThat(release.afterRead(60)).isFalse(); // half gone, but only 90
    release.afterRead(0);
    assertThat(release.afterRead(0)).isTrue(); // 150 gone
    assertThat(collections).hasValue(1);
  }

  @Test
  void growthNeverCollects() {
    for (int n = 0; n <= 5000; n += 250) {
      assertThat(release.afterRead(n)).isFalse();
      assertThat(release.afterRead(n)).isFalse();
    }
    assertThat(collections).hasValue(0);
  }
}

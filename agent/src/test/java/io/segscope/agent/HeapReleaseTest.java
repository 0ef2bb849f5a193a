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
  void aDeletionCollectsAtEachHalvingDownToItsEnd() {
    assertThat(release.afterRead(20)).isFalse();
    assertThat(release.afterRead(2020)).isFalse(); // a thousand veth pairs
    assertThat(release.afterRead(2020)).isFalse(); // steady: nothing gone
    assertThat(release.afterRead(1200)).isFalse(); // deleting, more than half left
    assertThat(release.afterRead(1000)).isTrue(); // half gone
    assertThat(release.afterRead(700)).isFalse(); // more than half of 1,000 left
    assertThat(release.afterRead(300)).isTrue();
    assertThat(release.afterRead(120)).isTrue(); // 180 fewer, under half of 300
    assertThat(release.afterRead(20)).isTrue(); // the end: 100 fewer
    assertThat(release.afterRead(20)).isFalse(); // once
    assertThat(collections).hasValue(4);
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
    assertThat(collections).hasValue(0);
  }
}

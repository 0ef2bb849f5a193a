package io.segscope.probes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.segscope.probes.TimingWindows.Step;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** When the timing programs' sampling windows open and close, over a clock the test moves. */
class TimingWindowsTest {
  private static final long S = 1_000_000_000L;

  /** Every window at the start of its cycle: the offsets drawn are all 0. */
  private static TimingWindows atCycleStarts(Timing timing) {
    return new TimingWindows(timing, room -> 0);
  }

  @Test
  void aWindowOpensWhenSegmentationIsWantedLastsItsLengthAndOpensAgainOneCycleAfterItOpened() {
    TimingWindows w = atCycleStarts(new Timing(Duration.ofSeconds(3), Duration.ofSeconds(30)));
    assertThat(w.tick(0, false)).as("nothing segmented: no window").isEqualTo(Step.NONE);
    assertThat(w.tick(5 * S, true)).isEqualTo(Step.OPEN);
    assertThat(w.tick(7 * S, true)).isEqualTo(Step.NONE);
    assertThat(w.tick(8 * S, true)).isEqualTo(Step.CLOSE);
    assertThat(w.openNanos(8 * S)).isEqualTo(3 * S);
    assertThat(w.tick(34 * S, true)).as("29 s after the last opened").isEqualTo(Step.NONE);
    assertThat(w.tick(35 * S, true)).isEqualTo(Step.OPEN);
    assertThat(w.openNanos(36 * S)).as("3 s closed + 1 s of the open one").isEqualTo(4 * S);
    assertThat(w.tick(38 * S, false)).as("a window runs to its end once open").isEqualTo(Step.CLOSE);
    assertThat(w.tick(90 * S, false)).as("no segmentation seen: no more windows").isEqualTo(Step.NONE);
    assertThat(w.tick(91 * S, true)).isEqualTo(Step.OPEN);
  }

  /**
   * 1,000 cycles of 1 s in every 10 s, ticked every 100 ms as the pipeline's clock does, segmentation wanted
   * throughout: one window per cycle, each opening at a random moment that lets it end within its cycle, the
   * moments spread over the cycle (not in step with a 5 s map read), and the windows a tenth of the time.
   */
  @Test
  void eachCycleHasOneWindowAtARandomOffsetThatFitsInIt() {
    Timing timing = new Timing(Duration.ofSeconds(1), Duration.ofSeconds(10));
    TimingWindows w = new TimingWindows(timing, new java.util.SplittableRandom(42)::nextLong);
    long tick = 100_000_000L;
    long cycle = 10 * S;
    long start = 3 * S;
    java.util.List<Long> opens = new java.util.ArrayList<>();
    for (long now = start; now < start + 1000 * cycle; now += tick) {
      if (w.tick(now, true) == Step.OPEN) {
        opens.add(now);
      }
    }
    assertThat(opens).hasSize(1000);
    java.util.Set<Long> offsetsInCycle = new java.util.TreeSet<>();
    int inFirstHalfSecond = 0;
    for (int k = 0; k < opens.size(); k++) {
      long offset = opens.get(k) - (start + k * cycle);
      assertThat(offset).as("window %d opens within its cycle, early enough to end in it", k)
          .isBetween(0L, cycle - S);
      offsetsInCycle.add(offset / tick);
      inFirstHalfSecond += offset < S / 2 ? 1 : 0;
    }
    assertThat(opens.get(0)).as("the first window opens as soon as segmentation is wanted").isEqualTo(start);
    assertThat(offsetsInCycle).as("the windows' moments in the cycle, in 100 ms ticks").hasSizeGreaterThan(80);
    assertThat(inFirstHalfSecond).as("windows opening in a cycle's first 0.5 s (a map read's moment)")
        .isLessThan(150);
    double share = w.openNanos(start + 1000 * cycle) / (1000.0 * cycle);
    assertThat(share).as("time in windows").isCloseTo(0.1, org.assertj.core.data.Offset.offset(0.005));
  }

  @Test
  void aWindowOpenedLateAfterALullTakesItsCycleAndTheNextComesInTheFollowingOne() {
    TimingWindows w = new TimingWindows(new Timing(Duration.ofSeconds(1), Duration.ofSeconds(10)),
        room -> room - 1);
    assertThat(w.tick(0, true)).isEqualTo(Step.OPEN);
    assertThat(w.tick(S, true)).isEqualTo(Step.CLOSE);
    assertThat(w.tick(18 * S, true)).as("the next cycle's window opens at its last possible moment, 9 s in")
        .isEqualTo(Step.NONE);
    assertThat(w.tick(19 * S, true)).isEqualTo(Step.OPEN);
    assertThat(w.tick(20 * S, false)).isEqualTo(Step.CLOSE);
    assertThat(w.tick(75 * S, true)).as("segmentation again after a lull: a window at once").isEqualTo(Step.OPEN);
    assertThat(w.tick(76 * S, true)).isEqualTo(Step.CLOSE);
    assertThat(w.tick(88 * S, true)).as("the next one in the cycle after 70-80 s, 9 s in").isEqualTo(Step.NONE);
    assertThat(w.tick(89 * S, true)).isEqualTo(Step.OPEN);
  }

  @Test
  void anOffsetOutsideTheCycleIsRefused() {
    TimingWindows w = new TimingWindows(new Timing(Duration.ofSeconds(1), Duration.ofSeconds(10)), room -> room);
    assertThatThrownBy(() -> w.tick(0, true)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("outside");
  }

  @Test
  void alwaysOpensOnceAndNeverCloses() {
    TimingWindows w = new TimingWindows(Timing.always());
    assertThat(w.tick(0, false)).isEqualTo(Step.OPEN);
    assertThat(w.tick(100 * S, false)).isEqualTo(Step.NONE);
    assertThat(w.isOpen()).isTrue();
    assertThat(w.openNanos(100 * S)).isEqualTo(100 * S);
  }

  @Test
  void anOpenThatFailedIsUndoneAndRetriedOneCycleLater() {
    TimingWindows w = atCycleStarts(new Timing(Duration.ofSeconds(3), Duration.ofSeconds(30)));
    assertThat(w.tick(0, true)).isEqualTo(Step.OPEN);
    w.undoOpen();
    assertThat(w.isOpen()).isFalse();
    assertThat(w.tick(S, true)).isEqualTo(Step.NONE);
    assertThat(w.tick(30 * S, true)).isEqualTo(Step.OPEN);
  }

  @Test
  void theSettingIsLabelledAndBounded() {
    assertThat(Timing.DEFAULT.label()).isEqualTo("1s/10s");
    assertThat(Timing.always().label()).isEqualTo("always");
    assertThat(Timing.always().isAlways()).isTrue();
    assertThat(Timing.sampled(Duration.ofMillis(500)).label()).isEqualTo("500ms/10s");
    assertThatThrownBy(() -> new Timing(Duration.ZERO, Duration.ofSeconds(30)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Timing(Duration.ofSeconds(31), Duration.ofSeconds(30)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theSampledRatioIsTheOpenShareAndOneForAlways() {
    assertThat(new TimingShare("3s/30s", 3, 30).ratio()).isEqualTo(0.1);
    assertThat(new TimingShare("3s/30s", 0, 0).ratio()).isZero();
    assertThat(TimingShare.ALWAYS.ratio()).isEqualTo(1);
  }
}

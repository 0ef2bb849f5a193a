package io.segscope.probes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.segscope.probes.TimingWindows.Step;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** When the timing programs' sampling windows open and close, over a clock the test moves. */
class TimingWindowsTest {
  private static final long S = 1_000_000_000L;

  @Test
  void aWindowOpensWhenSegmentationIsWantedLastsItsLengthAndOpensAgainOneCycleAfterItOpened() {
    TimingWindows w = new TimingWindows(new Timing(Duration.ofSeconds(3), Duration.ofSeconds(30)));
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
    TimingWindows w = new TimingWindows(new Timing(Duration.ofSeconds(3), Duration.ofSeconds(30)));
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

package io.segscope.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AwaitTest {
  @Test
  void pollsUntilTheConditionHolds() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    assertThat(
        Await.atMost(Duration.ofSeconds(10)).every(Duration.ofMillis(1)).until(() -> calls.incrementAndGet() == 3))
        .isTrue();
    assertThat(calls).hasValue(3);
  }

  @Test
  void endsAtTheDeadlineWithTheCallersMessage() {
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> Await.atMost(Duration.ofMillis(100)).every(Duration.ofMillis(10))
        .untilOrFail(() -> false, () -> "never"))
        .isInstanceOf(AssertionError.class).hasMessage("never");
    assertThat(System.nanoTime() - t0).as("waited the deadline").isGreaterThanOrEqualTo(100_000_000L);
  }

  @Test
  void endsWhenWhatItWaitsAlongsideEnds() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    Optional<String> r = Await.whileTrue(() -> calls.get() < 4).every(Duration.ofMillis(1)).poll(() -> {
      calls.incrementAndGet();
      return Optional.empty();
    });
    assertThat(r).isEmpty();
    assertThat(calls).hasValue(4);
    assertThat(Await.whileTrue(() -> true).every(Duration.ZERO).pollOrFail(() -> Optional.of("x"), () -> "no"))
        .isEqualTo("x");
  }
}

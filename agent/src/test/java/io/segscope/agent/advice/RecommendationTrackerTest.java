package io.segscope.agent.advice;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.device.DeviceId;
import io.segscope.exporters.model.DeviceRef;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecommendationTrackerTest {
  private static final Instant T = Instant.parse("2026-11-30T19:00:00Z");

  private static Finding finding(String device) {
    DeviceRef d = new DeviceRef(DeviceId.of(1, 2), "ns", device);
    return new Finding("gso_size_mismatch", "warning", d, List.of(d), "s", Map.of(), List.of(Command.of("cmd")), 0.1,
        "basis", "high", "risk");
  }

  private static Instant at(int s) {
    return T.plusSeconds(s);
  }

  @Test
  void opensOnlyAfterSustainedEvidence() {
    var t = new RecommendationTracker(Duration.ofSeconds(10), Duration.ofSeconds(30));
    assertThat(t.update(at(0), List.of(finding("a")))).isEmpty();
    assertThat(t.update(at(5), List.of(finding("a")))).isEmpty();
    var c = t.update(at(10), List.of(finding("a")));
    assertThat(c).singleElement().satisfies(x -> {
      assertThat(x.kind()).isEqualTo(RecommendationTracker.Change.Kind.OPENED);
      assertThat(x.recommendation().firstSeen()).isEqualTo(at(0));
      assertThat(x.recommendation().openedAt()).isEqualTo(at(10));
    });
    assertThat(t.open()).hasSize(1);
  }

  @Test
  void flappingInputNeverOpens() {
    var t = new RecommendationTracker(Duration.ofSeconds(10), Duration.ofSeconds(30));
    for (int s = 0; s < 120; s += 5) {
      boolean present = (s / 5) % 2 == 0;
      assertThat(t.update(at(s), present ? List.of(finding("a")) : List.of())).as("t=%d", s).isEmpty();
    }
    assertThat(t.open()).isEmpty();
  }

  @Test
  void closesOnlyAfterSustainedAbsenceAndSurvivesShortLulls() {
    var t = new RecommendationTracker(Duration.ZERO, Duration.ofSeconds(30));
    assertThat(t.update(at(0), List.of(finding("a")))).extracting(RecommendationTracker.Change::kind)
        .containsExactly(RecommendationTracker.Change.Kind.OPENED);
    assertThat(t.update(at(10), List.of())).isEmpty();
    assertThat(t.update(at(20), List.of())).isEmpty();
    assertThat(t.update(at(25), List.of(finding("a")))).as("a lull shorter than closeAfter").isEmpty();
    assertThat(t.update(at(50), List.of())).isEmpty();
    assertThat(t.update(at(55), List.of())).extracting(RecommendationTracker.Change::kind)
        .containsExactly(RecommendationTracker.Change.Kind.CLOSED);
    assertThat(t.open()).isEmpty();
  }

  @Test
  void anOpenRecommendationCarriesTheLatestEvidence() {
    var t = new RecommendationTracker(Duration.ZERO, Duration.ofSeconds(30));
    t.update(at(0), List.of(finding("a")));
    Finding newer = new Finding("gso_size_mismatch", "warning", finding("a").subject(), finding("a").devices(),
        "s2", Map.of("x", 1), List.of(Command.of("cmd")), 0.5, "basis", "high", "risk");
    t.update(at(5), List.of(newer));
    assertThat(t.open()).singleElement().satisfies(r -> {
      assertThat(r.finding().cpuSavingCores()).isEqualTo(0.5);
      assertThat(r.lastSeen()).isEqualTo(at(5));
      assertThat(r.openedAt()).isEqualTo(at(0));
    });
  }

  @Test
  void openListIsMostExpensiveFirst() {
    var t = new RecommendationTracker(Duration.ZERO, Duration.ofSeconds(30));
    Finding cheap = finding("a");
    DeviceRef b = new DeviceRef(DeviceId.of(1, 3), "ns", "b");
    Finding dear =
        new Finding("offload_disabled", "warning", b, List.of(b), "s", Map.of(), List.of(Command.of("c")), 0.9, "",
            "high", "");
    t.update(at(0), List.of(cheap, dear));
    assertThat(t.open()).extracting(r -> r.finding().subject().device()).containsExactly("b", "a");
  }

  @Test
  void closeIfClosesAtOnceAndDropsTheStreak() {
    var t = new RecommendationTracker(Duration.ZERO, Duration.ofMinutes(10));
    t.update(at(0), List.of(finding("a"), finding("b")));
    var closed = t.closeIf(f -> f.subject().device().equals("a"));
    assertThat(closed).extracting(c -> c.kind().label() + ":" + c.recommendation().finding().subject().device())
        .containsExactly("closed:a");
    assertThat(t.open()).extracting(r -> r.finding().subject().device()).containsExactly("b");
  }
}

package io.segscope.exporters.model;

import java.util.List;

/**
 * What was measured before and after a recommendation closed because its evidence stopped
 * (docs/recommendations.md, "Verified savings").
 *
 * @param id the recommendation's id
 * @param rule its rule
 * @param device where the cost was measured (the recommendation's subject)
 * @param state the state it had ({@code open} or {@code accepted})
 * @param verdict {@code verified} (comparable traffic before and after: {@code savingCores} is the
 *     saving), {@code traffic_changed} (the traffic after was less than a quarter or more than four
 *     times the traffic before), or {@code no_traffic_after} (no traffic through the device after the
 *     evidence stopped: nothing to compare)
 * @param savingCores the CPU the same traffic costs less now, in cores: the CPU before minus the CPU
 *     after scaled to the traffic before (negative: it costs more); 0 unless verified
 */
public record VerifiedSaving(String id, String rule, DeviceRef device, String state, String verdict,
    double savingCores) {
  /** The verdicts, as exported. */
  public static final List<String> VERDICTS = List.of("verified", "traffic_changed",
      "no_traffic_after");

  public VerifiedSaving {
    Checks.notNull(id, "VerifiedSaving.id");
    Checks.notNull(rule, "VerifiedSaving.rule");
    Checks.notNull(device, "VerifiedSaving.device");
    if (!RecommendationInfo.STATES.contains(state)) {
      throw new IllegalArgumentException("VerifiedSaving.state must be one of " + RecommendationInfo.STATES
          + ", got " + state);
    }
    if (!VERDICTS.contains(verdict)) {
      throw new IllegalArgumentException("VerifiedSaving.verdict must be one of " + VERDICTS + ", got " + verdict);
    }
    if (!Double.isFinite(savingCores)) {
      throw new IllegalArgumentException("VerifiedSaving.savingCores must be finite, got " + savingCores);
    }
  }
}

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
 * @param verdict {@code verified} (the software segmentation gone and the host's kernel CPU per byte through
 *     the device down by more than the noise band), {@code worse} (the segmentation gone but the CPU per byte
 *     up by more than the band), {@code inconclusive} (within the band, the segmentation not gone, or the host
 *     CPU unknown), {@code traffic_changed} (the traffic after was less than a quarter or more than four
 *     times the traffic before), or {@code no_traffic_after} (no traffic through the device after the
 *     evidence stopped: nothing to compare)
 * @param savingCores for {@code verified} and {@code worse}: the CPU per byte before minus after, times the
 *     traffic before, in cores (negative: it costs more); 0 otherwise
 */
public record VerifiedSaving(String id, String rule, DeviceRef device, String state, String verdict,
    double savingCores) {
  /** The verdicts, as exported. */
  public static final List<String> VERDICTS = List.of("verified", "worse", "inconclusive",
      "traffic_changed", "no_traffic_after");

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

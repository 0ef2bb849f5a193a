package io.segscope.exporters.model;

import java.util.List;

/**
 * One open recommendation, as the metrics show it (the API carries the evidence and commands).
 *
 * @param id stable id
 * @param rule the rule that made it
 * @param severity warning or info
 * @param device the device where the cost was measured
 * @param cpuSavingCores the expected CPU saving in cores
 * @param state {@code open}, or {@code accepted} when the operator said the finding is intended
 *     ({@code --advice-accept}): still measured and exported, never alerted as open
 */
public record RecommendationInfo(String id, String rule, String severity, DeviceRef device, double cpuSavingCores,
    String state) {
  /** The states a recommendation is exported in. */
  public static final List<String> STATES = List.of("open", "accepted");

  /** An open recommendation. */
  public RecommendationInfo(String id, String rule, String severity, DeviceRef device, double cpuSavingCores) {
    this(id, rule, severity, device, cpuSavingCores, "open");
  }

  public RecommendationInfo {
    Checks.notNull(state, "RecommendationInfo.state");
    if (!STATES.contains(state)) {
      throw new IllegalArgumentException("RecommendationInfo.state must be one of " + STATES + ", got " + state);
    }
    Checks.notNull(id, "RecommendationInfo.id");
    Checks.notNull(rule, "RecommendationInfo.rule");
    Checks.notNull(severity, "RecommendationInfo.severity");
    Checks.notNull(device, "RecommendationInfo.device");
    if (!(cpuSavingCores >= 0) || Double.isInfinite(cpuSavingCores)) {
      throw new IllegalArgumentException("RecommendationInfo.cpuSavingCores must be finite and >= 0, got "
          + cpuSavingCores);
    }
  }
}

package io.segscope.exporters.model;

/**
 * One open recommendation, as the metrics show it (the API carries the evidence and commands).
 *
 * @param id stable id
 * @param rule the rule that made it
 * @param severity warning or info
 * @param device the device where the cost was measured
 * @param cpuSavingCores the expected CPU saving in cores
 */
public record RecommendationInfo(String id, String rule, String severity, DeviceRef device, double cpuSavingCores) {
  public RecommendationInfo {
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

package io.segscope.bench.report;

import java.util.function.Supplier;

/**
 * One figure against its target.
 *
 * @param figure what was measured
 * @param measured the value as shown
 * @param target the target as shown
 * @param verdict met, missed, or not measured
 * @param explanation for a miss: where it comes from, from the run's own figures ("" otherwise); for a
 *     figure not measured: why
 */
public record Check(String figure, String measured, String target, Verdict verdict, String explanation) {

  /** How a figure stands against its target. */
  public enum Verdict { MET, MISSED, NOT_MEASURED }

  static Check atMost(String figure, double value, double limit, String measured, String target,
      Supplier<String> why) {
    return judge(figure, value <= limit, value, measured, target, why);
  }

  static Check atLeast(String figure, double value, double limit, String measured, String target,
      Supplier<String> why) {
    return judge(figure, value >= limit, value, measured, target, why);
  }

  private static Check judge(String figure, boolean met, double value, String measured, String target,
      Supplier<String> why) {
    if (Double.isNaN(value)) {
      return notMeasured(figure, target, "the run produced no value for it");
    }
    return new Check(figure, measured, target, met ? Verdict.MET : Verdict.MISSED, met ? "" : why.get());
  }

  static Check notMeasured(String figure, String target, String why) {
    return new Check(figure, "—", target, Verdict.NOT_MEASURED, why);
  }

  /** The verdict cell of the summary table. */
  String verdictCell() {
    return switch (verdict) {
      case MET -> "met";
      case MISSED -> "**missed**";
      case NOT_MEASURED -> "not measured";
    };
  }
}

package io.segscope.bench.report;

/**
 * One figure against its target.
 *
 * @param id stable key (used to attach the explanation of a miss)
 * @param part which part of the suite measured it ("1. in-kernel cost", ...)
 * @param figure what was measured
 * @param measured the value as shown
 * @param target the target as shown
 * @param met whether the target was reached
 * @param missBy how far off, as shown ("" when met)
 */
public record Check(String id, String part, String figure, String measured, String target, boolean met,
    String missBy) {

  /** A check of {@code value <= limit} (or {@code <} when {@code strict}). */
  public static Check atMost(String id, String part, String figure, double value, double limit, boolean strict,
      String unit, int decimals) {
    boolean met = strict ? value < limit : value <= limit;
    String miss = met ? "" : String.format("%s %s over (%.0f%% above)", Fmt.num(value - limit, decimals), unit,
        100 * (value - limit) / limit);
    return new Check(id, part, figure, Fmt.num(value, decimals) + " " + unit,
        (strict ? "< " : "≤ ") + Fmt.num(limit, decimals) + " " + unit, met, miss.trim());
  }

  /** A check of {@code value >= limit}. */
  public static Check atLeast(String id, String part, String figure, double value, double limit, int decimals) {
    boolean met = value >= limit;
    String miss = met ? "" : String.format("%s below (%.1f%% short)", Fmt.num(limit - value, decimals),
        100 * (limit - value) / limit);
    return new Check(id, part, figure, Fmt.num(value, decimals), "≥ " + Fmt.num(limit, decimals), met, miss);
  }
}

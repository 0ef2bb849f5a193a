package io.segscope.bench.report;

import io.segscope.bench.part.AccuracyResult;
import io.segscope.bench.part.CostResult;
import io.segscope.bench.part.JmhResult;
import io.segscope.bench.part.OverheadResult;
import io.segscope.bench.part.ScaleResult;

/** Why a target was missed and what would close it, from the numbers of the same run. */
final class Misses {
  private Misses() {}

  static String explain(Check c, CostResult cost, OverheadResult overhead, AccuracyResult accuracy,
      ScaleResult scale, JmhResult jmh) {
    String id = c.id();
    if (id.startsWith("cost.ns.")) {
      return "No explanation recorded for this miss yet.";
    }
    return "No explanation recorded for this miss yet.";
  }
}

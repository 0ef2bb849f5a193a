package io.segscope.bench.part;

import java.util.List;

/**
 * Part 5: JMH scores of the Java hot paths.
 *
 * @param scores one per benchmark and device count
 * @param settings forks, warm-up and measurement iterations used
 */
public record JmhResult(List<Score> scores, String settings) {

  /**
   * @param benchmark the method name
   * @param devices the {@code devices} parameter
   * @param score average time per operation
   * @param error the 99.9% confidence half-interval JMH reports (NaN with too few iterations)
   * @param unit e.g. us/op
   * @param allocatedBytesPerOp bytes allocated per operation (JMH's GC profiler, gc.alloc.rate.norm); NaN
   *     when not measured
   */
  public record Score(String benchmark, int devices, double score, double error, String unit,
      double allocatedBytesPerOp) {}
}

package io.segscope.bench.part;

import io.segscope.bench.common.Results;
import io.segscope.bench.jmh.HotPathBenchmarks;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/** Part 5: runs {@link HotPathBenchmarks} with JMH (one forked JVM per benchmark) and keeps the scores. */
public final class JmhPart {
  private final BenchConfig config;
  private final Results results;

  public JmhPart(BenchConfig config, Results results) {
    this.config = config;
    this.results = results;
  }

  public JmhResult run() throws Exception {
    ChainedOptionsBuilder b = new OptionsBuilder()
        .include(HotPathBenchmarks.class.getName() + "\\.")
        .resultFormat(ResultFormatType.JSON)
        .result(results.dir().resolve("jmh-raw.json").toString())
        .output(results.dir().resolve("jmh.log").toString())
        .addProfiler(GCProfiler.class)
        .jvmArgsAppend(config.launcher().javaOptions().toArray(String[]::new));
    String settings = "1 fork per benchmark with the launcher's flags (" + config.launcher().javaOptionsLine()
        + "), 3 x 1 s warm-up, 5 x 1 s measurement, GC profiler";
    if (config.jmhQuick()) {
      b.warmupIterations(1).warmupTime(TimeValue.milliseconds(300)).measurementIterations(2)
          .measurementTime(TimeValue.milliseconds(300));
      settings = "quick: 1 fork per benchmark (" + config.launcher().javaOptionsLine()
          + "), 1 x 0.3 s warm-up, 2 x 0.3 s measurement";
    }
    Collection<RunResult> runs = new Runner(b.build()).run();
    List<JmhResult.Score> scores = new ArrayList<>();
    for (RunResult r : runs) {
      var p = r.getPrimaryResult();
      String method = r.getParams().getBenchmark();
      method = method.substring(method.lastIndexOf('.') + 1);
      Result<?> alloc = r.getSecondaryResults().get("gc.alloc.rate.norm");
      scores.add(new JmhResult.Score(method, Integer.parseInt(r.getParams().getParam("devices")), p.getScore(),
          p.getScoreError(), p.getScoreUnit(), alloc == null ? Double.NaN : alloc.getScore()));
    }
    JmhResult result = new JmhResult(scores, settings);
    results.write("jmh", result);
    return result;
  }
}

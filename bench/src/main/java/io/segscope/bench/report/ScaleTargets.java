package io.segscope.bench.report;

import static io.segscope.bench.report.Fmt.count;
import static io.segscope.bench.report.Fmt.mib;
import static io.segscope.bench.report.Fmt.num;

import io.segscope.bench.agent.JvmMemory;
import io.segscope.bench.common.RunInfo;
import io.segscope.bench.part.JmhResult;
import io.segscope.bench.part.ScaleResult;
import java.util.function.Function;

/**
 * The targets at 1,000 devices: /metrics latency (p50, p99) and the agent's RSS, from the scale part and its
 * JMH benchmarks. Part of {@link Targets}.
 */
final class ScaleTargets {
  private final RunInfo run;
  private final ScaleResult scale;
  private final JmhResult jmh;
  /** Why a part's figures are missing ({@link Targets}'s reason). */
  private final Function<String, String> missing;

  ScaleTargets(RunInfo run, ScaleResult scale, JmhResult jmh, Function<String, String> missing) {
    this.run = run;
    this.scale = scale;
    this.jmh = jmh;
    this.missing = missing;
  }

  private String atDevices(ScaleResult.Level top) {
    return top.fleetDevices() == Targets.DEVICES ? "at 1,000 devices" : "at " + count(top.fleetDevices())
        + " devices (this run's largest; the target is at 1,000)";
  }

  Check metrics(boolean p50) {
    String target = p50 ? "≤ 5 ms" : "≤ 20 ms";
    String q = p50 ? "p50" : "p99";
    ScaleResult.Level top = scale == null ? null : scale.top();
    if (top == null) {
      return Check.notMeasured("/metrics " + q + " at 1,000 devices (gzip, as Prometheus asks)", target,
          missing.apply("scale"));
    }
    String figure = "/metrics " + q + " " + atDevices(top) + " (gzip, as Prometheus asks)";
    double v = p50 ? top.metricsGzip().ms().p50() : top.metricsGzip().ms().p99();
    return verdictAt(top, Check.atMost(figure, v, p50 ? 5 : 20, num(v, 1) + " ms", target, () -> {
      ScaleResult.Level low = scale.levels().get(0);
      double lowV = p50 ? low.metricsGzip().ms().p50() : low.metricsGzip().ms().p99();
      StringBuilder b = new StringBuilder();
      b.append("at ").append(count(top.fleetDevices())).append(" devices the gzip body is ")
          .append(Fmt.kib(top.metricsGzip().bytes())).append(" (").append(count(top.series()))
          .append(" series), ").append(q).append(" ").append(num(v, 1)).append(" ms; uncompressed ")
          .append(Fmt.kib(top.metricsPlain().bytes())).append(", ").append(q).append(" ")
          .append(num(p50 ? top.metricsPlain().ms().p50() : top.metricsPlain().ms().p99(), 1)).append(" ms. At ")
          .append(count(low.fleetDevices())).append(" devices the gzip ").append(q).append(" is ")
          .append(num(lowV, 1)).append(" ms");
      double perDevice = 1000 * (v - lowV) / Math.max(1, top.fleetDevices() - low.fleetDevices());
      if (perDevice > 0) {
        b.append(", so it grows ").append(num(perDevice, 1)).append(" µs per device.");
      } else {
        b.append(", no less than at ").append(count(top.fleetDevices()))
            .append(": the devices do not explain it here, the machine's noise does.");
      }
      JmhResult.Score s = jmhScore("scrapeGzip", Targets.DEVICES);
      if (s != null) {
        b.append(" Serving the cached bytes of one gzip scrape for 1,000 devices takes ")
            .append(num(s.score(), 0)).append(" ").append(s.unit()).append(" in the JVM (JMH, below): the rest is")
            .append(" the HTTP server, the loopback transfer and the client.");
      }
      b.append(" Load average at the start of the run: ").append(num(run.loadBefore()[0], 2))
          .append(" (").append(q.equals("p99") ? "a p99 of " + top.metricsGzip().ms().n()
              + " requests is their slowest few" : "other processes share the 2 cores")
          .append(").");
      return b.toString();
    }));
  }

  /** A check measured below 1,000 devices is reported, never judged. */
  private static Check verdictAt(ScaleResult.Level top, Check c) {
    if (top.fleetDevices() == Targets.DEVICES || c.verdict() == Check.Verdict.NOT_MEASURED) {
      return c;
    }
    return new Check(c.figure(), c.measured(), c.target(), Check.Verdict.NOT_MEASURED,
        "measured at " + count(top.fleetDevices()) + " devices only (a --quick run)");
  }

  private JmhResult.Score jmhScore(String benchmark, int devices) {
    if (jmh == null) {
      return null;
    }
    return jmh.scores().stream().filter(s -> s.benchmark().equals(benchmark) && s.devices() == devices).findFirst()
        .orElse(null);
  }

  Check rss() {
    ScaleResult.Level top = scale == null ? null : scale.top();
    if (top == null) {
      return Check.notMeasured("agent RSS at 1,000 devices", "≤ 160 MiB", missing.apply("scale"));
    }
    double r = top.rssBytes() / 1048576.0;
    return verdictAt(top, Check.atMost("agent RSS " + atDevices(top) + " (VmRSS after the requests; launcher flags "
        + scale.javaOptions() + ")", r, 160, mib(top.rssBytes()), "≤ 160 MiB", () -> {
          StringBuilder b = new StringBuilder();
          b.append("RSS ").append(mib(top.rssBytes())).append(" (peak ").append(mib(top.peakRssBytes()))
              .append(", ").append(mib(top.loadRssBytes())).append(" under S1 load).");
          JvmMemory j = scale.jvm();
          if (j != null) {
            b.append(" ").append(JvmText.breakdown(j)).append(" ").append(JvmText.floor(j, 160L << 20));
          }
          return b.toString();
        }));
  }
}

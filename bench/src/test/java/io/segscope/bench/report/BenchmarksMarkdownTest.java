package io.segscope.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.bench.Machine;
import io.segscope.bench.Results;
import io.segscope.bench.RunInfo;
import io.segscope.bench.Stats;
import io.segscope.bench.part.AccuracyResult;
import io.segscope.bench.part.CostResult;
import io.segscope.bench.part.OverheadResult;
import io.segscope.bench.part.ScaleResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchmarksMarkdownTest {
  static RunInfo run() {
    return new RunInfo("2026-11-30T20:00:00Z", 600, new Machine(2, 24L << 30, "AMD EPYC", "6.18.44", new double[] {1, 1, 1},
        "OpenJDK 17"), new double[] {1.5, 1, 1}, new double[] {1.2, 1, 1}, false, List.of("cost", "overhead", "scale"),
        Map.of(), "tracepoint", "bench-results/T");
  }

  static CostResult cost() {
    return new CostResult(List.of(
        new CostResult.ProgramCost("net_dev_queue", "tracepoint__net__net_dev_queue", 1000, 150_000, 150, 1000, 300_000, 300, false),
        new CostResult.ProgramCost("qdisc_dequeue", "tracepoint__qdisc__qdisc_dequeue", 0, 0, Double.NaN, 0, 0, Double.NaN, false),
        new CostResult.ProgramCost("net_dev_start_xmit", "tracepoint__net__net_dev_start_xmit", 1000, 60_000, 60, 1000, 70_000, 70, false),
        new CostResult.ProgramCost("netif_receive_skb", "tracepoint__net__netif_receive_skb", 1000, 90_000, 90, 1000, 50_000, 50, true)),
        300_000, 420_000, 100, 100, 1_000_000, 5.0, 5.0, List.of("pid 7 (java): net_dev_queue"), "tracepoint");
  }

  @Test
  void everyFigureStandsNextToItsTargetAndMissesSayByHowMuch(@TempDir Path dir) throws Exception {
    Results r = new Results(dir);
    r.write("run", run());
    r.write("cost", cost());
    r.write("accuracy", new AccuracyResult(List.of(
        new AccuracyResult.DeviceAccuracy("s1", "uplink", 1, "up0", 990, 1000, 45000, 45000, 1, 1, 5, 5),
        new AccuracyResult.DeviceAccuracy("s1", "bridge", 1, "br0", 0, 0, 0, 0, 0, 0, 0, 0)), Map.of(), 0));
    r.write("overhead", new OverheadResult(List.of(), List.of(new OverheadResult.Summary("S1", 5,
        new OverheadResult.Spread(0.995, 0.9, 1.1), new OverheadResult.Spread(1, 1, 1), new OverheadResult.Spread(1, 1, 1),
        10, 10)), 3, List.of(4.0)));
    Stats.Summary ms = new Stats.Summary(100, 10, 25, 40, 50, 26);
    r.write("scale", new ScaleResult(List.of(new ScaleResult.Level(1000, 1020, 1000, 1000, 80000, 6.5, 6.6, 3.7,
        new ScaleResult.Latency("/metrics", ms, 8_000_000), new ScaleResult.Latency("/api/v1/devices", ms, 1_000_000),
        270L << 20, 0.01, 280L << 20, 0.01, 4.0)), "5s",
        new ScaleResult.CompileMemory(new long[] {38000, 17000, 21000}, new long[] {238000, 137000, 101000},
            new long[] {209000, 108000, 101000})));
    r.write("jmh", new io.segscope.bench.part.JmhResult(List.of(
        new io.segscope.bench.part.JmhResult.Score("scrape", 1000, 113_768.5, 14_196.6, "us/op", 40.0 * (1 << 20))),
        "test"));
    Path md = dir.resolve("B.md");
    BenchmarksMarkdown.write(r, md);
    String text = Files.readString(md);

    assertThat(text).contains("| 1. In-kernel cost | ns/event, net_dev_queue | 150 ns | ≤ 100 ns | **missed** by 50 ns over (50% above) |");
    assertThat(text).contains("| 1. In-kernel cost | ns/event, net_dev_start_xmit | 60 ns | ≤ 100 ns | met |");
    assertThat(text).doesNotContain("ns/event, qdisc_dequeue |"); // not exercised: no check
    assertThat(text).contains("— (not exercised)");
    assertThat(text).contains("50.0 (empty program: the floor)");
    assertThat(text).contains("| 2. End-to-end overhead | iperf3 throughput with ÷ without agent, S1 (median of 5 pairs) | 0.995 | ≥ 0.990 | met |");
    assertThat(text).contains("worst relative error of 4 counts, s1 up0 | 1.000 % | ≤ 1.000 % | met");
    assertThat(text).doesNotContain("s1 br0 |"); // nothing to count on it: no check
    assertThat(text).contains("/metrics p50 at 1000 fleet devices | 25.0 ms | < 20.0 ms | **missed**");
    assertThat(text).contains("agent RSS, largest seen (idle or under load, any level) | 280.0 MiB | < 256.0 MiB | **missed**");
    assertThat(text).contains("start to first successful scrape, slowest level | 6.50 s | ≤ 5.00 s | **missed**");
    assertThat(text).contains("## Misses, and what would close them");
    assertThat(text).contains("pid 7 (java): net_dev_queue");
    assertThat(text).contains("| probe mode | tracepoint (the mode label of the agent's segscope_probe_attached series) |");
    assertThat(text).contains("| scrape | 1000 | 113,768.5 us/op | 14,196.6 | 113,769 ns | 40.0 MiB |");
    assertThat(text).contains("one scrape of 1000 devices allocates 40.0 MiB (JMH, part 5)");
    assertThat(text).contains("JMH (part 5) puts MetricsRegistry.scrape alone at 113.8 ms for 1000 devices");
  }
}

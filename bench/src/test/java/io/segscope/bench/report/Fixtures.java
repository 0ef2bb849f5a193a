package io.segscope.bench.report;

import io.segscope.bench.agent.JvmMemory;
import io.segscope.bench.common.Machine;
import io.segscope.bench.common.RunInfo;
import io.segscope.bench.common.Stats;
import io.segscope.bench.kernel.BpfFdinfo;
import io.segscope.bench.kernel.MemInfo;
import io.segscope.bench.part.AccuracyResult;
import io.segscope.bench.part.ContainerResult;
import io.segscope.bench.part.GuestResult;
import io.segscope.bench.part.JmhResult;
import io.segscope.bench.part.KernelResult;
import io.segscope.bench.part.OverheadResult;
import io.segscope.bench.part.ScaleResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Results of a made-up run, with figures chosen so that each check's arithmetic can be followed by hand. */
final class Fixtures {
  private Fixtures() {}

  static RunInfo run(List<String> parts, Map<String, String> failures) {
    return new RunInfo("2026-12-01T20:00:00Z", 1200, new Machine(2, 24L << 30, "AMD EPYC", "6.18.44",
        new double[] {1, 1, 1}, "OpenJDK 17"), new double[] {0.5, 1, 1}, new double[] {0.7, 1, 1}, false, parts,
        failures, "-Xms32m -Xmx192m -XX:+UseSerialGC", Map.of("MALLOC_ARENA_MAX", "2"), "bench-results/T");
  }

  /**
   * 1,000 super-packets segmented in 8.8 ms; consume_skb fired 6,500 times (100 ns per run, the empty
   * program 35), net_dev_queue 11,400 (100 ns, empty 35): 17.9 runs and 1,790 ns per super-packet,
   * 20.34 % of the segmentation time.
   */
  static KernelResult kernel() {
    return kernel(1000);
  }

  /** The same runs against {@code superPackets} counted by the agent. */
  static KernelResult kernel(long superPackets) {
    return new KernelResult("tracepoint", "tp_btf", 10, 6.1, List.of(
        new KernelResult.ProgramCost("tp_btf__consume_skb", "consume_skb", 6500, 650_000),
        new KernelResult.ProgramCost("tp_btf__kfree_skb", "kfree_skb", 0, 0),
        new KernelResult.ProgramCost("tp_btf__net_dev_queue", "net_dev_queue", 11_400, 1_140_000)),
        List.of(
            new KernelResult.EventRate("consume_skb", true, 6500, 6500 * 35),
            new KernelResult.EventRate("kfree_skb", true, 0, 0),
            new KernelResult.EventRate("net_dev_queue", true, 11_400, 11_400 * 35),
            new KernelResult.EventRate("net_dev_start_xmit", false, 55_000, 55_000 * 36),
            new KernelResult.EventRate("netif_receive_skb", false, 55_000, 55_000 * 34)),
        superPackets, 45 * superPackets, superPackets, 8_800 * superPackets, List.of("pid 7 (java): net_dev_queue"),
        List.of("tp_btf__net_dev_queue"));
  }

  static AccuracyResult accuracy(long agentSkbs) {
    return new AccuracyResult(List.of(
        new AccuracyResult.DeviceCount("s1-gso-mismatch", "uplink", 1, "up0", agentSkbs, 1000, 45000, 45000,
            65_000_000, 65_000_000, 3, 3),
        new AccuracyResult.DeviceCount("s1-gso-mismatch", "bridge", 1, "br0", 0, 0, 0, 0, 0, 0, 0, 0)), 0);
  }

  /**
   * 9 pairs; the UDP sender at 200 ns per segment without the agent and 204 with it (4 ns × 45 = 180 ns
   * per super-packet against 9,000 ns of segmentation: 2.0 %); iperf3 S0 0.99, S1 0.95.
   */
  static OverheadResult overhead() {
    return overhead(204);
  }

  /** The UDP sender's CPU with the agent: {@code withAgent} against 200 without (per 450,000 segments). */
  static OverheadResult overhead(long withAgent) {
    List<OverheadResult.Run> runs = new ArrayList<>();
    List<OverheadResult.UdpRun> udp = new ArrayList<>();
    List<OverheadResult.Start> starts = new ArrayList<>();
    List<OverheadResult.PpsRun> small = new ArrayList<>();
    for (int p = 0; p < 9; p++) {
      small.add(new OverheadResult.PpsRun(p, true, 96_000));
      small.add(new OverheadResult.PpsRun(p, false, 100_000));
      runs.add(new OverheadResult.Run(p, "S0", true, 19.8, 50, 50));
      runs.add(new OverheadResult.Run(p, "S0", false, 20, 50, 50));
      runs.add(new OverheadResult.Run(p, "S1", true, 9.5, 50, 50));
      runs.add(new OverheadResult.Run(p, "S1", false, 10, 50, 50));
      udp.add(new OverheadResult.UdpRun(p, true, 10_000, 450_000, 450_000L * withAgent, 3_000_000_000L, 10_000, 10_000,
          90_000_000));
      udp.add(new OverheadResult.UdpRun(p, false, 10_000, 450_000, 450_000L * 200, 3_000_000_000L, 0, 0, 0));
      starts.add(new OverheadResult.Start(6.0 + p * 0.1, 6.1 + p * 0.1, 1.5));
    }
    return new OverheadResult(3, 3, runs, udp, starts, small);
  }

  static ScaleResult scale(double p50At1000, long rssAt1000) {
    return scale(2.0, p50At1000, rssAt1000, 96L << 20);
  }

  static ScaleResult scale(double p50At10, double p50At1000, long rssAt1000, long heapCommitted) {
    List<BpfFdinfo.BpfMap> maps = List.of(new BpfFdinfo.BpfMap(1, 5, 16, 88, 4096, 1, 300_000),
        new BpfFdinfo.BpfMap(2, 6, 4, 16, 1, 0, 352));
    ScaleResult.Level l10 = level(10, p50At10, 150L << 20, maps);
    ScaleResult.Level l1000 = level(1000, p50At1000, rssAt1000, maps);
    Map<String, Long> nmt = new LinkedHashMap<>();
    nmt.put("Java Heap", 96L << 20);
    nmt.put("Class", 3L << 20);
    nmt.put("Thread", 3L << 20);
    nmt.put("Code", 12L << 20);
    nmt.put("GC", 1L << 20);
    nmt.put("Shared class space", 12L << 20);
    nmt.put("Metaspace", 18L << 20);
    JvmMemory jvm = new JvmMemory(200L << 20, 180L << 20, 20L << 20, nmt, 160L << 20, heapCommitted, 60L << 20,
        30L << 20, 30, List.of("[B: 13874568 B (125472)"));
    return new ScaleResult("5s (default)", 2, "-Xms32m -Xmx192m -XX:+UseSerialGC", List.of(l10, l1000), jvm);
  }

  private static ScaleResult.Level level(int devices, double p50, long rss, List<BpfFdinfo.BpfMap> maps) {
    Stats.Summary gz = new Stats.Summary(100, p50 / 2, p50, 4 * p50, 5 * p50, p50);
    Stats.Summary plain = new Stats.Summary(100, p50, 2 * p50, 8 * p50, 9 * p50, 2 * p50);
    return new ScaleResult.Level(devices, devices + 20, devices, devices * 30L, 6.0,
        new ScaleResult.Latency("/metrics", "gzip", gz, devices * 120L, "application/openmetrics-text", "gzip"),
        new ScaleResult.Latency("/metrics", "plain", plain, devices * 3000L, "application/openmetrics-text", ""),
        new ScaleResult.Latency("/api/v1/devices", "json", plain, devices * 3000L, "application/json", ""),
        rss, rss + (5L << 20), 0.01, rss + (1L << 20), 0.02, 6.0, maps, 0.004);
  }

  /** The container as deployed at 1,000 devices: 512 MiB limit, 0.1 cores requested, 1 core limit. */
  static ContainerResult container(long cgroupBytes, double idleCores, double scrapedCores) {
    return new ContainerResult("localhost/segscope:bench", 40, "kubectl kustomize", "run --listen 198.18.47.1:9810",
        512L << 20, 256L << 20, 0.1, 1.0, 1000, 1004, 1000, 7.5, cgroupBytes, 20L << 20, cgroupBytes + (30L << 20),
        130L << 20, 150L << 20, 60, idleCores, 60, 15, 4, scrapedCores, new Stats.Summary(4, 20, 30, 40, 40, 30),
        90_000);
  }

  /** 1,000 devices, 128 possible CPUs: Percpu grew by 88 B × 128 × 1,000 ≈ 10.7 MiB, Slab by 1 MiB. */
  static GuestResult guest(int devices, int cpus) {
    MemInfo before = new MemInfo(10L << 20, 200L << 20, 150L << 20, 30L << 20);
    MemInfo with = new MemInfo((10L << 20) + 88L * 128 * 1000, 201L << 20, 151L << 20, 31L << 20);
    MemInfo after = new MemInfo((10L << 20) + 4096, (200L << 20) + 8192, 150L << 20, 30L << 20);
    return new GuestResult("1,maxcpus=" + cpus, "6.1.0-57-amd64", cpus, 1, devices, devices, "kprobe", 170,
        List.of(new BpfFdinfo.BpfMap(1, 5, 16, 88, 4096, 1, 46_137_344)), before, with, after, 150L << 20, "");
  }

  static JmhResult jmh() {
    return new JmhResult(List.of(new JmhResult.Score("scrapeGzip", 1000, 150.0, 10.0, "us/op", 4096),
        new JmhResult.Score("render", 1000, 9000.0, 500.0, "us/op", 3.0 * (1 << 20))), "test");
  }
}

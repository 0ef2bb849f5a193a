package io.segscope.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.bench.common.Results;
import io.segscope.bench.common.RunInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchmarksMarkdownTest {
  private static final List<String> ALL = List.of("kernel", "overhead", "scale", "guest", "jmh");

  /** A run's results directory, filled part by part, and the BENCHMARKS.md rendered from it. */
  private static final class Run {
    private final Path dir;
    private final Results results;

    private Run(Path dir, RunInfo run) {
      this.dir = dir;
      this.results = new Results(dir);
      results.write("run", run);
    }

    /** A run of {@code parts} in which none failed. */
    static Run of(Path dir, String... parts) {
      return new Run(dir, Fixtures.run(List.of(parts), Map.of()));
    }

    /** A run of every part with the default fixtures ({@code guest} left out unless {@code guestPart}). */
    static Run full(Path dir, RunInfo run, boolean guestPart) {
      Run r = new Run(dir, run).with("kernel", Fixtures.kernel()).with("accuracy", Fixtures.accuracy(1000))
          .with("overhead", Fixtures.overhead()).with("scale", Fixtures.scale(12.0, 200L << 20));
      if (guestPart) {
        r.with("guest", Fixtures.guest(1000, 128));
      }
      return r.with("jmh", Fixtures.jmh());
    }

    Run with(String part, Object result) {
      results.write(part, result);
      return this;
    }

    String markdown() throws Exception {
      Path md = dir.resolve("B.md");
      BenchmarksMarkdown.write(results, md);
      return Files.readString(md);
    }
  }

  @Test
  void everyTargetHasItsRowWithTheMeasuredValueAndVerdict(@TempDir Path dir) throws Exception {
    String text = Run.full(dir, Fixtures.run(ALL, Map.of()), true).markdown();
    assertThat(text).contains("| segscope programs' run time ÷ segmentation time measured, S1 (tracepoint mode,"
        + " tp_btf; default timing windows: counting programs always, timing programs 1 s in every 10 s) | 8.68 % | ≤ 5 % | **missed** |");
    assertThat(text).contains("| end-to-end agent cost per software-segmented 64 KiB super-packet ÷ its segmentation"
        + " time (UDP_SEGMENT sender) | 2.0 % | ≤ 10 % | met |");
    assertThat(text).contains("| iperf3 throughput with ÷ without the agent, S0 (median of 9 interleaved pairs) |"
        + " 0.990 | ≥ 0.98 | met |");
    assertThat(text).contains("| 64-byte UDP packets/s with ÷ without the agent, S0 (healthy: nothing segments; median"
        + " of 9 interleaved pairs) | 0.960 | ≥ 0.95 | met |");
    assertThat(text).contains("| iperf3 throughput with ÷ without the agent, S1 (median of 9 interleaved pairs) |"
        + " 0.950 | ≥ 0.97 | **missed** |");
    assertThat(text)
        .contains("| segscope BPF program runs per software-segmented super-packet outside the timing windows, S1 (the"
            + " counting programs' run_cnt ÷ super-packets) | 6.5 | ≤ 5.5 | **missed** |");
    assertThat(text).contains("| /metrics p50 at 1,000 devices (gzip, as Prometheus asks) | 12.0 ms | ≤ 5 ms |"
        + " **missed** |");
    assertThat(text).contains("| /metrics p99 at 1,000 devices (gzip, as Prometheus asks) | 48.0 ms | ≤ 20 ms |"
        + " **missed** |");
    assertThat(text).contains("agent RSS at 1,000 devices (VmRSS after the requests; launcher flags -Xms32m -Xmx192m"
        + " -XX:+UseSerialGC) | 200.0 MiB | ≤ 160 MiB | **missed** |");
    assertThat(text).contains("| kernel BPF map memory at 1,000 devices with 128 possible CPUs (Debian 6.1.0-57-amd64"
        + " guest, -smp 1,maxcpus=128: Percpu + Slab growth) | 11.7 MiB | ≤ 64 MiB | met |");
    assertThat(text).contains("| start to first scrape with probes attached (median of 9 starts) | 6.40 s | ≤ 5 s |"
        + " **missed** |");
    assertThat(text).contains("| counts vs the independent oracle (bpftrace), worst of 4 counts on 1 lab device, S1"
        + " and S2 | 0.000 % | ≤ 0.1 % | met |");
  }

  @Test
  void missesAreExplainedFromTheRunsOwnFigures(@TempDir Path dir) throws Exception {
    String text = Run.full(dir, Fixtures.run(ALL, Map.of()), true).markdown();
    // runs per super-packet: the events' own rates
    assertThat(text).contains("consume_skb fires 6.50 times, net_dev_queue fires 11.40 times (empty programs' runs"
        + " ÷ 1,000 super-packets): hooking these events costs at least 17.9 runs per super-packet");
    assertThat(text).contains("the other 5.50 free other skbs");
    assertThat(text).contains("fire 55.0 (net_dev_start_xmit) and 55.0 (netif_receive_skb) times per super-packet");
    // run time: the floor and what is above it
    assertThat(text).contains("17.9 runs costing 1,790 ns per super-packet. Empty tp_btf programs on the same events"
        + " cost 627 ns per super-packet here (7.1 % of the segmentation time)");
    assertThat(text).contains("tp_btf__consume_skb 65 ns per run × 6.50 runs = 423 ns per super-packet");
    // iperf: the pairs and the UDP figure of the same pairs
    assertThat(text).contains("9 of 9 pairs lost throughput with the agent (ratios 0.950 to 0.950; 9.50 against 10.00"
        + " Gbit/s)");
    assertThat(text).contains("puts the agent's cost at 2.0 % of the CPU per segment, i.e. a throughput ratio of about"
        + " 0.980");
    // /metrics: growth per device between the levels
    assertThat(text).contains("At 10 devices the gzip p50 is 2.0 ms, so it grows 10.1 µs per device.");
    assertThat(text).contains("Serving the cached bytes of one gzip scrape for 1,000 devices takes 150 us/op");
    // RSS: where it goes
    assertThat(text).contains("Java heap 96.0 MiB committed, of which 30.0 MiB live after a full collection");
    assertThat(text).contains("outside NMT (library code, native allocations of libraries) 40.0 MiB");
    assertThat(text).contains("The heap holds 66.0 MiB more than is live");
    assertThat(text).contains("Everything but the Java heap takes 104.0 MiB of that start's RSS; with the heap no"
        + " larger than what is live, its RSS would be about 134.0 MiB, within 160.0 MiB: the heap's sizing is what"
        + " misses the target.");
    // start
    assertThat(text).contains("median 6.40 s of 9 starts (6.00 to 6.80 s); the agent logs a median of 1.50 s");
    // the met figures have no explanation
    assertThat(text).doesNotContain("**end-to-end agent cost per software-segmented 64 KiB super-packet");
  }

  @Test
  void aLatencyThatDoesNotGrowWithTheDevicesAndAnRssNoHeapSettingMeetsAreSaidSo(@TempDir Path dir)
      throws Exception {
    // 14 ms at 10 devices, 12 ms at 1,000; heap 20 MiB of a 200 MiB RSS, 30 MiB of it live
    String text = Run.of(dir, "scale").with("scale", Fixtures.scale(14.0, 12.0, 200L << 20, 20L << 20)).markdown();
    assertThat(text).contains("At 10 devices the gzip p50 is 14.0 ms, no less than at 1,000: the devices do not"
        + " explain it here, the machine's noise does.");
    assertThat(text).doesNotContain("grows -");
    assertThat(text).contains("Everything but the Java heap takes 180.0 MiB of that start's RSS; with the heap no"
        + " larger than what is live, its RSS would be about 210.0 MiB, still above 160.0 MiB: no heap setting meets"
        + " the target, the live heap and the JVM's own memory must shrink.");
  }

  @Test
  void lessCpuWithTheAgentThanWithoutIsNotMeasuredNotMet(@TempDir Path dir) throws Exception {
    // 4 ns per segment less with the agent, in every pair
    String text = Run.of(dir, "overhead").with("overhead", Fixtures.overhead(196)).markdown();
    assertThat(text).containsPattern("\\| end-to-end agent cost per software-segmented 64 KiB super-packet ÷ its"
        + " segmentation time \\(UDP_SEGMENT sender\\) \\| [^|]* \\| ≤ 10 % \\| not measured \\|");
    assertThat(text).contains("with the agent the sender used less CPU, so this run's noise is larger than the"
        + " agent's cost");
  }

  @Test
  void fewerConsumeSkbFiringsThanSuperPacketsSayTheWindowsDidNotMatch(@TempDir Path dir) throws Exception {
    // 6,500 consume_skb firings for 10,000 super-packets
    String text = Run.of(dir, "kernel").with("kernel", Fixtures.kernel(10_000)).markdown();
    // 0.65 runs per super-packet would meet ≤ 5.5, but not from windows that do not match: not judged
    assertThat(text)
        .contains("| segscope BPF program runs per software-segmented super-packet outside the timing windows, S1 (the"
            + " counting programs' run_cnt ÷ super-packets) | 0.7 | ≤ 5.5 | not measured |");
    assertThat(text).contains("(0.7 against ≤ 5.5, not measured): consume_skb fired fewer times than the agent counted"
        + " super-packets");
    assertThat(text).contains("| segscope programs' run time ÷ segmentation time measured, S1 (tracepoint mode,"
        + " tp_btf; default timing windows: counting programs always, timing programs 1 s in every 10 s) | 0.87 % | ≤ 5 % | not measured |");
  }

  @Test
  void theContainerIsJudgedAgainstTheManifestsLimitAndRequest(@TempDir Path dir) throws Exception {
    String text = Run.full(dir, Fixtures.run(List.of("kernel", "overhead", "scale", "jmh", "container"), Map.of()),
        false).with("container", Fixtures.container(120L << 20, 0.05, 0.12)).markdown();
    assertThat(text).contains("| container memory as deployed (its memory cgroup's charge, which the limit is held"
        + " against) at 1,000 devices | 120.0 MiB | ≤ 512.0 MiB (the manifest's limit) | met |");
    assertThat(text).contains("| agent RSS in the container as deployed (VmRSS) at 1,000 devices | 130.0 MiB |"
        + " ≤ 512.0 MiB (the manifest's limit) | met |");
    assertThat(text).contains("| container CPU as deployed, idle (no scrape; the kubelet's probes only) at 1,000"
        + " devices (cgroup CPU time over 60 s) | 0.050 cores | ≤ 0.100 cores (the manifest's request) | met |");
    assertThat(text).contains("| container CPU as deployed while Prometheus scrapes /metrics at 1,000 devices (cgroup"
        + " CPU time over 60 s, a scrape every 15 s) | 0.120 cores | ≤ 0.100 cores (the manifest's request) |"
        + " **missed** |");
    assertThat(text).contains("idle 0.050 cores, scraped 0.120 cores (4 scrapes, p50 30.0 ms, 87.9 KiB gzip each),"
        + " against the 0.100 requested");
    assertThat(text).contains("## 7. The container as deployed: memory and CPU at 1,000 devices");
    assertThat(text).contains("| memory cgroup charge (peak) | 120.0 MiB (150.0 MiB) | limit 512.0 MiB |");
    assertThat(text).contains("| working set (charge − inactive files) | 100.0 MiB | request 256.0 MiB |");
    // without the part: not measured, saying why
    String without = Run.full(dir.resolve("b"), Fixtures.run(ALL, Map.of()), false).markdown();
    assertThat(without).contains("| container memory as deployed (its memory cgroup's charge, which the limit is"
        + " held against) at 1,000 devices | — | ≤ the manifest's memory limit | not measured |");
    assertThat(without).contains("## 7. The container as deployed: memory and CPU at 1,000 devices\n\nNot measured:"
        + " not run (`--parts`).");
  }

  @Test
  void aPartThatDidNotRunOrFailedLeavesItsFiguresNotMeasuredWithTheReason(@TempDir Path dir) throws Exception {
    String text = Run.full(dir, Fixtures.run(List.of("kernel", "overhead", "scale", "jmh", "guest"),
        Map.of("guest", "IllegalStateException: boom")), false).markdown();
    assertThat(text).contains("| kernel BPF map memory at 1,000 devices with 128 possible CPUs (Debian 6.1 guest:"
        + " Percpu + Slab growth) | — | ≤ 64 MiB | not measured |");
    assertThat(text).contains("not measured): part guest failed: IllegalStateException: boom");
    assertThat(text).contains("| **part guest failed** | IllegalStateException: boom |");
  }

  @Test
  void aQuickRunsSmallerCountsAreReportedButNotJudged(@TempDir Path dir) throws Exception {
    String text = Run.of(dir, "guest").with("guest", Fixtures.guest(100, 128)).markdown();
    assertThat(text).contains("| kernel BPF map memory at 100 devices with 128 possible CPUs")
        .contains("| not measured |")
        .contains("measured at 100 devices and 128 possible CPUs, not 1,000 and 128");
    assertThat(text).contains("| Percpu | 10.0 MiB | 20.7 MiB | 10.0 MiB | 10.7 MiB | 10.7 MiB |");
  }
}

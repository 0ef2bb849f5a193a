package io.segscope.bench.report;

import static io.segscope.bench.report.Fmt.num;

import io.segscope.bench.part.OverheadResult;
import java.util.List;
import java.util.function.Function;

/**
 * The section of BENCHMARKS.md about the agent's end-to-end cost: the UDP_SEGMENT sender's CPU per
 * segment with and without the agent, iperf3's throughput and CPU ratios, and the agent's start times.
 * Part of {@link BenchmarksMarkdown}.
 */
final class OverheadSection {
  private final StringBuilder md;
  private final OverheadResult overhead;
  /** Why a part's figures are missing ({@link BenchmarksMarkdown}'s reason). */
  private final Function<String, String> why;

  OverheadSection(StringBuilder md, OverheadResult overhead, Function<String, String> why) {
    this.md = md;
    this.overhead = overhead;
    this.why = why;
  }

  void write() {
    md.append("## 3. End-to-end cost: a UDP_SEGMENT sender, iperf3, agent starts\n\n");
    if (overhead == null) {
      md.append("Not measured: ").append(why.apply("overhead")).append(".\n\n");
      return;
    }
    int pairs = overhead.udp().stream().mapToInt(OverheadResult.UdpRun::pair).max().orElse(-1) + 1;
    md.append(pairs).append(" pairs of (agent running, no agent), the order alternating from pair to pair;")
        .append(" the agent started fresh for each pair with the launcher's flags and nothing else, measured once")
        .append(" its CPU use had settled, then again after one untimed second of every path (the work its first")
        .append(" traffic brings: classes loaded and compiled). Each half, after the same warm-up: the UDP sender for ")
        .append(num(overhead.udpSeconds(), 0))
        .append(" s, then iperf3 S0 and S1 for ").append(num(overhead.iperfSeconds(), 0)).append(" s each")
        .append(overhead.udpFrozen().isEmpty() ? "" : "; in the half with the agent, one more UDP round right after"
            + " the first with the agent's JVM stopped (SIGSTOP) and its programs attached")
        .append(".\n\n");
    OverheadResult.Spread with = overhead.udpNanosPerSegment(true);
    OverheadResult.Spread without = overhead.udpNanosPerSegment(false);
    OverheadResult.Spread d = overhead.udpCostPerSegment();
    OverheadResult.Spread g = overhead.udpSegmentationNanos();
    double segs = overhead.udpSegmentsPerSuperPacket();
    md.append("**UDP_SEGMENT sender** (`testkit/src/main/resources/io/segscope/lab/udp_gso_send.c`: 63,000-byte")
        .append(" super-packets cut at 1,400 bytes, ").append(num(segs, 0)).append(" segments each, on a veth with")
        .append(" `tx-udp-segmentation off`, so the kernel segments every one in software in the sender's context;")
        .append(" CPU = the sender's own user + system time):\n\n");
    md.append("| | median | min | max |\n| --- | ---: | ---: | ---: |\n");
    spreadRow("sender CPU ns per segment, agent running", with, 1);
    spreadRow("sender CPU ns per segment, no agent", without, 1);
    spreadRow("difference per pair, ns per segment", d, 1);
    if (!overhead.udpFrozen().isEmpty()) {
      spreadRow("sender CPU ns per segment, the agent's programs attached, its JVM stopped (SIGSTOP)",
          overhead.udpFrozenNanosPerSegment(), 1);
      spreadRow("difference per pair, JVM stopped − no agent, ns per segment (the programs' share)",
          overhead.udpFrozenCostPerSegment(), 1);
    }
    spreadRow("segmentation time per super-packet the agent measured, ns", g, 0);
    md.append('\n');
    if (d.n() > 0 && g.n() > 0) {
      md.append("Agent cost per super-packet: ").append(num(d.median(), 1)).append(" ns × ").append(num(segs, 0))
          .append(" = ").append(num(d.median() * segs, 0)).append(" ns, ")
          .append(Fmt.pct(d.median() * segs / g.median(), 1)).append(" of its segmentation time.\n\n");
    }
    iperf();
    starts();
  }

  /** iperf3 S0 and S1: throughput and CPU, with the agent against without. */
  private void iperf() {
    md.append("**iperf3 TCP**, per pair with ÷ without the agent: median [min – max]. CPU is iperf3's own")
        .append(" `cpu_utilization_percent` (sender, receiver); on 2 shared cores the softirq work of a veth path")
        .append(" lands on whichever process runs, so the CPU ratios are noisy.\n\n");
    md.append(
        "| scenario | pairs | Gbit/s with | Gbit/s without | throughput ratio | sender CPU ratio | receiver CPU ratio |\n")
        .append("| --- | ---: | ---: | ---: | --- | --- | --- |\n");
    for (String s : List.of("S0", "S1")) {
      OverheadResult.Spread t = overhead.throughputRatio(s);
      md.append("| ").append(s).append(" | ").append(t.n()).append(" | ").append(num(overhead.medianGbps(s, true), 2))
          .append(" | ").append(num(overhead.medianGbps(s, false), 2)).append(" | ").append(spread(t, 3))
          .append(" | ").append(spread(overhead.senderCpuRatio(s), 3)).append(" | ")
          .append(spread(overhead.receiverCpuRatio(s), 3)).append(" |\n");
    }
    md.append('\n');
  }

  /** How long the agent took to start, in every pair. */
  private void starts() {
    OverheadResult.Spread f = overhead.firstScrape();
    OverheadResult.Spread ready = OverheadResult.Spread.of(overhead.starts().stream()
        .map(OverheadResult.Start::readySeconds).toList());
    OverheadResult.Spread attach = OverheadResult.Spread.of(overhead.starts().stream()
        .map(OverheadResult.Start::attachSeconds).filter(a -> a >= 0).toList());
    md.append("**Agent starts** (").append(f.n()).append("): spawn to the first /metrics with its programs attached ")
        .append(spread(f, 2)).append(" s; to /readyz ").append(spread(ready, 2))
        .append(" s; of which planning, compiling (in a child JVM) and attaching, as the agent logs it, ")
        .append(spread(attach, 2)).append(" s.\n\n");
  }

  private void spreadRow(String label, OverheadResult.Spread s, int decimals) {
    md.append("| ").append(label).append(" | ").append(num(s.median(), decimals)).append(" | ")
        .append(num(s.min(), decimals)).append(" | ").append(num(s.max(), decimals)).append(" |\n");
  }

  private static String spread(OverheadResult.Spread s, int decimals) {
    return s.n() == 0 ? "—" : num(s.median(), decimals) + " [" + num(s.min(), decimals) + " – "
        + num(s.max(), decimals) + "]";
  }
}

package io.segscope.bench.part;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.bench.agent.AgentProcess;
import io.segscope.bench.common.Results;
import io.segscope.lab.IperfResult;
import io.segscope.lab.Lab;
import io.segscope.lab.Netns;
import io.segscope.lab.Scenarios;
import io.segscope.lab.Topology;
import io.segscope.lab.UdpGsoSender;
import io.segscope.testkit.PromText;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Part 2. In one lab: S0 (the healthy S1 topology), S1, and a veth pair whose sender side cannot
 * segment UDP ({@code tx-udp-segmentation off}), so every UDP_SEGMENT super-packet is cut in software
 * in the sender's context. Pairs of (agent running, agent stopped), the order alternating from pair to
 * pair so drift on the machine favours neither; each half runs the UDP round, then iperf3 S0 and S1.
 * The agent is started fresh for each pair with the launcher's flags and nothing else (default
 * configuration); its start timings are recorded. In the half with the agent, one more UDP round runs with its
 * JVM stopped (SIGSTOP) and its programs attached, which parts the agent's cost into its programs' and its user
 * space's.
 */
public final class OverheadPart {
  private static final Logger LOG = Logger.getLogger(OverheadPart.class.getName());
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String UDP_NET = "198.18.210.";
  static final int UDP_PORT = 5400;
  static final int UDP_GSO = 1400;
  static final int UDP_SIZE = 63000;
  /** The datagram size of the small-packet run: a DNS or VoIP host's packets. */
  static final int SMALL_UDP = 64;
  /** Each path's untimed run before a half is measured. */
  static final Duration WARM_UP = Duration.ofSeconds(1);

  private final BenchConfig config;
  private final Results results;

  public OverheadPart(BenchConfig config, Results results) {
    this.config = config;
    this.results = results;
  }

  public OverheadResult run() throws Exception {
    Rounds r = new Rounds();
    OverheadResult.UdpRun timingReference;
    try (Lab lab = Lab.create("bench-overhead")) {
      List<Topology> tcp = List.of(Scenarios.s1GsoMismatch(lab, true), Scenarios.s1GsoMismatch(lab, false));
      Netns ua = lab.namespace("udpa");
      Netns ub = lab.namespace("udpb");
      lab.veth(ua, "ua0", ub, "ub0");
      lab.address(ua, "ua0", UDP_NET + "1/24");
      lab.address(ub, "ub0", UDP_NET + "2/24");
      lab.ethtoolK(ua, "ua0", "tx-udp-segmentation", "off");
      UdpGsoSender udp = UdpGsoSender.build(lab.workDir());
      Paths paths = new Paths(lab, tcp, ua, udp, Map.of("netns", Long.toString(ua.inode()), "device", "ua0"));
      try (UdpGsoSender.Sink sink = udp.sink(ub, UDP_NET + "2", UDP_PORT, lab.workDir())) {
        // one untimed warm-up of every path
        udp.send(ua, UDP_NET + "2", UDP_PORT, UDP_GSO, UDP_SIZE, Duration.ofSeconds(1));
        for (Topology t : tcp) {
          lab.iperf(t.sender(), t.receiver(), t.receiverAddr(), Duration.ofSeconds(1));
        }
        for (int pair = 0; pair < config.overheadPairs(); pair++) {
          boolean withFirst = pair % 2 == 0;
          for (boolean with : new boolean[] {withFirst, !withFirst}) {
            round(paths, pair, with, r);
          }
        }
        timingReference = timingReference(paths);
        sink.stop();
      }
    }
    OverheadResult result = new OverheadResult(config.overheadRun().toMillis() / 1000.0,
        config.udpRound().toMillis() / 1000.0, r.runs, r.udpRuns, r.starts, r.smallUdp, timingReference,
        r.udpFrozen);
    results.write("overhead", result);
    return result;
  }

  /** The paths measured: the two TCP topologies and the UDP pair ({@code udpDevice}: its sender's series). */
  private record Paths(Lab lab, List<Topology> tcp, Netns ua, UdpGsoSender udp, Map<String, String> udpDevice) {}

  /** What the rounds measured, in their order. */
  private static final class Rounds {
    final List<OverheadResult.Run> runs = new ArrayList<>();
    final List<OverheadResult.UdpRun> udpRuns = new ArrayList<>();
    final List<OverheadResult.Start> starts = new ArrayList<>();
    final List<OverheadResult.PpsRun> smallUdp = new ArrayList<>();
    final List<OverheadResult.UdpRun> udpFrozen = new ArrayList<>();
  }

  /** One round of every path, with a fresh agent running or without one. */
  private void round(Paths p, int pair, boolean with, Rounds r) throws Exception {
    AgentProcess agent = null;
    try {
      if (with) {
        Path log = results.dir().resolve("agent-overhead-" + pair + ".log");
        agent = AgentProcess.start(config.launcher(), config.agentJar(), log, List.of());
        agent.awaitReady(Duration.ofSeconds(120));
        r.starts.add(new OverheadResult.Start(agent.firstScrapeSeconds(), agent.readySeconds(),
            attachSeconds(agent.log())));
        // its start-up work done (JIT, first reads) before measuring
        agent.awaitQuiet(0.05, Duration.ofMillis(500), Duration.ofSeconds(20));
      }
      // and the work the first traffic brings (classes of the paths that count, time and advise, loaded and
      // compiled on the first segmentation it reads: perf at 3 s after the start showed its map reader in the
      // class loader and verifier), in both halves alike
      warmUp(p);
      if (agent != null) {
        agent.awaitQuiet(0.05, Duration.ofMillis(500), Duration.ofSeconds(20));
      }
      UdpGsoSender.Sent sent = p.udp().send(p.ua(), UDP_NET + "2", UDP_PORT, UDP_GSO, UDP_SIZE, config.udpRound());
      Instant udpEnd = Instant.now();
      if (agent != null) {
        r.udpFrozen.add(frozenUdpRound(p, pair, agent));
      }
      for (Topology t : p.tcp()) {
        IperfResult res = p.lab().iperf(t.sender(), t.receiver(), t.receiverAddr(), config.overheadRun());
        double[] cpu = cpu(res);
        r.runs.add(new OverheadResult.Run(pair, label(t), with, res.gbitsPerSecond(), cpu[0], cpu[1]));
      }
      Topology s0 = p.tcp().get(0);
      IperfResult small = p.lab().iperfUdp(s0.sender(), s0.receiver(), s0.receiverAddr(), config.overheadRun(),
          SMALL_UDP);
      r.smallUdp.add(new OverheadResult.PpsRun(pair, with, packetsPerSecond(small)));
      // the agent started after every earlier round: its totals for the device are this round's
      PromText after = agent == null ? null : agent.scrapeAfter(udpEnd, Duration.ofSeconds(30));
      r.udpRuns.add(udpRun(pair, with, sent, after, p.udpDevice()));
      LOG.info(String.format("pair %d %s: UDP %.1f ns/segment, S0 %.2f, S1 %.2f Gbit/s", pair,
          with ? "with agent" : "without", sent.cpuNanosPerSegment(), r.runs.get(r.runs.size() - 2).gbps(),
          r.runs.get(r.runs.size() - 1).gbps()));
    } finally {
      if (agent != null) {
        agent.close();
      }
    }
  }

  /** One second of every path: the UDP sender, iperf3 S0 and S1, 64-byte UDP (untimed). */
  private void warmUp(Paths p) throws Exception {
    p.udp().send(p.ua(), UDP_NET + "2", UDP_PORT, UDP_GSO, UDP_SIZE, WARM_UP);
    for (Topology t : p.tcp()) {
      p.lab().iperf(t.sender(), t.receiver(), t.receiverAddr(), WARM_UP);
    }
    Topology s0 = p.tcp().get(0);
    p.lab().iperfUdp(s0.sender(), s0.receiver(), s0.receiverAddr(), WARM_UP, SMALL_UDP);
  }

  /**
   * One more UDP round with the agent's JVM stopped (SIGSTOP) and its programs attached: the kernel's share of the
   * agent's cost, apart from its user-space work. Its counts are not read (the agent reads nothing while stopped).
   */
  private OverheadResult.UdpRun frozenUdpRound(Paths p, int pair, AgentProcess agent) throws Exception {
    agent.freeze();
    try {
      UdpGsoSender.Sent sent = p.udp().send(p.ua(), UDP_NET + "2", UDP_PORT, UDP_GSO, UDP_SIZE, config.udpRound());
      return udpRun(pair, true, sent, null, p.udpDevice());
    } finally {
      agent.thaw();
    }
  }

  /** A UDP round with the agent's counts for the sender's device from {@code after} (zero without an agent). */
  private static OverheadResult.UdpRun udpRun(int pair, boolean with, UdpGsoSender.Sent sent, PromText after,
      Map<String, String> udpDevice) {
    long skbs = 0;
    long timed = 0;
    double nanos = 0;
    if (after != null) {
      skbs = Math.round(after.sum("segscope_gso_sw_skbs_total", udpDevice));
      timed = Math.round(after.sum("segscope_gso_sw_duration_seconds_count", udpDevice));
      nanos = after.sum("segscope_gso_sw_duration_seconds_sum", udpDevice) * 1e9;
    }
    return new OverheadResult.UdpRun(pair, with, sent.sends(), sent.segments(), sent.cpuNanos(), sent.wallNanos(),
        skbs, timed, nanos);
  }

  /**
   * The denominator of the end-to-end figure: the UDP super-packet's segmentation time, from one more round
   * with an agent that times every segmentation (the pairs' agents run the default sampling windows, whose
   * cycle is longer than a round).
   */
  private OverheadResult.UdpRun timingReference(Paths p) throws Exception {
    Path log = results.dir().resolve("agent-overhead-timing.log");
    try (AgentProcess agent = AgentProcess.start(config.launcher(), config.agentJar(), log, List.of(),
        "--timing-window", "always")) {
      agent.awaitReady(Duration.ofSeconds(120));
      agent.awaitQuiet(0.05, Duration.ofMillis(500), Duration.ofSeconds(20));
      UdpGsoSender.Sent sent = p.udp().send(p.ua(), UDP_NET + "2", UDP_PORT, UDP_GSO, UDP_SIZE, config.udpRound());
      PromText after = agent.scrapeAfter(Instant.now(), Duration.ofSeconds(30));
      return udpRun(-1, true, sent, after, p.udpDevice());
    }
  }

  private static String label(Topology t) {
    return t.name().endsWith("-healthy") ? "S0" : "S1";
  }

  /** "probes attached in N ms" from the agent's log, in seconds; -1 when absent. */
  static double attachSeconds(String log) {
    Matcher m = Pattern.compile("probes attached in (\\d+) ms").matcher(log);
    return m.find() ? Long.parseLong(m.group(1)) / 1000.0 : -1;
  }

  /** The sender's packets per second from iperf3 -u -J's end.sum_sent. */
  static double packetsPerSecond(IperfResult r) {
    try {
      JsonNode s = JSON.readTree(r.rawJson()).path("end").path("sum_sent");
      if (!s.path("packets").isNumber() || !(s.path("seconds").asDouble() > 0)) {
        throw new IllegalStateException("read iperf3 UDP packets: end.sum_sent.packets/seconds missing");
      }
      return s.path("packets").asDouble() / s.path("seconds").asDouble();
    } catch (IOException e) {
      throw new IllegalStateException("read iperf3 UDP packets: " + e.getMessage(), e);
    }
  }

  /** {sender, receiver} CPU percent from iperf3 -J's end.cpu_utilization_percent. */
  static double[] cpu(IperfResult r) {
    try {
      JsonNode c = JSON.readTree(r.rawJson()).path("end").path("cpu_utilization_percent");
      if (!c.path("host_total").isNumber() || !c.path("remote_total").isNumber()) {
        throw new IllegalStateException("read iperf3 CPU: end.cpu_utilization_percent.host_total/remote_total missing");
      }
      return new double[] {c.path("host_total").asDouble(), c.path("remote_total").asDouble()};
    } catch (IOException e) {
      throw new IllegalStateException("read iperf3 CPU: " + e.getMessage(), e);
    }
  }
}

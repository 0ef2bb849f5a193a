package io.segscope.bench.part;

import io.segscope.bench.agent.AgentProcess;
import io.segscope.bench.agent.Launcher;
import io.segscope.bench.common.Results;
import io.segscope.bench.kernel.BpfFdinfo;
import io.segscope.bench.kernel.ProgramNames;
import io.segscope.lab.IperfResult;
import io.segscope.lab.Lab;
import io.segscope.lab.Scenarios;
import io.segscope.lab.Topology;
import io.segscope.probes.BpfStats;
import io.segscope.testkit.PromText;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.logging.Logger;

/**
 * Part 4b, run inside the guest ({@code segscope-bench guest-cost}): what kprobe and fentry mode cost in Debian's
 * 6.1 kernel, where users' distribution kernels put segscope. Everything runs under qemu's emulation (TCG, one
 * vCPU): times are emulated, the ratios are what counts.
 *
 * <ol>
 *   <li>Per mode, an agent with the default flags ({@code --probe-mode MODE}): program runs over
 *       {@link #HEALTHY} of healthy S0 before anything was segmented (no window opens); 64-byte UDP at full rate on
 *       S0, {@code pairs} interleaved pairs of rounds with the agent running and stopped (SIGSTOP: restarting it
 *       takes minutes under emulation; its programs stay attached in both halves, and their runs over all rounds
 *       are reported); then S1 in a stretch between two sampling windows (the counting programs alone).
 *   <li>Per mode, an agent with {@code --timing-window always}: S1 with every program attached, as inside a window.
 * </ol>
 *
 * S1: the uplink segments every super-packet at {@code validate_xmit_skb}. bpf_stats is on only while a stretch is
 * measured. The programs' run time over a stretch is divided by its software-segmented super-packets (the agent's
 * count) × the mean segmentation time, which the agent of the last step timed itself (fentry mode's, from its
 * fentry stamp to its fexit: {@link #segmentationTime}). A bpftrace kprobe/kretprobe pair was the first choice and
 * was dropped: under the guest's emulation on a loaded host bpftrace did not exit within 120 s of SIGTERM.
 */
public final class GuestCost {
  private static final Logger LOG = Logger.getLogger(GuestCost.class.getName());
  static final Duration S1_TRAFFIC = Duration.ofSeconds(8);
  static final Duration HEALTHY = Duration.ofSeconds(10);
  static final Duration UDP_ROUND = Duration.ofSeconds(3);
  static final int SMALL_UDP = OverheadPart.SMALL_UDP;
  static final List<String> MODES = List.of("fentry", "kprobe");
  private static final Duration READY = Duration.ofSeconds(900);
  private static final Duration READ_WAIT = Duration.ofSeconds(60);
  /** The default window and cycle ({@code Timing.DEFAULT}): 1 s in every 10 s. */
  static final double WINDOW_SHARE = 1.0 / 10.0;

  private GuestCost() {}

  public static GuestCostResult run(Launcher launcher, Path agentJar, Path out, int pairs) throws Exception {
    Results results = new Results(out);
    GuestCostResult r;
    try (Lab lab = Lab.create("bench-gcost")) {
      Topology s1 = Scenarios.s1GsoMismatch(lab, false);
      Topology s0 = Scenarios.s1GsoMismatch(lab, true);
      List<GuestCostResult.ModeCost> modes = new ArrayList<>();
      for (String mode : MODES) {
        modes.add(mode(launcher, agentJar, out, lab, s0, s1, mode, pairs));
        results.write("guest-cost", new GuestCostResult(System.getProperty("os.version"), segmentationTime(modes),
            modes, ""));
      }
      GuestCostResult.SegmentationTime seg = segmentationTime(modes);
      LOG.info(String.format("guest cost: segmentation time from %s mode's timing: %d timed, mean %.1f us (emulated)",
          seg.mode(), seg.calls(), seg.meanNanos() / 1e3));
      r = new GuestCostResult(System.getProperty("os.version"), seg, modes, "");
    }
    results.write("guest-cost", r);
    return r;
  }

  /**
   * The segmentation time: what the agent timed with {@code --timing-window always} over S1, fentry mode's if it
   * timed any (fentry's stamp to fexit: the tighter bracket), else the first mode's that did.
   */
  static GuestCostResult.SegmentationTime segmentationTime(List<GuestCostResult.ModeCost> modes) {
    GuestCostResult.SegmentationTime best = null;
    for (GuestCostResult.ModeCost m : modes) {
      GuestCostResult.Stretch in = m.inside();
      if (in == null || in.timed() <= 0) {
        continue;
      }
      GuestCostResult.SegmentationTime t = new GuestCostResult.SegmentationTime(m.mode(), in.seconds(), in.timed(),
          Math.round(in.timedNanos()));
      if (best == null || m.mode().equals("fentry")) {
        best = t;
      }
    }
    return best;
  }

  private static GuestCostResult.ModeCost mode(Launcher launcher, Path agentJar, Path out, Lab lab, Topology s0,
      Topology s1, String mode, int pairs) throws Exception {
    double start;
    Map<String, Long> healthy;
    List<GuestCostResult.PpsPair> pps = new ArrayList<>();
    Map<String, Long> pairRuns;
    GuestCostResult.Stretch outside;
    LOG.info("guest cost: " + mode + " mode, default windows");
    try (AgentProcess agent = AgentProcess.start(launcher, agentJar, out.resolve("agent-" + mode + ".log"), List.of(),
        "--probe-mode", mode)) {
      agent.awaitReady(READY);
      start = agent.firstScrapeSeconds();
      agent.awaitQuiet(0.05, Duration.ofSeconds(1), Duration.ofSeconds(60));
      // healthy S0 before anything was segmented: no sampling window opens
      try (BpfStats stats = BpfStats.enable()) {
        Map<Integer, long[]> p0 = programs(agent.pid());
        lab.iperf(s0.sender(), s0.receiver(), s0.receiverAddr(), HEALTHY);
        healthy = runs(p0, programs(agent.pid()));
      }
      LOG.info("guest cost: " + mode + " healthy S0 runs " + healthy);
      try (BpfStats stats = BpfStats.enable()) {
        Map<Integer, long[]> p0 = programs(agent.pid());
        for (int pair = 0; pair < pairs; pair++) {
          boolean withFirst = pair % 2 == 0;
          double with = 0;
          double without = 0;
          for (boolean w : new boolean[] {withFirst, !withFirst}) {
            if (w) {
              with = smallUdp(lab, s0);
            } else {
              signal(agent.pid(), "STOP");
              try {
                without = smallUdp(lab, s0);
              } finally {
                signal(agent.pid(), "CONT");
              }
            }
          }
          pps.add(new GuestCostResult.PpsPair(pair, withFirst, with, without));
          LOG.info(String.format("guest cost: %s pair %d: %.0f / %.0f packets/s", mode, pair, with, without));
        }
        pairRuns = runs(p0, programs(agent.pid()));
      }
      // S1: the first segmentation opens a window; the stretch is measured after it closed, before the next
      lab.iperf(s1.sender(), s1.receiver(), s1.receiverAddr(), Duration.ofSeconds(2));
      awaitWindowClosed(agent);
      outside = stretch(agent, lab, s1);
      if (outside.windowTouched()) {
        LOG.info("guest cost: a window opened during the outside stretch; once more after it closed");
        awaitWindowClosed(agent);
        outside = stretch(agent, lab, s1);
      }
      agent.stop();
    }
    LOG.info("guest cost: " + mode + " mode, --timing-window always");
    GuestCostResult.Stretch inside;
    try (AgentProcess agent = AgentProcess.start(launcher, agentJar, out.resolve("agent-" + mode + "-always.log"),
        List.of(), "--probe-mode", mode, "--timing-window", "always")) {
      agent.awaitReady(READY);
      agent.awaitQuiet(0.05, Duration.ofSeconds(1), Duration.ofSeconds(60));
      lab.iperf(s1.sender(), s1.receiver(), s1.receiverAddr(), Duration.ofSeconds(2));
      inside = stretch(agent, lab, s1);
      agent.stop();
    }
    return new GuestCostResult.ModeCost(mode, start, outside, inside, healthy, HEALTHY.toMillis() / 1000.0, pps,
        pairRuns, WINDOW_SHARE);
  }

  /** S1 for {@link #S1_TRAFFIC} with bpf_stats on, between two map reads of the agent. */
  private static GuestCostResult.Stretch stretch(AgentProcess agent, Lab lab, Topology s1) throws Exception {
    try (BpfStats stats = BpfStats.enable()) {
      PromText m0 = agent.scrapeAfter(Instant.now(), READ_WAIT);
      Map<Integer, long[]> p0 = programs(agent.pid());
      long t0 = System.nanoTime();
      lab.iperf(s1.sender(), s1.receiver(), s1.receiverAddr(), S1_TRAFFIC);
      PromText m1 = agent.scrapeAfter(Instant.now(), READ_WAIT);
      Map<Integer, long[]> p1 = programs(agent.pid());
      double seconds = (System.nanoTime() - t0) / 1e9;
      Map<Integer, String> names = ProgramNames.kernelNames();
      List<GuestCostResult.ProgramCost> programs = new ArrayList<>();
      p1.forEach((id, b) -> {
        long[] a = p0.getOrDefault(id, new long[2]);
        if (b[1] - a[1] > 0) {
          programs.add(new GuestCostResult.ProgramCost(names.getOrDefault(id, "id " + id), b[1] - a[1], b[0] - a[0]));
        }
      });
      Map<String, Long> sites = new TreeMap<>();
      for (PromText.Sample s : m1.samples("segscope_gso_sw_site_skbs_total")) {
        String site = s.labels().getOrDefault("site", "");
        long d = Math.round(s.value() - m0.sum("segscope_gso_sw_site_skbs_total", s.labels()));
        if (d != 0) {
          sites.merge(site, d, Long::sum);
        }
      }
      boolean touched = m1.sum("segscope_timing_sampled_seconds_total", Map.of()) != m0
          .sum("segscope_timing_sampled_seconds_total", Map.of());
      return new GuestCostResult.Stretch(seconds, delta(m0, m1, "segscope_gso_sw_skbs_total"),
          delta(m0, m1, "segscope_gso_sw_duration_seconds_count"),
          (m1.sum("segscope_gso_sw_duration_seconds_sum", Map.of())
              - m0.sum("segscope_gso_sw_duration_seconds_sum", Map.of())) * 1e9,
          programs, sites, touched);
    }
  }

  private static long delta(PromText a, PromText b, String metric) {
    return Math.round(b.sum(metric, Map.of()) - a.sum(metric, Map.of()));
  }

  /**
   * Waits until a sampling window has opened (segmentation seen) and closed again: the timing seconds grew and
   * then stayed put over two map reads.
   */
  private static void awaitWindowClosed(AgentProcess agent) {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    double last = -1;
    while (System.nanoTime() < deadline) {
      PromText m = agent.scrapeAfter(Instant.now(), READ_WAIT);
      double sampled = m.sum("segscope_timing_sampled_seconds_total", Map.of());
      if (sampled > 0 && sampled == last) {
        return;
      }
      last = sampled;
    }
    throw new IllegalStateException("wait for a sampling window to close: none within 120 s");
  }

  /** Packets per second of one 64-byte UDP round on healthy S0. */
  private static double smallUdp(Lab lab, Topology s0) {
    IperfResult r = lab.iperfUdp(s0.sender(), s0.receiver(), s0.receiverAddr(), UDP_ROUND, SMALL_UDP);
    return OverheadPart.packetsPerSecond(r);
  }

  /** Every program {@code pid} holds: id → {run time ns, runs}. */
  private static Map<Integer, long[]> programs(long pid) {
    Map<Integer, long[]> out = new TreeMap<>();
    for (BpfFdinfo.Program p : BpfFdinfo.of(pid).programs()) {
      out.put(p.id(), new long[] {p.runTimeNanos(), p.runCount()});
    }
    return out;
  }

  /** Runs per program (kernel name) from {@code before} to {@code after}, programs that ran only. */
  private static Map<String, Long> runs(Map<Integer, long[]> before, Map<Integer, long[]> after) {
    Map<Integer, String> names = ProgramNames.kernelNames();
    Map<String, Long> out = new TreeMap<>();
    after.forEach((id, b) -> {
      long d = b[1] - before.getOrDefault(id, new long[2])[1];
      if (d > 0) {
        out.merge(names.getOrDefault(id, "id " + id), d, Long::sum);
      }
    });
    return out;
  }

  private static void signal(long pid, String sig) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).inheritIO().start();
    if (p.waitFor() != 0) {
      throw new IllegalStateException("kill -" + sig + " " + pid + ": exit " + p.exitValue());
    }
  }
}

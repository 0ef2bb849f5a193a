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
 *       are reported); then S1 in a stretch between two sampling windows (the counting programs alone): it starts
 *       the moment a window closes (the agent's BPF links and kprobe perf-event fds fall back to their count outside
 *       windows) and lasts {@link #S1_TRAFFIC}, inside the 9 s a default window leaves on average before the next one
 *       (each opens at a random moment of its 10 s cycle: 0 to 18 s after the last closed); a timing program that ran in
 *       it means a window was open, and it is tried again (at most {@link #OUTSIDE_TRIES} times; the last try's
 *       figures are kept and the report says "not measured" when every try was touched); then S1 for {@link #NEAR}
 *       through the next windows, whose timed durations are the outside stretch's segmentation time.
 *   <li>Per mode, an agent with {@code --timing-window always}: S1 with every program attached, as inside a window,
 *       divided by its own timing of the same traffic.
 * </ol>
 *
 * S1: the uplink segments every super-packet at {@code validate_xmit_skb}. bpf_stats is on only while a stretch is
 * measured. The programs' run time over a stretch is divided by its software-segmented super-packets (the agent's
 * count) × the mean segmentation time the same agent timed at about the same time (the emulated vCPU's speed moves
 * with the host's load: in the run of 2026-12-07 21:22 UTC every program, the timing programs included, took 1.6 to
 * 2.5x longer per run in the outside stretch than in the always-on agent's, minutes later); {@link #segmentationTime} (fentry
 * mode's always-on timing) is the fallback and the figure reported as the segmentation time. A bpftrace kprobe/kretprobe pair was the first choice and
 * was dropped: under the guest's emulation on a loaded host bpftrace did not exit within 120 s of SIGTERM.
 */
public final class GuestCost {
  private static final Logger LOG = Logger.getLogger(GuestCost.class.getName());
  /**
   * The outside stretch's traffic. It must fit, with iperf3's start under emulation (1–3 s), between two default
   * windows: 9 s on average from one window's close to the next one's open (1 s at a random moment of every 10 s: 0
   * to 18 s; about 6 tries in 10 leave the 8 s it needs).
   */
  static final Duration S1_TRAFFIC = Duration.ofSeconds(5);
  /** S1 right after the outside stretch, through one or two default windows, for the segmentation time then. */
  static final Duration NEAR = Duration.ofSeconds(14);
  /** How often the outside stretch is tried when a window opened during it (all 6 touched: 0.4 % of runs). */
  static final int OUTSIDE_TRIES = 6;
  /**
   * The timing programs by kernel name (15 characters): attached only in sampling windows; one of them running in
   * the outside stretch means a window was open.
   */
  static final java.util.Set<String> TIMING_PROGRAMS = java.util.Set.of("tp_btf__net_dev", "raw_tp__net_dev",
      "tp__net_dev_que", "kfunc____skb_gs", "kretprobe____sk");
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
    List<GuestCostResult.PpsPair> pps;
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
        pps = ppsPairs(agent, lab, s0, mode, pairs);
        pairRuns = runs(p0, programs(agent.pid()));
      }
      // S1: the first segmentation opens a window; the stretch starts the moment a window closes (its programs'
      // attachments go), so its traffic runs before the next one opens (9 s later on average)
      int base = attachments(agent.pid());
      lab.iperf(s1.sender(), s1.receiver(), s1.receiverAddr(), Duration.ofSeconds(2));
      outside = null;
      for (int i = 0; i < OUTSIDE_TRIES && (outside == null || outside.windowTouched()); i++) {
        if (outside != null) {
          LOG.info("guest cost: a window was open during the outside stretch (" + outside.programs()
              + "); once more after the next window");
        }
        outside = stretch(agent, lab, s1, base);
      }
      outside = outside.withNear(near(agent, lab, s1, mode));
      agent.stop();
    }
    LOG.info("guest cost: " + mode + " mode, --timing-window always");
    GuestCostResult.Stretch inside;
    try (AgentProcess agent = AgentProcess.start(launcher, agentJar, out.resolve("agent-" + mode + "-always.log"),
        List.of(), "--probe-mode", mode, "--timing-window", "always")) {
      agent.awaitReady(READY);
      agent.awaitQuiet(0.05, Duration.ofSeconds(1), Duration.ofSeconds(60));
      lab.iperf(s1.sender(), s1.receiver(), s1.receiverAddr(), Duration.ofSeconds(2));
      inside = stretch(agent, lab, s1, -1);
      inside = inside.withNear(new GuestCostResult.SegmentationTime(mode, inside.seconds(), inside.timed(),
          Math.round(inside.timedNanos())));
      agent.stop();
    }
    return new GuestCostResult.ModeCost(mode, start, outside, inside, healthy, HEALTHY.toMillis() / 1000.0, pps,
        pairRuns, WINDOW_SHARE);
  }

  /**
   * {@code pairs} pairs of small-UDP runs on S0, one with the agent running and one with it stopped
   * (SIGSTOP), alternating which goes first.
   */
  private static List<GuestCostResult.PpsPair> ppsPairs(AgentProcess agent, Lab lab, Topology s0, String mode,
      int pairs) throws Exception {
    List<GuestCostResult.PpsPair> pps = new ArrayList<>();
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
    return pps;
  }

  /**
   * S1 for {@link #S1_TRAFFIC} with bpf_stats on. The counts come from two map reads of the agent around it (exact
   * counters: nothing else segments in between), the programs' runs from their fdinfo right before and right after
   * the traffic. With {@code base} ≥ 0 (the agent's attachments outside any window) the traffic starts the moment a
   * window closes; whether one was open during it is read from the timing programs' runs, not assumed.
   */
  private static GuestCostResult.Stretch stretch(AgentProcess agent, Lab lab, Topology s1, int base)
      throws Exception {
    try (BpfStats stats = BpfStats.enable()) {
      PromText m0 = agent.scrapeAfter(Instant.now(), READ_WAIT);
      if (base >= 0) {
        awaitWindowClose(agent.pid(), base);
      }
      Map<Integer, long[]> p0 = programs(agent.pid());
      long t0 = System.nanoTime();
      lab.iperf(s1.sender(), s1.receiver(), s1.receiverAddr(), S1_TRAFFIC);
      Map<Integer, long[]> p1 = programs(agent.pid());
      double seconds = (System.nanoTime() - t0) / 1e9;
      PromText m1 = agent.scrapeAfter(Instant.now(), READ_WAIT);
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
      boolean touched = programs.stream().anyMatch(p -> TIMING_PROGRAMS.contains(p.program()));
      Map<String, String> unwound = Map.of("kind", "caller_unwound");
      GuestCostResult.Stretch r = new GuestCostResult.Stretch(seconds, delta(m0, m1, "segscope_gso_sw_skbs_total"),
          delta(m0, m1, "segscope_gso_sw_duration_seconds_count"),
          (m1.sum("segscope_gso_sw_duration_seconds_sum", Map.of())
              - m0.sum("segscope_gso_sw_duration_seconds_sum", Map.of())) * 1e9,
          programs, sites, touched, Math.round(m1.sum("segscope_probe_diagnostic_total", unwound)
              - m0.sum("segscope_probe_diagnostic_total", unwound)),
          null);
      LOG.info(String.format("guest cost: stretch of %.1f s: %d segmented, %d call sites unwound, window %s, %s",
          seconds, r.segmented(), r.unwound(), touched ? "open" : "closed", programs));
      return r;
    }
  }

  /**
   * The segmentation time right after the outside stretch, from the same agent: S1 for {@link #NEAR} (a window or
   * two of the default cycle), the durations the windows timed. The emulated vCPU's speed moves with the host's
   * load, so the outside stretch is divided by this, not by a time taken minutes later by another agent.
   */
  private static GuestCostResult.SegmentationTime near(AgentProcess agent, Lab lab, Topology s1, String mode) {
    PromText m0 = agent.scrapeAfter(Instant.now(), READ_WAIT);
    long t0 = System.nanoTime();
    lab.iperf(s1.sender(), s1.receiver(), s1.receiverAddr(), NEAR);
    PromText m1 = agent.scrapeAfter(Instant.now(), READ_WAIT);
    GuestCostResult.SegmentationTime t = new GuestCostResult.SegmentationTime(mode, (System.nanoTime() - t0) / 1e9,
        delta(m0, m1, "segscope_gso_sw_duration_seconds_count"), Math.round((m1.sum(
            "segscope_gso_sw_duration_seconds_sum", Map.of())
            - m0.sum("segscope_gso_sw_duration_seconds_sum",
                Map.of()))
            * 1e9));
    LOG.info(String.format("guest cost: %s mode next to the outside stretch: %d timed, mean %.1f us (emulated)",
        mode, t.calls(), t.meanNanos() / 1e3));
    return t;
  }

  private static long delta(PromText a, PromText b, String metric) {
    return Math.round(b.sum(metric, Map.of()) - a.sum(metric, Map.of()));
  }

  /**
   * Waits for the moment a sampling window closes: the agent's attachments (BPF links, perf-event fds of kprobes)
   * rise above {@code base}, its count outside windows, when the timing programs are attached, and fall back to
   * it when they are detached. Windows open only while segmentation was seen in the last minutes, so the traffic
   * before the first stretch keeps them coming every cycle.
   */
  private static void awaitWindowClose(long pid, int base) {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    boolean seenOpen = false;
    while (System.nanoTime() < deadline) {
      int n = attachments(pid);
      if (n > base) {
        seenOpen = true;
      } else if (seenOpen) {
        return;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("wait for a sampling window to close: interrupted", e);
      }
    }
    throw new IllegalStateException("wait for a sampling window to close: none " + (seenOpen ? "closed" : "opened")
        + " within 120 s (attachments outside windows: " + base + ")");
  }

  /** The agent's attachments: its BPF links and its perf-event fds (kprobes, kretprobes). */
  static int attachments(long pid) {
    int perf = 0;
    try (java.nio.file.DirectoryStream<Path> fds = java.nio.file.Files.newDirectoryStream(Path.of("/proc",
        Long.toString(pid), "fd"))) {
      for (Path fd : fds) {
        try {
          if (java.nio.file.Files.readSymbolicLink(fd).toString().equals("anon_inode:[perf_event]")) {
            perf++;
          }
        } catch (IOException e) {
          // closed meanwhile
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("read the fds of " + pid + ": " + e.getMessage(), e);
    }
    return perf + BpfFdinfo.of(pid).links().size();
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

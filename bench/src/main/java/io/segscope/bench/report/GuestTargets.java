package io.segscope.bench.report;

import static io.segscope.bench.report.Fmt.count;
import static io.segscope.bench.report.Fmt.mib;
import static io.segscope.bench.report.Fmt.num;

import io.segscope.bench.common.Stats;
import io.segscope.bench.part.GuestCostResult;
import io.segscope.bench.part.GuestResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The targets of the kprobe and fentry modes, measured in the Debian 6.1 guest under qemu (emulated): their
 * programs' share of the segmentation time, the programs a healthy host runs, small-packet UDP and the maps'
 * memory at 128 possible CPUs. Part of {@link Targets}.
 */
final class GuestTargets {
  private final GuestResult guest;
  private final GuestCostResult guestCost;
  /** Why a part's figures are missing ({@link Targets}'s reason). */
  private final Function<String, String> missing;

  GuestTargets(GuestResult guest, GuestCostResult guestCost, Function<String, String> missing) {
    this.guest = guest;
    this.guestCost = guestCost;
    this.missing = missing;
  }

  private static final String EMULATED = "Debian 6.1 guest, qemu TCG, one vCPU: emulated";

  /** The mode's figures, or why there are none. */
  private Optional<GuestCostResult.ModeCost> guestMode(String mode) {
    if (guestCost == null || !guestCost.failure().isEmpty() && guestCost.modes().isEmpty()) {
      return Optional.empty();
    }
    return guestCost.modes().stream().filter(m -> m.mode().equals(mode)).findFirst();
  }

  private String guestMissing() {
    if (guestCost == null) {
      return missing.apply("guest");
    }
    return guestCost.failure().isEmpty() ? "the guest's cost boot measured no such mode"
        : "the guest's cost boot failed: " + guestCost.failure();
  }

  Check guestShare(String mode, double limit) {
    String figure = mode + " mode (" + EMULATED + "), S1: programs' run time ÷ segmentation time (default timing"
        + " windows: counting program always, timing programs 1 s in every 10 s)";
    String target = "≤ " + num(limit, 0) + " %";
    Optional<GuestCostResult.ModeCost> m = guestMode(mode);
    if (m.isEmpty() || guestCost.segmentation() == null || m.get().outside() == null || m.get().inside() == null) {
      return Check.notMeasured(figure, target, guestMissing());
    }
    GuestCostResult.ModeCost c = m.get();
    GuestCostResult.SegmentationTime t = guestCost.segmentation();
    double avg = c.averageShare(t);
    Check k = Check.atMost(figure, 100 * avg, limit, Fmt.pct(avg, 2) + " (outside the windows "
        + Fmt.pct(c.outside().shareOf(t), 2) + ", inside one " + Fmt.pct(c.inside().shareOf(t), 2) + ")", target,
        () -> guestShareDetail(c, t));
    if (c.outside().windowTouched()) {
      return new Check(k.figure(), k.measured(), k.target(), Check.Verdict.NOT_MEASURED, "a sampling window opened"
          + " during the outside stretch (a timing program ran in each of its tries): the counting programs were not"
          + " measured alone. "
          + guestShareDetail(c, t));
    }
    return k;
  }

  static String guestShareDetail(GuestCostResult.ModeCost c, GuestCostResult.SegmentationTime t) {
    StringBuilder b = new StringBuilder();
    b.append("All emulated. The mean __skb_gso_segment took ").append(num(t.meanNanos() / 1000, 1))
        .append(" µs (as the agent timed it in ").append(t.mode()).append(" mode with --timing-window always, ")
        .append(count(t.calls())).append(" calls in ").append(num(t.seconds(), 1)).append(" s of S1). ");
    for (var e : new Object[][] {{"Outside the windows", c.outside()}, {"With every program attached (a window)",
        c.inside()}}) {
      GuestCostResult.Stretch s = (GuestCostResult.Stretch) e[1];
      b.append(e[0]).append(": ").append(count(s.segmented())).append(" super-packets segmented, ")
          .append(count(s.runs())).append(" program runs (").append(num(s.runsPerSuperPacket(), 2))
          .append(" per super-packet) for ").append(num(s.runTimeNanos() / 1e6, 1)).append(" ms, ")
          .append(count(s.unwound())).append(" call sites from the unwinder");
      List<String> per = new ArrayList<>();
      for (GuestCostResult.ProgramCost p : s.programs()) {
        per.add(p.program() + " " + count(p.runs()) + " × " + num(p.runs() > 0 ? (double) p.runTimeNanos() / p.runs()
            : Double.NaN, 0) + " ns");
      }
      b.append(per.isEmpty() ? "" : " (" + String.join(", ", per) + ")").append(": ")
          .append(Fmt.pct(s.shareOf(t), 2));
      GuestCostResult.SegmentationTime y = s.yardstick(t);
      if (y != t && y != null) {
        b.append(" of ").append(num(y.meanNanos() / 1000, 1)).append(" µs per segmentation as this agent timed it")
            .append(" next to it (").append(count(y.calls())).append(" calls; the emulated vCPU's speed moves with")
            .append(" the host's load)");
      }
      b.append(". ");
    }
    b.append("The default windows' average: ").append(num(100 * (1 - c.windowShare()), 0))
        .append(" % of the time outside, ")
        .append(num(100 * c.windowShare(), 0)).append(" % inside.");
    return b.toString();
  }

  Check guestRuns() {
    String figure = "fentry mode (" + EMULATED + "): program runs per software-segmented super-packet outside the"
        + " timing windows, S1";
    Optional<GuestCostResult.ModeCost> m = guestMode("fentry");
    if (m.isEmpty() || m.get().outside() == null || m.get().outside().segmented() == 0) {
      return Check.notMeasured(figure, "≤ 1.2", m.isEmpty() ? guestMissing() : "nothing was segmented in the stretch");
    }
    GuestCostResult.Stretch s = m.get().outside();
    Optional<GuestCostResult.ModeCost> k = guestMode("kprobe");
    String kprobe = k.isPresent() && k.get().outside() != null ? "; kprobe mode " + num(k.get().outside()
        .runsPerSuperPacket(), 2) : "";
    Check c = Check.atMost(figure, s.runsPerSuperPacket(), 1.2, num(s.runsPerSuperPacket(), 2) + kprobe, "≤ 1.2",
        () -> count(s.runs()) + " runs for " + count(s.segmented()) + " super-packets: " + s.programs());
    if (s.windowTouched()) {
      return new Check(c.figure(), c.measured(), c.target(), Check.Verdict.NOT_MEASURED, "a sampling window opened"
          + " during the outside stretch (a timing program ran in each of its tries): the runs include the window's. "
          + count(s.runs()) + " runs for " + count(s.segmented()) + " super-packets: " + s.programs());
    }
    return c;
  }

  Check guestHealthy() {
    String figure = "programs run on a healthy host outside windows, fentry / kprobe mode (" + EMULATED
        + "; 10 s of S0 TCP, kfree_skb excepted: it fires on drops only)";
    Optional<GuestCostResult.ModeCost> f = guestMode("fentry");
    Optional<GuestCostResult.ModeCost> k = guestMode("kprobe");
    if (f.isEmpty() || k.isEmpty()) {
      return Check.notMeasured(figure, "none / none", guestMissing());
    }
    long fr = beyondDrops(f.get().healthyRuns());
    long kr = beyondDrops(k.get().healthyRuns());
    String measured = runsText(f.get().healthyRuns()) + " / " + runsText(k.get().healthyRuns());
    return Check.atMost(figure, fr + kr, 0, measured, "none / none", () -> "programs that ran: fentry "
        + f.get().healthyRuns() + ", kprobe " + k.get().healthyRuns());
  }

  /** Runs of every program but kfree_skb's (kernel names keep 15 characters: {@code tp_btf__kfree_s}). */
  static long beyondDrops(java.util.Map<String, Long> runs) {
    return runs.entrySet().stream().filter(e -> !e.getKey().contains("kfree_s"))
        .mapToLong(java.util.Map.Entry::getValue)
        .sum();
  }

  private static String runsText(java.util.Map<String, Long> runs) {
    if (runs.isEmpty()) {
      return "none";
    }
    List<String> out = new ArrayList<>();
    runs.forEach((p, n) -> out.add(p + " " + count(n)));
    return String.join(", ", out);
  }

  Check guestUdp(String mode) {
    String figure = "64-byte UDP packets/s, agent running ÷ stopped, healthy S0, " + mode + " mode (" + EMULATED + ")";
    Optional<GuestCostResult.ModeCost> m = guestMode(mode);
    if (m.isEmpty() || m.get().pairs().isEmpty()) {
      return Check.notMeasured(figure, "≥ 0.99", guestMissing());
    }
    GuestCostResult.ModeCost c = m.get();
    List<Double> r = c.pairs().stream().map(GuestCostResult.PpsPair::ratio).sorted().toList();
    String f = figure + "; median of " + r.size() + " interleaved pairs";
    return Check.atLeast(f, c.ppsRatio(), 0.99, num(c.ppsRatio(), 3), "≥ 0.99", () -> guestUdpDetail(c));
  }

  static String guestUdpDetail(GuestCostResult.ModeCost c) {
    List<Double> r = c.pairs().stream().map(GuestCostResult.PpsPair::ratio).sorted().toList();
    List<Double> with = c.pairs().stream().map(GuestCostResult.PpsPair::withPps).toList();
    List<Double> without = c.pairs().stream().map(GuestCostResult.PpsPair::withoutPps).toList();
    return "iperf3 -u -l 64 -b 0 over S0 (emulated), the sender's packets per second: ratios " + num(r.get(0), 3)
        + " to " + num(r.get(r.size() - 1), 3) + "; medians " + count(Stats.median(with)) + " running against "
        + count(Stats.median(without)) + " stopped. The agent is stopped with SIGSTOP, not exited (a start takes "
        + num(c.startSeconds(), 0) + " s under emulation): its programs stay attached in both halves and ran "
        + runsText(c.pairRuns()) + " over all the rounds, so the ratio is the agent's user-space work on a healthy"
        + " host.";
  }

  Check guestMemory() {
    String figure = "kernel BPF map memory at 1,000 devices with 128 possible CPUs (Debian 6.1 guest: Percpu + Slab"
        + " growth)";
    if (guest == null) {
      return Check.notMeasured(figure, "≤ 64 MiB", missing.apply("guest"));
    }
    if (!guest.failure().isEmpty()) {
      return Check.notMeasured(figure, "≤ 64 MiB", "the guest run failed: " + guest.failure());
    }
    String f = "kernel BPF map memory at " + count(guest.fleetDevicesCounted()) + " devices with "
        + guest.possibleCpus() + " possible CPUs (Debian " + guest.kernel() + " guest, -smp " + guest.smp()
        + ": Percpu + Slab growth)";
    double grown = guest.grownBytes() / 1048576.0;
    Check c = Check.atMost(f, grown, 64, mib(guest.grownBytes()), "≤ 64 MiB", () -> "the kernel's memlock of the"
        + " agent's maps there is " + mib(guest.memlockBytes()) + " (before 6.4 the maximum a map may hold, not"
        + " its use). " + MapText.perMap(guest.maps(), guest.possibleCpus(), guest.fleetDevicesCounted()));
    if (guest.fleetDevices() != Targets.DEVICES || guest.possibleCpus() != Targets.GUEST_CPUS) {
      return new Check(c.figure(), c.measured(), c.target(), Check.Verdict.NOT_MEASURED, "measured at "
          + count(guest.fleetDevices()) + " devices and " + guest.possibleCpus() + " possible CPUs, not 1,000 and 128");
    }
    return c;
  }
}

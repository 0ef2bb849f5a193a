package io.segscope.bench.part;

import java.util.List;
import java.util.Map;

/**
 * Part 4b: what kprobe and fentry mode cost, measured in Debian's 6.1 kernel under qemu's emulation (TCG, one
 * vCPU): every time is emulated, so the ratios count and the absolute figures are given beside them.
 *
 * @param kernel the guest's {@code uname -r}
 * @param segmentation the segmentation time over S1, as the agent timed it with {@code --timing-window always}
 * @param modes one entry per mode measured
 * @param failure why the run did not produce the figures ("" when it did)
 */
public record GuestCostResult(String kernel, SegmentationTime segmentation, List<ModeCost> modes, String failure) {

  public static GuestCostResult failed(String why) {
    return new GuestCostResult("", null, List.of(), why);
  }

  /**
   * The {@code __skb_gso_segment} calls the agent timed over {@code seconds} of S1 in {@code mode} with
   * {@code --timing-window always} (fentry: from the fentry program's stamp to the fexit program's clock read).
   */
  public record SegmentationTime(String mode, double seconds, long calls, long totalNanos) {
    public double meanNanos() {
      return calls > 0 ? (double) totalNanos / calls : Double.NaN;
    }
  }

  /** One program's runs and run time over a stretch (bpf_stats). */
  public record ProgramCost(String program, long runs, long runTimeNanos) {}

  /**
   * One stretch of S1 traffic with bpf_stats on.
   *
   * @param seconds wall time from the read before the traffic to the one after
   * @param segmented the agent's software-segmented super-packets over it
   * @param timed of those, timed by the agent
   * @param timedNanos their summed duration
   * @param programs every program of the agent that ran
   * @param sites the agent's segmented super-packets by site over it
   * @param windowTouched whether a sampling window was open during it: a timing program ran (for the outside-window
   *     stretch: it must not)
   * @param unwound segmentations whose call site the counting program took from the kernel's unwinder (the
   *     diagnostic {@code caller_unwound}) over it
   * @param near the mean segmentation time the same agent timed at about the same time (outside stretch: S1 through
   *     the windows right after it; inside: its own timing), or null: the emulated vCPU's speed moves with the
   *     host's load, so a time taken minutes apart is not the same yardstick
   */
  public record Stretch(double seconds, long segmented, long timed, double timedNanos, List<ProgramCost> programs,
      Map<String, Long> sites, boolean windowTouched, long unwound, SegmentationTime near) {
    public Stretch withNear(SegmentationTime t) {
      return new Stretch(seconds, segmented, timed, timedNanos, programs, sites, windowTouched, unwound, t);
    }

    /** The segmentation time this stretch is divided by: {@link #near} where it timed any, else {@code t}. */
    public SegmentationTime yardstick(SegmentationTime t) {
      return near != null && near.calls() > 0 ? near : t;
    }

    public long runs() {
      return programs.stream().mapToLong(ProgramCost::runs).sum();
    }

    public long runTimeNanos() {
      return programs.stream().mapToLong(ProgramCost::runTimeNanos).sum();
    }

    public double runsPerSuperPacket() {
      return segmented > 0 ? (double) runs() / segmented : Double.NaN;
    }

    /**
     * Programs' run time ÷ (segmented super-packets × the mean segmentation time: {@link #near} where there is one,
     * else {@code t}).
     */
    public double shareOf(SegmentationTime t) {
      SegmentationTime y = yardstick(t);
      return segmented > 0 && y != null && y.calls() > 0 ? runTimeNanos() / (segmented * y.meanNanos()) : Double.NaN;
    }
  }

  /** One pair of 64-byte UDP rounds: packets per second with the agent running and with it stopped. */
  public record PpsPair(int pair, boolean withFirst, double withPps, double withoutPps) {
    public double ratio() {
      return withPps / withoutPps;
    }
  }

  /**
   * One mode.
   *
   * @param mode fentry or kprobe
   * @param startSeconds the default agent's start to its first scrape with programs attached
   * @param outside S1 with the default windows, in a stretch no window touched: the counting programs alone
   * @param inside S1 with {@code --timing-window always}: every program attached, as in a window
   * @param healthyRuns every program run of the default agent in {@code healthySeconds} of healthy S0 (no
   *     segmentation seen: no window opens), by program
   * @param healthySeconds how long S0 ran
   * @param pairs 64-byte UDP on healthy S0, the agent running against it stopped (SIGSTOP)
   * @param pairRuns program runs during all those rounds (both halves), by program
   * @param windowShare the default window ÷ cycle (1 s / 10 s)
   */
  public record ModeCost(String mode, double startSeconds, Stretch outside, Stretch inside,
      Map<String, Long> healthyRuns, double healthySeconds, List<PpsPair> pairs, Map<String, Long> pairRuns,
      double windowShare) {

    /** Median of the pairs' with ÷ without. */
    public double ppsRatio() {
      List<Double> r = pairs.stream().map(PpsPair::ratio).sorted().toList();
      if (r.isEmpty()) {
        return Double.NaN;
      }
      int n = r.size();
      return n % 2 == 1 ? r.get(n / 2) : (r.get(n / 2 - 1) + r.get(n / 2)) / 2;
    }

    public long healthyRunsTotal() {
      return healthyRuns.values().stream().mapToLong(Long::longValue).sum();
    }

    /** The share of segmentation time with the default windows: outside most of the time, inside a window's share. */
    public double averageShare(SegmentationTime t) {
      double out = outside == null ? Double.NaN : outside.shareOf(t);
      double in = inside == null ? Double.NaN : inside.shareOf(t);
      return (1 - windowShare) * out + windowShare * in;
    }
  }
}

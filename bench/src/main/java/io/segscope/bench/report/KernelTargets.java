package io.segscope.bench.report;

import static io.segscope.bench.report.Fmt.count;
import static io.segscope.bench.report.Fmt.num;

import io.segscope.bench.part.KernelResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The in-kernel targets, from the kernel part: the programs' share of the segmentation time and how often
 * they run per super-packet. Part of {@link Targets}.
 */
final class KernelTargets {
  private final KernelResult kernel;
  /** Why a part's figures are missing ({@link Targets}'s reason). */
  private final Function<String, String> missing;

  KernelTargets(KernelResult kernel, Function<String, String> missing) {
    this.kernel = kernel;
    this.missing = missing;
  }

  private static final String WINDOWS_APART = "consume_skb fired fewer times than the agent counted super-packets"
      + " (every software-segmented one is freed there): the counters and the run statistics did not cover the"
      + " same stretch, so no per-super-packet figure of this run is judged";

  /** In tracepoint mode every software-segmented super-packet is freed by consume_skb: fewer firings = bad window. */
  private boolean windowsApart() {
    double consume = kernel.firingsPerSuperPacket("consume_skb");
    return kernel.mode().equals("tracepoint") && !Double.isNaN(consume) && consume < 0.99;
  }

  Check runTimeShare() {
    String figure = "segscope programs' run time ÷ segmentation time measured, S1 (" + modeText()
        + "; default timing windows: counting programs always, timing programs 1 s in every 10 s)";
    if (kernel == null || kernel.superPackets() == 0) {
      return Check.notMeasured(figure, "≤ 5 %", kernel == null ? missing.apply("kernel")
          : "no super-packet was segmented in software in the window");
    }
    double avg = kernel.shareAtDuty(KernelResult.DEFAULT_DUTY);
    double share = 100 * avg;
    if (windowsApart()) {
      return new Check(figure, Fmt.pct(avg, 2), "≤ 5 %", Check.Verdict.NOT_MEASURED, WINDOWS_APART);
    }
    return Check.atMost(figure, share, 5, Fmt.pct(avg, 2), "≤ 5 %", () -> {
      String windows = "Outside the sampling windows (the counting programs alone) "
          + Fmt.pct(kernel.countingShareOfSegmentation(), 2) + "; inside a window (every program, as with"
          + " --timing-window always, which this window ran with) " + Fmt.pct(kernel.shareOfSegmentation(), 2)
          + "; the default windows' average " + Fmt.pct(avg, 2) + ". ";
      return windows + runTimeShareDetail();
    });
  }

  private String runTimeShareDetail() {
    {
      double n = kernel.superPackets();
      double perSp = kernel.totalRunTimeNanos() / n;
      double floor = floorPerSuperPacket();
      StringBuilder b = new StringBuilder();
      b.append("segscope's programs ran ").append(count(kernel.totalRuns())).append(" times for ")
          .append(num(kernel.totalRunTimeNanos() / 1e6, 1)).append(" ms in the ").append(num(kernel.windowSeconds(), 1))
          .append(" s window, while the kernel segmented ").append(count(n)).append(" super-packets in software in ")
          .append(num(kernel.segmentationNanos() / 1e6, 1)).append(" ms (").append(num(kernel.meanSegmentationNanos()
              / 1000, 2))
          .append(" µs each): ").append(num(kernel.runsPerSuperPacket(), 1))
          .append(" runs costing ").append(num(perSp, 0)).append(" ns per super-packet. Empty ")
          .append(kernel.attach()).append(" programs on the same events cost ").append(num(floor, 0))
          .append(" ns per super-packet here (").append(Fmt.pct(floor / kernel.meanSegmentationNanos(), 1))
          .append(" of the segmentation time): the floor of hooking events that fire this often, bpf_stats' own")
          .append(" accounting included. Above the empty programs:");
      for (KernelResult.ProgramCost p : kernel.programs()) {
        KernelResult.EventRate e = kernel.event(p.event());
        if (p.runs() == 0 || e == null) {
          continue;
        }
        b.append(" ").append(p.program()).append(" ").append(num(p.nsPerRun() - e.nsPerRun(), 0))
            .append(" ns per run × ").append(num(p.runs() / n, 2)).append(" runs = ")
            .append(num((p.nsPerRun() - e.nsPerRun()) * p.runs() / n, 0)).append(" ns per super-packet;");
      }
      b.setLength(b.length() - 1);
      b.append(".");
      onDemandXdp().ifPresent(p -> b.append(" ").append(p.program()).append(" ran ").append(count(p.runs()))
          .append(" times: it is attached only while a generic XDP program exists on the host, and one did in this")
          .append(" window; without it the rest cost ").append(Fmt.pct((kernel.totalRunTimeNanos() - p.runTimeNanos())
              / kernel.segmentationNanos(), 2))
          .append(" of the segmentation time."));
      return b.toString();
    }
  }

  /** The generic-XDP program, when it ran in the window (attached on demand). */
  private Optional<KernelResult.ProgramCost> onDemandXdp() {
    return kernel.programs().stream().filter(p -> p.event().equals("netif_receive_skb") && p.runs() > 0).findFirst();
  }

  /** ns per super-packet that empty programs on segscope's hooked events cost in the window. */
  private double floorPerSuperPacket() {
    double total = 0;
    for (KernelResult.ProgramCost p : kernel.programs()) {
      KernelResult.EventRate e = kernel.event(p.event());
      if (p.runs() > 0 && e != null && e.runs() > 0) {
        total += e.nsPerRun() * p.runs();
      }
    }
    return total / kernel.superPackets();
  }

  private String modeText() {
    return kernel == null ? "tracepoint mode" : kernel.mode() + " mode, " + kernel.attach();
  }

  Check runsPerSuperPacket() {
    String figure = "segscope BPF program runs per software-segmented super-packet outside the timing windows, S1"
        + " (the counting programs' run_cnt ÷ super-packets)";
    if (kernel == null || kernel.superPackets() == 0) {
      return Check.notMeasured(figure, "≤ 5.5", kernel == null ? missing.apply("kernel")
          : "no super-packet was segmented in software in the window");
    }
    double runs = kernel.countingRunsPerSuperPacket();
    if (windowsApart()) {
      return new Check(figure, num(runs, 1), "≤ 5.5", Check.Verdict.NOT_MEASURED, WINDOWS_APART);
    }
    return Check.atMost(figure, runs, 5.5, num(runs, 1), "≤ 5.5", () -> {
      StringBuilder b = new StringBuilder();
      b.append("Inside a timing window every program runs: ").append(num(kernel.runsPerSuperPacket(), 1))
          .append(" runs per super-packet. ");
      double floor = 0;
      List<String> parts = new ArrayList<>();
      for (KernelResult.ProgramCost p : kernel.programs()) {
        if (p.runs() == 0) {
          continue;
        }
        double fires = kernel.firingsPerSuperPacket(p.event());
        floor += fires;
        parts.add(p.event() + " fires " + num(fires, 2) + " times");
      }
      b.append("per super-packet segmented in software here, ").append(String.join(", ", parts))
          .append(" (empty programs' runs ÷ ").append(count(kernel.superPackets()))
          .append(" super-packets): hooking these events costs at least ").append(num(floor, 1))
          .append(" runs per super-packet, whatever the programs do.");
      double consume = kernel.firingsPerSuperPacket("consume_skb");
      if (!Double.isNaN(consume)) {
        b.append(" Of the consume_skb firings, 1 per super-packet is the segmentation itself; the other ")
            .append(num(consume - 1, 2)).append(" free other skbs and leave at the call-site check.");
      }
      double xmit = kernel.firingsPerSuperPacket("net_dev_start_xmit");
      double rx = kernel.firingsPerSuperPacket("netif_receive_skb");
      if (!Double.isNaN(xmit) && !Double.isNaN(rx)) {
        b.append(" For comparison, the per-segment events segscope does not hook fire ").append(num(xmit, 1))
            .append(" (net_dev_start_xmit) and ").append(num(rx, 1)).append(" (netif_receive_skb) times per")
            .append(" super-packet.");
      }
      onDemandXdp().ifPresent(p -> b.append(" ").append(p.program()).append(" ran ")
          .append(num(p.runs() / (double) kernel.superPackets(), 1)).append(" times per super-packet because a generic")
          .append(" XDP program existed on the host in this window; without it ")
          .append(num((kernel.totalRuns() - p.runs()) / (double) kernel.superPackets(), 1)).append(" runs."));
      b.append(" Fewer needs a hook on the segmentation itself rather than on events shared with other packets");
      b.append(kernel.mode().equals("tracepoint") ? " (this run is in tracepoint mode: kprobe/fentry mode hooks"
          + " __skb_gso_segment)." : ".");
      return b.toString();
    });
  }
}

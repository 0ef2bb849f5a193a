package io.segscope.bench.report;

import static io.segscope.bench.report.Fmt.count;
import static io.segscope.bench.report.Fmt.mib;
import static io.segscope.bench.report.Fmt.num;

import io.segscope.bench.common.RunInfo;
import io.segscope.bench.part.GuestCostResult;
import io.segscope.bench.part.GuestResult;
import io.segscope.bench.part.KernelResult;
import io.segscope.bench.part.ScaleResult;
import java.util.function.Function;

/**
 * The sections of BENCHMARKS.md measured in the Debian 6.1 guest under qemu: 4b (the kprobe and fentry modes'
 * cost, emulated) and the maps' memory at 128 possible CPUs. Part of {@link BenchmarksMarkdown}.
 */
final class GuestSections {
  private final StringBuilder md;
  private final RunInfo run;
  private final KernelResult kernel;
  private final ScaleResult scale;
  private final GuestResult guest;
  private final GuestCostResult guestCost;
  /** Why a part's figures are missing ({@link BenchmarksMarkdown}'s reason). */
  private final Function<String, String> why;

  GuestSections(StringBuilder md, RunInfo run, KernelResult kernel, ScaleResult scale, GuestResult guest,
      GuestCostResult guestCost, Function<String, String> why) {
    this.md = md;
    this.run = run;
    this.kernel = kernel;
    this.scale = scale;
    this.guest = guest;
    this.guestCost = guestCost;
    this.why = why;
  }

  void guestCostSection() {
    md.append("## 4b. kprobe and fentry mode (Debian 6.1 guest, emulated)\n\n");
    if (guestCost == null) {
      md.append("Not measured: ").append(why.apply("guest")).append(".\n\n");
      return;
    }
    if (!guestCost.failure().isEmpty()) {
      md.append("Failed: ").append(guestCost.failure()).append(".\n\n");
    }
    if (guestCost.segmentation() == null) {
      return;
    }
    md.append("`segscope-bench guest-cost` in `scripts/guest-run --cpus 1` (qemu TCG, one vCPU): kernel ")
        .append(guestCost.kernel()).append(". **Every time here is emulated** (roughly 100x slower than hardware, and"
            + " not uniformly so): only the ratios, measured side by side, are meant to carry over. Programs: bpf_stats"
            + " over S1 with the default windows in a stretch between two windows (started the moment a window"
            + " closed, 5 s of traffic; a timing program that ran in it means a window was open: 'not measured'),"
            + " and with `--timing-window always` (every program, as inside a window). Each stretch is divided by the"
            + " segmentation time the same agent timed at about the same time (outside: S1 through the next windows"
            + " right after the stretch; always: the stretch's own timing; the mode's own bracket, entry to exit),"
            + " since the emulated vCPU's speed moves with the host's load. Healthy host: 10 s of S0 TCP"
            + " before anything was segmented. 64-byte UDP: the agent running against it stopped with SIGSTOP.\n\n");
    md.append(
        "| mode | stretch | super-packets | program runs | runs per super-packet | run time | ÷ segmentation time |"
            + " sites |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |\n");
    for (GuestCostResult.ModeCost c : guestCost.modes()) {
      for (var e : new Object[][] {{"outside windows", c.outside()}, {"always (a window)", c.inside()}}) {
        GuestCostResult.Stretch s = (GuestCostResult.Stretch) e[1];
        if (s == null) {
          continue;
        }
        md.append("| ").append(c.mode()).append(" | ").append(e[0]).append(" | ").append(count(s.segmented()))
            .append(" | ").append(count(s.runs())).append(" | ").append(num(s.runsPerSuperPacket(), 2)).append(" | ")
            .append(num(s.runTimeNanos() / 1e6, 1)).append(" ms | ")
            .append(Fmt.pct(s.shareOf(guestCost.segmentation()), 2)).append(" | ").append(s.sites()).append(" |\n");
      }
    }
    md.append("\nMean segmentation time ").append(num(guestCost.segmentation().meanNanos() / 1000, 1))
        .append(" µs (emulated; ").append(count(guestCost.segmentation().calls())).append(" calls timed in ")
        .append(guestCost.segmentation().mode()).append(" mode). ");
    for (GuestCostResult.ModeCost c : guestCost.modes()) {
      md.append(c.mode()).append(": ").append(GuestTargets.guestShareDetail(c, guestCost.segmentation())).append(" ");
      if (!c.pairs().isEmpty()) {
        md.append(GuestTargets.guestUdpDetail(c)).append(" ");
      }
      md.append("Healthy S0 (10 s): ").append(c.healthyRuns().isEmpty() ? "no program ran"
          : "programs ran " + c.healthyRuns()).append(". ");
    }
    md.append("\n\n");
  }

  void guestSection() {
    md.append("## 5. Kernel map memory with many possible CPUs (Debian 6.1 guest)\n\n");
    if (guest == null) {
      md.append("Not measured: ").append(why.apply("guest")).append(".\n\n");
      return;
    }
    if (!guest.failure().isEmpty()) {
      md.append("Not measured: ").append(guest.failure()).append(".\n\n");
      return;
    }
    md.append("`scripts/guest-run --cpus 1 --maxcpus ").append(guest.possibleCpus()).append("` (qemu `-smp ")
        .append(guest.smp()).append("`: one online CPU and ").append(guest.possibleCpus()).append(" possible ones, ")
        .append(guest.onlineCpus()).append(" online as seen inside; more than one vCPU crashes the JVM under qemu's")
        .append(" emulation here, docs/guest-kernel.md). Kernel ").append(guest.kernel()).append(", agent in ")
        .append(guest.mode()).append(" mode, first scrape after ").append(num(guest.firstScrapeSeconds(), 0))
        .append(" s. ").append(count(guest.fleetDevices())).append(" veth devices, each sent TCP over before the")
        .append(" agent started (the baseline) and again with it running: ").append(count(guest.fleetDevicesCounted()))
        .append(" of them counted. Reported: the growth of /proc/meminfo Percpu + Slab from before the agent to it")
        .append(" running (real kernel memory; it includes the agent process's own kernel objects), and the kernel's")
        .append(" memlock of the maps, which before 6.4 is the maximum a map may hold, not its use.\n\n");
    md.append("| /proc/meminfo | before the agent | agent running | after it exited | growth | freed at exit |\n")
        .append("| --- | ---: | ---: | ---: | ---: | ---: |\n");
    memRow("Percpu", guest.before().percpu(), guest.with().percpu(), guest.after().percpu());
    memRow("Slab", guest.before().slab(), guest.with().slab(), guest.after().slab());
    memRow("SUnreclaim", guest.before().sunreclaim(), guest.with().sunreclaim(), guest.after().sunreclaim());
    memRow("VmallocUsed", guest.before().vmallocUsed(), guest.with().vmallocUsed(), guest.after().vmallocUsed());
    md.append("\nPercpu + Slab grew ").append(mib(guest.grownBytes())).append(" and ").append(mib(guest.freedBytes()))
        .append(" were freed at exit; memlock ").append(mib(guest.memlockBytes())).append("; agent RSS ")
        .append(mib(guest.agentRssBytes())).append(". ")
        .append(MapText.perMap(guest.maps(), guest.possibleCpus(), guest.fleetDevicesCounted()))
        .append("\n\n");
    MapText.table(md, guest.maps());
    ScaleResult.Level top = scale == null ? null : scale.top();
    if (top != null) {
      md.append("\nOn this host (part 4: ").append(scale.possibleCpus()).append(" possible CPUs, kernel ")
          .append(run.machine().kernel()).append(") the kernel's memlock of the agent's maps at ")
          .append(count(top.fleetDevices())).append(" devices is ").append(mib(top.mapMemlockBytes()))
          .append(" (computed from what the maps hold on 6.4 and later).\n");
    }
    md.append('\n');
  }

  private void memRow(String name, long before, long with, long after) {
    md.append("| ").append(name).append(" | ").append(mib(before)).append(" | ").append(mib(with)).append(" | ")
        .append(mib(after)).append(" | ").append(mib(with - before)).append(" | ").append(mib(with - after))
        .append(" |\n");
  }
}

package io.segscope.agent.report;

import io.segscope.agent.advice.AdviceContext;
import io.segscope.agent.advice.AdviceIntent;
import io.segscope.agent.advice.Advisor;
import io.segscope.agent.advice.Command;
import io.segscope.agent.advice.Finding;
import io.segscope.agent.advice.SavingCheck;
import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.inventory.model.Chain;
import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Hop;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.workload.DeviceWorkloads;
import io.segscope.agent.workload.Workload;
import io.segscope.agent.workload.Workloads;
import io.segscope.host.names.NameCodec;
import io.segscope.vocabulary.Cause;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/** The terminal report: per-device cost with log2 histograms, the chain, the recommendations. Pure. */
public final class ReportRenderer {
  private ReportRenderer() {}

  /** What one report shows; {@code workloads} names who each namespace belongs to. */
  public record Input(String kernel, String gsoMode, String xdpMode, double seconds, Collection<DeviceCost> costs,
      Inventory inventory, List<Finding> findings, Workloads workloads,
      AdviceIntent intent, List<SavingCheck.Verification> verified) {
    public Input(String kernel, String gsoMode, String xdpMode, double seconds, Collection<DeviceCost> costs,
        Inventory inventory, List<Finding> findings, Workloads workloads) {
      this(kernel, gsoMode, xdpMode, seconds, costs, inventory, findings, workloads,
          AdviceIntent.NONE, List.of());
    }

    public Input(String kernel, String gsoMode, String xdpMode, double seconds, Collection<DeviceCost> costs,
        Inventory inventory, List<Finding> findings) {
      this(kernel, gsoMode, xdpMode, seconds, costs, inventory, findings, Workloads.none());
    }
  }

  /**
   * The report, every line in {@link NameCodec#display display form}: a control byte or a line
   * separator in a device or namespace name is shown as {@code \xHH}, never sent to the terminal.
   */
  public static String render(Input in) {
    String raw = renderRaw(in);
    StringBuilder out = new StringBuilder(raw.length() + 64);
    for (String line : raw.split("\n", -1)) {
      if (out.length() > 0) {
        out.append('\n');
      }
      out.append(NameCodec.display(line));
    }
    return out.toString();
  }

  private static String renderRaw(Input in) {
    DeviceWorkloads served = new DeviceWorkloads(in.inventory(), in.workloads());
    StringBuilder b = new StringBuilder();
    b.append(String.format("segscope report: %.1f s on kernel %s; software GSO measured in %s mode, generic XDP "
        + "in %s mode%n%n", in.seconds(), in.kernel(), blank(in.gsoMode()), blank(in.xdpMode())));
    List<DeviceCost> active = new ArrayList<>();
    for (DeviceCost c : in.costs()) {
      if (c.swSkbsPerSec() > 0 || c.xdpCopiedPerSec() > 0 || c.xdpPassedPerSec() > 0) {
        active.add(c);
      }
    }
    active.sort(Comparator.comparingDouble((DeviceCost c) -> -(c.gsoCpu().cores() + c.xdpCpu().cores()))
        .thenComparing(c -> c.device().device()));
    long offloadingDevices = in.costs().stream().filter(c -> c.offloadedSkbsPerSec() > 0).count();
    if (active.isEmpty()) {
      b.append("No software segmentation and no generic-XDP copies were seen");
      b.append(offloadingDevices > 0 ? String.format(" (%d devices handed super-packets intact to their drivers).%n",
          offloadingDevices) : ".%n".formatted());
    }
    for (DeviceCost c : active) {
      device(b, in, served, c);
    }
    recommendations(b, in, served);
    if (!in.verified().isEmpty()) {
      b.append("\nVerified savings (recommendations whose evidence stopped during the report):\n");
      for (SavingCheck.Verification v : in.verified()) {
        b.append(verification(v)).append('\n');
      }
    }
    return b.toString();
  }

  /** One active device: what it serves, its software GSO and generic XDP, and its chain of devices. */
  private static void device(StringBuilder b, Input in, DeviceWorkloads served, DeviceCost c) {
    String ns = c.device().netnsName().isEmpty() ? "netns " + c.device().netns() : c.device().netnsName();
    b.append(String.format("== %s (%s, ifindex %d)%n", c.device().device(), ns, c.device().ifindex()));
    b.append("  serves: ").append(describe(served.served(c.device().id()))).append('\n');
    if (c.swSkbsPerSec() > 0) {
      b.append(String.format("  software GSO: %.0f super-packets/s -> %.0f segments/s, %.1f MB/s; CPU %.4f cores "
          + "(%s); offloaded %.0f/s%n", c.swSkbsPerSec(), c.swSegmentsPerSec(), c.swBytesPerSec() / 1e6,
          c.gsoCpu().cores(), c.gsoCpu().basis(), c.offloadedSkbsPerSec()));
      StringBuilder causes = new StringBuilder();
      for (Cause k : Cause.values()) {
        if (c.causePerSec(k) > 0) {
          causes.append(String.format(" %s %.0f%%", k.label(), 100 * c.causeShare(k)));
        }
      }
      b.append("  causes:").append(causes).append('\n');
      if (c.swDuration().count() > 0) {
        b.append(String.format("  time to segment one super-packet: p50 %.0f ns, p99 %.0f ns%n",
            c.swDurationQuantileNanos(0.5), c.swDurationQuantileNanos(0.99)));
        b.append(HistogramBars.render(c.swDuration(), "nsecs", 1e9));
      }
      if (c.segmentsPerSkb().count() > 0) {
        b.append(HistogramBars.render(c.segmentsPerSkb(), "segments", 1));
      }
    }
    if (c.xdpCopiedPerSec() > 0 || c.xdpPassedPerSec() > 0) {
      b.append(String.format("  generic XDP: %.0f copies/s (%.1f MB/s), %.0f passed/s; CPU %.4f cores (%s)%n",
          c.xdpCopiedPerSec(), c.xdpCopiedBytesPerSec() / 1e6, c.xdpPassedPerSec(), c.xdpCpu().cores(),
          c.xdpCpu().basis()));
      if (c.xdpCopyDuration().count() > 0) {
        b.append(HistogramBars.render(c.xdpCopyDuration(), "nsecs", 1e9));
      } else {
        b.append("  (copy time not measured in this mode)\n");
      }
    }
    Optional<Device> d = in.inventory().device(c.device().id());
    d.ifPresent(dev -> b.append(chain(in.inventory(), dev)));
    b.append('\n');
  }

  private static void recommendations(StringBuilder b, Input in, DeviceWorkloads served) {
    if (in.findings().isEmpty()) {
      b.append("Recommendations: none.\n");
    } else {
      b.append("Recommendations:\n");
      for (Finding f : in.findings()) {
        b.append(String.format("%n  [%s] %s (%s)%n  %s%n", f.severity(), f.rule(), f.id(), f.summary()));
        in.intent().acceptedBy(f, in.inventory().rootNetns()).ifPresent(e -> b.append("  accepted (measured, not "
            + "advised): ").append(e.text()).append(" (").append(e.source()).append(')')
            .append(e.reason().isEmpty() ? "" : ": " + e.reason()).append('\n'));
        b.append("  serves: ").append(describe(served.served(f.subject().id())))
            .append('\n');
        b.append(String.format("  expected saving: %.4f cores (%s); confidence %s%n", f.cpuSavingCores(),
            f.savingBasis(), f.confidence()));
        if (f.commands().isEmpty()) {
          b.append("  no safe command\n");
        } else {
          b.append("  run:\n");
          for (Command cmd : f.commands()) {
            b.append("    ").append(cmd.shell()).append('\n');
          }
        }
        if (!f.explanation().isEmpty()) {
          b.append("  what to do: ").append(f.explanation()).append('\n');
        }
        b.append("  risk: ").append(f.risk()).append('\n');
      }
    }
  }

  /** One closed recommendation's before and after, in words (docs/recommendations.md). */
  static String verification(SavingCheck.Verification v) {
    Finding f = v.recommendation().finding();
    String unit = SavingCheck.xdpRule(f) ? "generic-XDP copies/s" : "software-segmented/s";
    String after = v.after().map(m -> String.format("%.0f", m.softwarePerSec())).orElse("-");
    String head = String.format("  %s (%s) on %s: %s %.0f -> %s", f.rule(), v.recommendation().id(),
        AdviceContext.label(f.subject()), unit, v.before().softwarePerSec(), after);
    return head + switch (v.verdict()) {
      case "verified" -> String.format("; verified saving %.4f cores: host kernel CPU per byte %s (traffic "
          + "after/before %.2f)", v.savingCores(), Advisor.perUnit(v), v.trafficRatio());
      case "worse" -> String.format("; worse: it costs %.4f cores more, host kernel CPU per byte %s (traffic "
          + "after/before %.2f); undo: %s", -v.savingCores(), Advisor.perUnit(v), v.trafficRatio(),
          v.undo().isEmpty() ? "no recorded setting changed"
              : v.undo().stream().map(Command::display).collect(java.util.stream.Collectors.joining(" && ")));
      case "inconclusive" ->
        String.format("; not verified: inconclusive (host kernel CPU per byte %s; the segmentation "
            + "must be gone and the change beyond %.0f %%)", Advisor.perUnit(v), SavingCheck.NOISE * 100);
      case "traffic_changed" -> String.format("; not verified: the traffic changed too much to compare "
          + "(after/before %.2f, comparable is 0.25..4)", v.trafficRatio());
      default -> "; not verified: no traffic through the device after the evidence stopped";
    };
  }

  /** "pod shop/web-0 (uid ..., sandbox 3f2a1b0c9d8e), through its veth peer" and the like. */
  static String describe(DeviceWorkloads.Served s) {
    Workload w = s.workload();
    String what = switch (w.kind()) {
      case POD -> "pod " + (w.pod().isEmpty() ? "uid " + w.podUid() : w.name() + (w.podUid().isEmpty() ? ""
          : " (uid " + w.podUid() + ")"));
      case CONTAINER -> "container " + w.name();
      case SERVICE -> "service " + w.name();
      case PROCESS -> "process " + w.name() + (w.pid() > 0 ? " (pid " + w.pid() + ")" : "");
      case NAMED -> "namespace " + w.name();
      case HOST -> "the host";
      case UNKNOWN -> "unknown (netns " + s.netns() + ")";
    };
    return s.viaLink() ? what + ", through its link to netns " + s.netns() : what;
  }

  static String chain(Inventory inv, Device d) {
    Chain c = inv.chain(d);
    StringBuilder b = new StringBuilder();
    b.append(String.format("  device: kind %s, mtu %d, gso_max_size %s, gso_max_segs %s, tso_max_size %s, xdp %s%n",
        d.kind().isEmpty() ? "physical" : d.kind(), d.link().mtu(), opt(d.link().gsoMaxSize()),
        opt(d.link().gsoMaxSegs()), opt(d.link().tsoMaxSize()), d.link().xdp().mode().label()));
    b.append("  chain up:  ").append(hops(inv, c.up())).append('\n');
    b.append("  chain down:").append(' ').append(hops(inv, c.down())).append('\n');
    return b.toString();
  }

  private static String hops(Inventory inv, List<Hop> hops) {
    if (hops.isEmpty()) {
      return "(none)";
    }
    List<String> parts = new ArrayList<>();
    for (Hop h : hops) {
      String gso = inv.device(h.device()).map(x -> opt(x.link().gsoMaxSize())).orElse("?");
      parts.add(String.format("%s[%s %s, gso %s]", h.name(), h.relation().name().toLowerCase(Locale.ROOT),
          nsName(inv, h.device().netns()), gso));
    }
    return String.join(" ", parts);
  }

  private static String nsName(Inventory inv, long netns) {
    return inv.namespaces().stream().filter(n -> n.inode() == netns).map(n -> n.name().isEmpty()
        ? (n.root() ? "root" : "netns " + netns) : n.name()).findFirst().orElse("netns " + netns);
  }

  private static String opt(OptionalLong v) {
    return v.isPresent() ? Long.toString(v.getAsLong()) : "n/a";
  }

  private static String blank(String s) {
    return s.isEmpty() ? "no" : s;
  }
}

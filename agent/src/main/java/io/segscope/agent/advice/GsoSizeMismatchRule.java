package io.segscope.agent.advice;

import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.inventory.Device;
import io.segscope.agent.inventory.DeviceKey;
import io.segscope.agent.inventory.Netns;
import io.segscope.exporters.model.GsoCause;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * {@code gso_size_mismatch}: device D segments in software because the super-packets reaching it
 * exceed its {@code gso_max_size} (or {@code gso_max_segs}), while the devices where the traffic's
 * sockets size their super-packets (the far ends of D's upstream chain: typically a container's
 * veth) advertise larger limits. Setting those devices' limits to D's makes TCP build super-packets D
 * can take intact (docs/kernel.md: ~3x less sender CPU in the original report).
 */
public final class GsoSizeMismatchRule implements Rule {

  /** MAX_TCP_HEADER + 1 on x86-64: the smallest gso_max_size rtnetlink accepts. */
  static final long KERNEL_MIN_GSO_MAX_SIZE = 321;

  @Override
  public String name() {
    return "gso_size_mismatch";
  }

  @Override
  public Optional<Finding> evaluate(DeviceCost cost, AdviceContext ctx) {
    var t = ctx.thresholds();
    if (cost.swSkbsPerSec() < t.minSoftwareGsoPerSec()) {
      return Optional.empty();
    }
    double sizeShare = cost.causeShare(GsoCause.GSO_MAX_SIZE);
    double segsShare = cost.causeShare(GsoCause.GSO_MAX_SEGS);
    if (sizeShare + segsShare < t.minCauseShare()) {
      return Optional.empty();
    }
    Optional<Device> dOpt = ctx.inventory().device(cost.device().netns(), cost.device().ifindex());
    if (dOpt.isEmpty()) {
      return Optional.empty();
    }
    Device d = dOpt.get();
    OptionalLong dSize = d.link().gsoMaxSize();
    OptionalLong dSegs = d.link().gsoMaxSegs();
    List<Command> commands = new ArrayList<>();
    List<DeviceName> devices = new ArrayList<>(List.of(AdviceContext.name(d)));
    List<Map<String, Object>> compared = new ArrayList<>();
    for (Device u : sources(ctx, d)) {
      Optional<Netns> ns = ctx.netns(u.netns());
      if (ns.isEmpty()) {
        continue;
      }
      List<String> sets = new ArrayList<>();
      if (sizeShare > 0 && dSize.isPresent() && u.link().gsoMaxSize().orElse(0) > dSize.getAsLong()) {
        long n = dSize.getAsLong();
        boolean accepted = n >= KERNEL_MIN_GSO_MAX_SIZE
            && (u.link().tsoMaxSize().isEmpty() || n <= u.link().tsoMaxSize().getAsLong());
        if (accepted) {
          sets.addAll(List.of("gso_max_size", Long.toString(n)));
        }
      }
      if (segsShare > 0 && dSegs.isPresent() && u.link().gsoMaxSegs().orElse(0) > dSegs.getAsLong()) {
        long m = dSegs.getAsLong();
        boolean accepted = m >= 1 && m <= Math.min(65535, u.link().tsoMaxSegs().orElse(65535));
        if (accepted) {
          sets.addAll(List.of("gso_max_segs", Long.toString(m)));
        }
      }
      if (sets.isEmpty()) {
        continue;
      }
      commands.add(NetnsCommands.ipLinkSet(ns.get(), u.name(), sets));
      devices.add(AdviceContext.name(u));
      Map<String, Object> c = new LinkedHashMap<>();
      c.put("device", AdviceContext.name(u).toString());
      c.put("gso_max_size", u.link().gsoMaxSize().orElse(-1));
      c.put("gso_max_segs", u.link().gsoMaxSegs().orElse(-1));
      c.put("tso_max_size", u.link().tsoMaxSize().orElse(-1));
      compared.add(c);
    }
    if (commands.isEmpty()) {
      return Optional.empty(); // no upstream device we could change (or the kernel would refuse)
    }
    Map<String, Object> ev = new LinkedHashMap<>();
    ev.put("software_gso_per_sec", round(cost.swSkbsPerSec()));
    ev.put("segments_per_sec", round(cost.swSegmentsPerSec()));
    ev.put("bytes_per_sec", round(cost.swBytesPerSec()));
    ev.put("cause_gso_max_size_share", round(sizeShare));
    ev.put("cause_gso_max_segs_share", round(segsShare));
    ev.put("cpu_cores", cost.gsoCpu().cores());
    ev.put("cpu_basis", cost.gsoCpu().explanation());
    ev.put("duration_p50_ns", cost.swDurationQuantileNanos(0.5));
    ev.put("duration_p99_ns", cost.swDurationQuantileNanos(0.99));
    ev.put("mode", cost.gsoMode());
    ev.put("device_gso_max_size", dSize.orElse(-1));
    ev.put("device_gso_max_segs", dSegs.orElse(-1));
    ev.put("upstream", compared);
    double saving = cost.gsoCpu().cores() * Math.min(1, sizeShare + segsShare);
    String confidence = sizeShare + segsShare >= 0.9 ? "high" : "medium";
    return Optional.of(new Finding(name(), "warning", AdviceContext.name(d), devices,
        String.format("%s segments %.0f super-packets/s in software because they exceed its %s; the devices "
            + "feeding it advertise larger limits", AdviceContext.name(d), cost.swSkbsPerSec(),
            sizeShare >= segsShare ? "gso_max_size (" + dSize.orElse(-1) + ")"
                : "gso_max_segs (" + dSegs.orElse(-1) + ")"),
        ev, commands, saving,
        "the CPU measured segmenting at " + AdviceContext.name(d) + " for these causes ("
            + cost.gsoCpu().basis() + "): it stops once the super-packets fit",
        confidence,
        "TCP on those devices builds smaller super-packets: more per-packet work in the stack above them, "
            + "less than segmenting in software; traffic from those devices to other destinations gets the "
            + "same smaller limit"));
  }

  /**
   * Where the super-packets D transmits come from: walking back from D through everything that hands
   * packets to a device for transmission — the other ports of D's bridge (and, for a veth port, the
   * peer that transmits into it), the devices stacked on D (macvlan, vlan, ...), D's bond master —
   * to the devices nothing hands packets to: there, local sockets size the super-packets. Bridges,
   * bonds and teams are never targets: they take the minimum of their ports' limits already.
   * Routed paths (no link between the devices) are not followed: no advice there.
   */
  static List<Device> sources(AdviceContext ctx, Device d) {
    var inv = ctx.inventory();
    Set<DeviceKey> seen = new HashSet<>(List.of(d.key()));
    java.util.ArrayDeque<Device> queue = new java.util.ArrayDeque<>(List.of(d));
    List<Device> leaves = new ArrayList<>();
    while (!queue.isEmpty()) {
      Device x = queue.poll();
      List<Device> feeders = new ArrayList<>();
      Optional<Device> master = inv.master(x);
      if (master.isPresent()) {
        Device m = master.get();
        if (m.kind().equals("bridge")) {
          for (Device port : inv.ports(m)) {
            if (!port.key().equals(x.key())) {
              // a port forwards what it receives: from its veth peer, or from the wire
              Optional<Device> peer = isPair(port) ? inv.linkTarget(port) : Optional.empty();
              feeders.add(peer.orElse(port));
            }
          }
        } else {
          feeders.add(m); // bond/team: the master transmits through its ports
        }
      }
      for (Device u : inv.devices()) {
        if (!isPair(u) && u.link().lower().isPresent()
            && inv.linkTarget(u).map(t -> t.key().equals(x.key())).orElse(false)) {
          feeders.add(u); // stacked on x
        }
      }
      boolean fed = false;
      for (Device f : feeders) {
        if (seen.add(f.key())) {
          queue.add(f);
          fed = true;
        }
      }
      if (!fed && x != d) {
        String kind = x.kind();
        if (!kind.equals("bridge") && !kind.equals("bond") && !kind.equals("team")) {
          leaves.add(x);
        }
      }
    }
    return leaves;
  }

  private static boolean isPair(Device d) {
    return d.kind().equals("veth") || d.kind().equals("netkit");
  }

  static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}

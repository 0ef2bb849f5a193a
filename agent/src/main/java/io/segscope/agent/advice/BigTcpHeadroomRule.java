package io.segscope.agent.advice;

import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Netns;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code big_tcp_headroom} (advisory): a physical NIC carrying GSO traffic whose driver takes
 * super-packets far larger ({@code tso_max_size}) than it advertises ({@code gso_max_size} ≤ 64 KiB).
 * Raising gso_max_size (BIG TCP) halves or better the per-packet stack work for bulk flows. Also when
 * BIG TCP is on for IPv6 only: gso_max_size above 64 KiB, gso_ipv4_max_size (kernel 6.3+) still at
 * 64 KiB: the command raises the IPv4 limit. Virtual devices are left alone: their tso_max_size is a
 * software limit, not driver headroom.
 */
public final class BigTcpHeadroomRule implements Rule {

  /** The size the BIG TCP authors used: large enough to matter, well inside every driver's limit. */
  static final long BIG_TCP_SIZE = 185_000;

  @Override
  public String name() {
    return "big_tcp_headroom";
  }

  @Override
  public Optional<Finding> evaluate(DeviceCost cost, AdviceContext ctx) {
    if (cost.offloadedSkbsPerSec() < ctx.thresholds().minOffloadedPerSec()) {
      return Optional.empty();
    }
    Optional<AdviceContext.Located> at = ctx.locate(cost);
    if (at.isEmpty()) {
      return Optional.empty();
    }
    Device d = at.get().device();
    Netns ns = at.get().netns();
    var l = d.link();
    if (!d.kind().isEmpty() || d.name().equals("lo") || l.gsoMaxSize().isEmpty() || l.tsoMaxSize().isEmpty()) {
      return Optional.empty();
    }
    long gso = l.gsoMaxSize().getAsLong();
    long tso = l.tsoMaxSize().getAsLong();
    List<Command> commands = new ArrayList<>();
    long target;
    String what;
    String explanation;
    if (gso <= 65536 && tso >= 2 * gso) {
      target = Math.min(tso, BIG_TCP_SIZE);
      commands.add(NetnsCommands.ipLinkSet(ns, d.name(), List.of("gso_max_size", Long.toString(target))));
      what = "BIG TCP is possible";
      explanation = l.gsoIpv4MaxSize().isPresent() ? "The command enables BIG TCP for IPv6. For IPv4 too (kernel "
          + "6.3+): ip link set dev " + d.name() + " gso_ipv4_max_size " + target + " (iproute2 6.3 or later: older "
          + "ip does not know the keyword)." : "";
    } else if (gso > 65536 && l.gsoIpv4MaxSize().isPresent() && l.gsoIpv4MaxSize().getAsLong() <= 65536
        && tso >= 2 * l.gsoIpv4MaxSize().getAsLong()) {
      // BIG TCP on for IPv6 only: the IPv4 limit (kernel 6.3+) is still the legacy 64 KiB; only the
      // gso_ipv4_max_size keyword (iproute2 6.3+) raises it, so no command is given
      target = Math.min(gso, Math.min(tso, BIG_TCP_SIZE));
      what = "BIG TCP is on for IPv6 (gso_max_size " + gso + ") but not for IPv4 (gso_ipv4_max_size "
          + l.gsoIpv4MaxSize().getAsLong() + ")";
      explanation = "To enable IPv4 BIG TCP: ip link set dev " + d.name() + " gso_ipv4_max_size " + target
          + " in its namespace. It needs iproute2 6.3 or later (older ip does not know the keyword), so segscope "
          + "gives it as text, not as a command.";
    } else {
      return Optional.empty();
    }
    Map<String, Object> ev = new LinkedHashMap<>();
    ev.put("offloaded_per_sec", Evidence.round(cost.offloadedSkbsPerSec()));
    ev.put("gso_max_size", gso);
    ev.put("tso_max_size", tso);
    ev.put("gso_ipv4_max_size", l.gsoIpv4MaxSize().orElse(-1));
    return Optional.of(new Finding(name(), "info", AdviceContext.ref(d), List.of(AdviceContext.ref(d)),
        String.format("%s takes super-packets up to %d bytes but advertises %d: %s",
            AdviceContext.label(d), tso, commands.isEmpty() ? l.gsoIpv4MaxSize().getAsLong() : gso, what),
        ev, commands, 0,
        "not estimated: fewer, larger super-packets cut per-packet stack work; measure before and after",
        "low",
        "BIG TCP needs the receiver's gro_max_size (gro_ipv4_max_size for IPv4) raised too; middleboxes that "
            + "inspect super-packets (tc, netfilter helpers) see larger skbs; devices stacked on or bridged with it "
            + "keep their own, smaller limits",
        explanation));
  }
}

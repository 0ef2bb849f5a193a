package io.segscope.agent.advice;

import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.DeviceGraph;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.exporters.model.DeviceRef;
import io.segscope.vocabulary.Cause;
import io.segscope.vocabulary.GsoType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * {@code mtu_mismatch}: device D's namespace forwards GSO super-packets whose segments are larger
 * than D's MTU (cause {@code mtu}, site {@code ip_output_mtu}): the kernel segments each one in
 * software and then fragments every segment ({@code ip_finish_output_gso}). It happens when the
 * senders' packets carry no DF bit (PMTU discovery off, {@code ip_no_pmtu_disc}) and their MTU is
 * larger than the path's, typically a pod MTU above an overlay's or a tunnel's.
 *
 * <p>The senders are D's sources in the device graph, through the router namespace. For each local
 * one with a larger MTU: {@code ip link set dev U mtu <D's MTU>} (D's route MTU metric when smaller),
 * when the kernel accepts it (U's min_mtu..max_mtu, at least 68, 1280 for IPv6 traffic). Senders on
 * other hosts (traffic arriving on a physical device) get an explanation: clamp the TCP MSS on the
 * router, or lower their MTU there.
 */
public final class MtuMismatchRule implements Rule {

  static final int MAX_SOURCES = 32;

  @Override
  public String name() {
    return "mtu_mismatch";
  }

  @Override
  public Optional<Finding> evaluate(DeviceCost cost, AdviceContext ctx) {
    double share = cost.causeShare(Cause.MTU);
    Optional<AdviceContext.Located> at = ctx.locateSegmenting(cost, share);
    if (at.isEmpty()) {
      return Optional.empty();
    }
    Device d = at.get().device();
    long mtu = d.link().mtu();
    OptionalLong routeMtu = ctx.inventory().routing(d.netns()).egress().getOrDefault(d.ifindex(), OptionalLong.empty());
    if (routeMtu.isPresent()) {
      mtu = Math.min(mtu, routeMtu.getAsLong());
    }
    boolean v6 = cost.typeShare(GsoType.TCP6) > 0;
    long floor = v6 ? 1280 : 68;
    List<Command> commands = new ArrayList<>();
    List<DeviceRef> devices = new ArrayList<>(List.of(AdviceContext.ref(d)));
    List<Map<String, Object>> senders = new ArrayList<>();
    for (DeviceGraph.Source src : ctx.localSources(d, MAX_SOURCES)) {
      Device u = src.device();
      Optional<Netns> ns = ctx.netns(u.netns());
      if (ns.isEmpty() || u.link().mtu() <= mtu || u.link().master().isPresent()
          || DeviceGraph.Origin.LOCAL != src.origin() || isMaster(ctx, u)) {
        continue;
      }
      if (mtu < Math.max(floor, u.link().minMtu().orElse(68)) || mtu > u.link().maxMtu().orElse(Long.MAX_VALUE)) {
        continue; // the kernel would refuse it
      }
      commands.add(NetnsCommands.ipLinkSet(ns.get(), u.name(), List.of("mtu", Long.toString(mtu))));
      devices.add(AdviceContext.ref(u));
      senders.add(sender(ctx, src));
    }
    List<String> wire = ctx.graph().sources(d.id()).stream()
        .filter(s -> s.origin() == DeviceGraph.Origin.WIRE).map(s -> AdviceContext.label(s.device())).toList();
    Map<String, Object> ev = Evidence.gso(cost);
    ev.put("cause_mtu_share", Evidence.round(share));
    ev.put("device_mtu", d.link().mtu());
    ev.put("route_mtu", routeMtu.isPresent() ? routeMtu.getAsLong() : -1);
    ev.put("senders", senders);
    ev.put("from_other_hosts_via", wire);
    double saving = commands.isEmpty() ? 0 : cost.gsoCpu().cores() * share;
    return Optional.of(new Finding(name(), "warning", AdviceContext.ref(d), devices,
        String.format("%s segments and fragments %.0f forwarded super-packets/s whose segments exceed its MTU (%d)",
            AdviceContext.label(d), cost.swSkbsPerSec(), mtu),
        ev, commands, saving,
        commands.isEmpty() ? "none: there is no command to run on this host"
            : "the CPU measured segmenting at " + AdviceContext.label(d) + " for this cause (" + cost.gsoCpu().basis()
                + "): senders with the path's MTU build segments that fit",
        commands.isEmpty() ? "high" : share >= 0.9 ? "high" : "medium",
        commands.isEmpty() ? "none"
            : "every packet those devices send gets the smaller MTU, also toward destinations whose path takes the "
                + "larger one; their peers (the other end of a veth) keep theirs",
        otherSenders(d, mtu, wire, commands.isEmpty())));
  }

  /**
   * What to do about senders this host cannot change (other hosts behind {@code wire}, or none found
   * here): empty when the commands reach every sender.
   */
  private static String otherSenders(Device d, long mtu, List<String> wire, boolean noCommands) {
    if (wire.isEmpty() && !noCommands) {
      return "";
    }
    return "Senders behind " + (wire.isEmpty() ? "this router" : String.join(", ", wire))
        + " that this host cannot change: clamp the TCP MSS to the path MTU for traffic leaving "
        + AdviceContext.label(d)
        + " (an iptables/nftables TCPMSS rule in its namespace), lower those senders' MTU to " + mtu
        + ", or let them use PMTU discovery (DF set: the router then reports the smaller MTU instead of "
        + "segmenting and fragmenting).";
  }

  private static boolean isMaster(AdviceContext ctx, Device u) {
    return !ctx.inventory().ports(u).isEmpty();
  }

  /** A sender whose MTU the finding lowers, as the evidence lists it. */
  private static Map<String, Object> sender(AdviceContext ctx, DeviceGraph.Source src) {
    Device u = src.device();
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("device", AdviceContext.label(u));
    s.put("mtu", u.link().mtu());
    s.put("distance", src.distance());
    s.put("gso_per_sec", Evidence.round(ctx.gsoTraffic(u.id())));
    return s;
  }
}

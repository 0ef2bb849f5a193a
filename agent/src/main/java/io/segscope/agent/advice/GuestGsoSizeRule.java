package io.segscope.agent.advice;

import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.DeviceGraph;
import io.segscope.agent.inventory.model.Relation;
import io.segscope.vocabulary.Cause;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code guest_gso_size_mismatch}: the hypervisor path of the gso_max_size mismatch. Device D (an
 * uplink) segments in software because the super-packets exceed its gso_max_size, and they come
 * from guests: a VM's virtio-net writes them through a tap (vhost-net) or macvtap, sized for the
 * guest's own device (64 KiB unless changed inside the guest), which no host command can lower.
 *
 * <p>When D's gso_max_size was lowered below what its driver takes (its tso_max_size), the host
 * command raises it back ({@code ip link set dev D gso_max_size N}, N = min(64 KiB,
 * tso_max_size)). Otherwise an explanation: set gso_max_size inside the guests.
 */
public final class GuestGsoSizeRule implements Rule {

  @Override
  public String name() {
    return "guest_gso_size_mismatch";
  }

  @Override
  public Optional<Finding> evaluate(DeviceCost cost, AdviceContext ctx) {
    var t = ctx.thresholds();
    if (cost.swSkbsPerSec() < t.minSoftwareGsoPerSec()) {
      return Optional.empty();
    }
    double share = cost.causeShare(Cause.GSO_MAX_SIZE) + cost.causeShare(Cause.GSO_MAX_SEGS);
    if (share < t.minCauseShare()) {
      return Optional.empty();
    }
    Optional<AdviceContext.Located> at = ctx.locate(cost);
    if (at.isEmpty()) {
      return Optional.empty();
    }
    Device d = at.get().device();
    List<String> guests = new ArrayList<>();
    if (DeviceGraph.GUEST_TX_KINDS.contains(d.kind()) && ctx.graph().sources(d.id()).stream()
        .noneMatch(s -> s.relation() == Relation.UPPER)) {
      guests.add(AdviceContext.label(d)); // the macvtap itself: the hypervisor writes into it
    }
    ctx.graph().sources(d.id()).stream().filter(s -> s.origin() == DeviceGraph.Origin.GUEST)
        .forEach(s -> guests.add(AdviceContext.label(s.device())));
    if (guests.isEmpty()) {
      return Optional.empty();
    }
    long size = d.link().gsoMaxSize().orElse(-1);
    long tso = d.link().tsoMaxSize().orElse(-1);
    long target = tso > 0 ? Math.min(GsoSizeMismatchRule.LEGACY_MAX, tso) : -1;
    List<Command> commands = new ArrayList<>();
    if (size > 0 && target > size && cost.causeShare(Cause.GSO_MAX_SIZE) > 0) {
      commands.add(NetnsCommands.ipLinkSet(at.get().netns(), d.name(),
          List.of("gso_max_size", Long.toString(target))));
    }
    Map<String, Object> ev = Evidence.gso(cost);
    ev.put("cause_gso_max_size_share", Evidence.round(cost.causeShare(Cause.GSO_MAX_SIZE)));
    ev.put("cause_gso_max_segs_share", Evidence.round(cost.causeShare(Cause.GSO_MAX_SEGS)));
    ev.put("device_gso_max_size", size);
    ev.put("device_tso_max_size", tso);
    ev.put("guest_devices", guests);
    Map<String, Object> guestAdvice = new LinkedHashMap<>();
    guestAdvice.put("inside_each_guest", "ip link set dev <its interface> gso_max_size " + size);
    ev.put("guest_side", guestAdvice);
    String explanation = "The guests behind " + String.join(", ", guests) + " size their super-packets for their "
        + "own virtio-net device; inside each guest, `ip link set dev <its interface> gso_max_size " + size
        + "` makes them fit " + AdviceContext.label(d) + (commands.isEmpty()
            ? "; no host command can (its driver takes no more than " + (tso > 0 ? tso : size) + " bytes)."
            : "; the host command instead raises " + AdviceContext.label(d) + " back to what its driver takes.");
    return Optional.of(new Finding(name(), "warning", AdviceContext.ref(d), List.of(AdviceContext.ref(d)),
        String.format("%s segments %.0f super-packets/s from guests (%s) in software: they exceed its gso_max_size "
            + "(%d)", AdviceContext.label(d), cost.swSkbsPerSec(), String.join(", ", guests), size),
        ev, commands, commands.isEmpty() ? 0 : cost.gsoCpu().cores() * Math.min(1, share),
        commands.isEmpty() ? "none: the change is inside the guests"
            : "the CPU measured segmenting at " + AdviceContext.label(d) + " (" + cost.gsoCpu().basis()
                + "): it stops once its limit holds the guests' super-packets",
        share >= 0.9 ? "high" : "medium",
        commands.isEmpty() ? "none"
            : "someone may have lowered " + AdviceContext.label(d) + "'s gso_max_size on purpose (a driver bug with "
                + "large super-packets): raising it undoes that",
        explanation));
  }
}

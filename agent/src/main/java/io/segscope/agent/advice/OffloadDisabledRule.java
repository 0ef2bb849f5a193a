package io.segscope.agent.advice;

import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Features;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.vocabulary.Cause;
import io.segscope.vocabulary.GsoType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code offload_disabled}: device D segments in software because its features lack the
 * segmentation offload the super-packets need, and D lets the user turn it on (the feature is not
 * "[fixed]"). The GSO types seen choose the feature: TCP (tcp4, tcp6) needs TSO, UDP GSO
 * ({@code UDP_SEGMENT} senders, QUIC: udp_l4) needs {@code tx-udp-segmentation}; tunnel types are
 * {@link TunnelOffloadRule}'s. Typical after {@code ethtool -K D tso off} under a macvlan (docs/kernel.md:
 * 5507 → 1204 Mbit/s in the original report). Turning TSO on also needs scatter-gather and a TX checksum
 * offload (netdev_fix_features drops TSO without them): the command includes whichever is off.
 *
 * <p>No advice when the missing feature is fixed off (the driver cannot do it; the chain has to
 * segment somewhere) or when the missing feature cannot be told from the device's feature set. The
 * risk text says when D is of a kind or driver that fleets run with offloads off on purpose.
 */
public final class OffloadDisabledRule implements Rule {

  static final String SG = "tx-scatter-gather";
  static final String TSO4 = "tx-tcp-segmentation";
  static final String TSO6 = "tx-tcp6-segmentation";
  static final String UDP_SEG = "tx-udp-segmentation";
  static final List<String> CSUM = List.of("tx-checksum-ip-generic", "tx-checksum-ipv4", "tx-checksum-ipv6");

  @Override
  public String name() {
    return "offload_disabled";
  }

  @Override
  public Optional<Finding> evaluate(DeviceCost cost, AdviceContext ctx) {
    var t = ctx.thresholds();
    if (cost.swSkbsPerSec() < t.minSoftwareGsoPerSec()) {
      return Optional.empty();
    }
    double share = cost.causeShare(Cause.FEATURE_MISSING);
    if (share < t.minCauseShare()) {
      return Optional.empty();
    }
    boolean typesKnown = Evidence.typesKnown(cost);
    if (typesKnown && Evidence.tunnelShare(cost) >= 0.5) {
      return Optional.empty(); // encapsulated super-packets: the tunnel offloads are missing (tunnel_offload_missing)
    }
    Optional<AdviceContext.Located> at = ctx.locate(cost);
    if (at.isEmpty() || !at.get().device().features().available()) {
      return Optional.empty();
    }
    Device d = at.get().device();
    Netns ns = at.get().netns();
    Features f = d.features();
    boolean tcp = !typesKnown || cost.typeShare(GsoType.TCP4) + cost.typeShare(GsoType.TCP6) > 0;
    boolean udp = typesKnown && cost.typeShare(GsoType.UDP_L4) > 0;
    List<String> missing = new ArrayList<>();
    Optional<List<String>> on = turnOn(f, tcp, udp, typesKnown, missing);
    if (on.isEmpty()) {
      return Optional.empty();
    }
    Command command = NetnsCommands.ethtoolK(ns, d.name(), on.get());
    Map<String, Object> ev = evidence(cost, share, d);
    return Optional.of(new Finding(name(), "warning", AdviceContext.ref(d), List.of(AdviceContext.ref(d)),
        String.format("%s segments %.0f super-packets/s in software because %s %s off on it",
            AdviceContext.label(d), cost.swSkbsPerSec(), String.join(" and ", missing),
            missing.size() > 1 ? "are" : "is"),
        ev, List.of(command), cost.gsoCpu().cores() * share,
        "the CPU measured segmenting at " + AdviceContext.label(d) + " for this cause (" + cost.gsoCpu().basis()
            + "): the driver takes the super-packets intact once the offload is on",
        share >= 0.9 ? "high" : "medium", DeliberateOffloads.risk(d)));
  }

  /**
   * The ethtool -K settings that turn the missing offloads on (the ones named are added to {@code missing}), with
   * scatter-gather and checksumming where they are off too; empty when a needed one is fixed off or none can be
   * named from the feature set.
   */
  private static Optional<List<String>> turnOn(Features f, boolean tcp, boolean udp, boolean typesKnown,
      List<String> missing) {
    List<String> turnOn = new ArrayList<>();
    boolean tsoOff = !f.isActive(TSO4) || !f.isActive(TSO6);
    if (tcp && tsoOff) {
      if (f.isFixed(TSO4) && !f.isActive(TSO4)) {
        return Optional.empty(); // fixed off: nothing the user can enable here
      }
      missing.add("tso");
      turnOn.addAll(List.of("tso", "on"));
    }
    boolean udpOff = f.known().contains(UDP_SEG) && !f.isActive(UDP_SEG);
    if ((udp || (!typesKnown && !tsoOff)) && udpOff) {
      if (f.isFixed(UDP_SEG)) {
        return Optional.empty();
      }
      missing.add(UDP_SEG);
      turnOn.addAll(List.of(UDP_SEG, "on"));
    }
    if (turnOn.isEmpty()) {
      return Optional.empty(); // the missing bit is not one we can name from the feature set
    }
    if (!f.isActive(SG)) {
      if (f.isFixed(SG)) {
        return Optional.empty(); // segmentation offloads cannot stay on without scatter-gather
      }
      turnOn.addAll(0, List.of("sg", "on"));
    }
    if (CSUM.stream().noneMatch(f::isActive)) {
      if (CSUM.stream().allMatch(f::isFixed)) {
        return Optional.empty();
      }
      turnOn.addAll(0, List.of("tx", "on"));
    }
    return Optional.of(turnOn);
  }

  private static Map<String, Object> evidence(DeviceCost cost, double share, Device d) {
    Features f = d.features();
    Map<String, Object> ev = Evidence.gso(cost);
    ev.put("cause_feature_missing_share", Evidence.round(share));
    ev.put("features_off", List.of(SG, TSO4, TSO6, UDP_SEG).stream()
        .filter(x -> f.known().contains(x) && !f.isActive(x)).toList());
    ev.put("kind", d.kind().isEmpty() ? "physical" : d.kind());
    if (!d.driver().isEmpty()) {
      ev.put("driver", d.driver());
    }
    DeliberateOffloads.reason(d).ifPresent(r -> ev.put("often_off_on_purpose", true));
    return ev;
  }
}

package io.segscope.agent.advice;

import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Features;
import io.segscope.vocabulary.Cause;
import io.segscope.vocabulary.GsoType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code tunnel_offload_missing}: device D (typically the underlay of a vxlan or geneve overlay)
 * segments encapsulated super-packets in software (cause {@code tunnel_feature_missing}: what D lacks
 * in features &amp; hw_enc_features is the tunnel's own GSO bit; or {@code feature_missing} with GSO type
 * udp_tunnel, gre or ipip). The cause does not say which of the two masks lacks it; D's ethtool
 * features do: where the tunnel segmentation feature of the GSO type seen is off and changeable (an
 * {@code ethtool -K u0 tx-udp_tnl-segmentation off}, as in lab scenario S4): {@code ethtool -K D
 * tx-udp_tnl-segmentation on} (and the csum variant, gre, ipxip likewise). Where it is fixed off, or
 * on (so only hw_enc_features lacks it): an explanation without a command (the driver cannot do it).
 */
public final class TunnelOffloadRule implements Rule {

  /** The features that segment each tunnel GSO type (plain and checksummed outer UDP/GRE). */
  static final Map<GsoType, List<String>> FEATURES = Map.of(
      GsoType.UDP_TUNNEL, List.of("tx-udp_tnl-segmentation", "tx-udp_tnl-csum-segmentation"),
      GsoType.GRE, List.of("tx-gre-segmentation", "tx-gre-csum-segmentation"),
      GsoType.IPIP, List.of("tx-ipxip4-segmentation", "tx-ipxip6-segmentation"));

  @Override
  public String name() {
    return "tunnel_offload_missing";
  }

  @Override
  public Optional<Finding> evaluate(DeviceCost cost, AdviceContext ctx) {
    double tunnelCause = cost.causeShare(Cause.TUNNEL_FEATURE_MISSING);
    double missingEncap = Math.min(cost.causeShare(Cause.FEATURE_MISSING), Evidence.tunnelShare(cost));
    double share = Math.min(1, tunnelCause + missingEncap);
    Optional<AdviceContext.Located> at = ctx.locateSegmenting(cost, share);
    if (at.isEmpty()) {
      return Optional.empty();
    }
    Device d = at.get().device();
    Features f = d.features();
    List<String> turnOn = new ArrayList<>();
    List<String> fixedOff = new ArrayList<>();
    if (f.available()) {
      offFeatures(f, tunnelTypes(cost), turnOn, fixedOff);
    }
    Map<String, Object> ev = Evidence.gso(cost);
    ev.put("cause_tunnel_feature_missing_share", Evidence.round(tunnelCause));
    ev.put("cause_feature_missing_share", Evidence.round(cost.causeShare(Cause.FEATURE_MISSING)));
    ev.put("features_fixed_off", fixedOff);
    ev.put("kind", d.kind().isEmpty() ? "physical" : d.kind());
    List<Command> commands = new ArrayList<>();
    String explanation = "";
    double saving = cost.gsoCpu().cores() * share;
    String what;
    // a changeable feature that is off is the cause whichever mask the kernel found it missing from:
    // features & hw_enc_features lacks whatever features lacks
    if (!turnOn.isEmpty()) {
      commands.add(NetnsCommands.ethtoolK(at.get().netns(), d.name(), turnOn));
      what = "its tunnel segmentation offload is off";
    } else {
      saving = 0;
      what = fixedOff.isEmpty() ? "its driver cannot segment inside this encapsulation (hw_enc_features)"
          : "its driver cannot segment tunnelled packets (" + String.join(", ", fixedOff) + " [fixed] off)";
      explanation = "No command can add the offload: the driver does not offer it for encapsulated packets, so "
          + "the kernel segments them in software on this device by design. Only a NIC or driver with tunnel "
          + "segmentation offload, or pod networking without encapsulation (native routing instead of the "
          + "overlay), removes the cost.";
    }
    return Optional.of(new Finding(name(), commands.isEmpty() ? "info" : "warning", AdviceContext.ref(d),
        List.of(AdviceContext.ref(d)),
        String.format("%s segments %.0f encapsulated super-packets/s in software: %s", AdviceContext.label(d),
            cost.swSkbsPerSec(), what),
        ev, commands, saving,
        commands.isEmpty() ? "none: there is no command to run"
            : "the CPU measured segmenting at " + AdviceContext.label(d) + " for this cause ("
                + cost.gsoCpu().basis()
                + "): the driver takes encapsulated super-packets intact once the offload is on",
        commands.isEmpty() ? "high" : share >= 0.9 ? "high" : "medium",
        commands.isEmpty() ? "none" : DeliberateOffloads.risk(d), explanation));
  }

  /** The encapsulations segmented in software here (vxlan/geneve where the types are not known). */
  private static List<GsoType> tunnelTypes(DeviceCost cost) {
    List<GsoType> types = new ArrayList<>();
    for (GsoType g : List.of(GsoType.UDP_TUNNEL, GsoType.GRE, GsoType.IPIP)) {
      if (cost.typeShare(g) > 0) {
        types.add(g);
      }
    }
    if (types.isEmpty()) {
      types.add(GsoType.UDP_TUNNEL); // cause tunnel_feature_missing without type detail: vxlan/geneve by far
    }
    return types;
  }

  /** The offloads of {@code types} that are off: to {@code turnOn} as ethtool settings, or to {@code fixedOff}. */
  private static void offFeatures(Features f, List<GsoType> types, List<String> turnOn, List<String> fixedOff) {
    for (GsoType g : types) {
      for (String feature : FEATURES.get(g)) {
        if (f.known().contains(feature) && !f.isActive(feature)) {
          if (f.isFixed(feature)) {
            fixedOff.add(feature);
          } else {
            turnOn.addAll(List.of(feature, "on"));
          }
        }
      }
    }
  }
}

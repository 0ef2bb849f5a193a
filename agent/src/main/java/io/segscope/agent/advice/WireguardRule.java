package io.segscope.agent.advice;

import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.inventory.model.Device;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code wireguard_segmentation} (info, no command): a WireGuard device segments every GSO
 * super-packet it is given in software, by design: it encrypts and sends each segment as its own
 * UDP datagram, and no NIC offloads that. There is no setting to change; the finding explains where
 * the CPU goes.
 */
public final class WireguardRule implements Rule {

  @Override
  public String name() {
    return "wireguard_segmentation";
  }

  @Override
  public Optional<Finding> evaluate(DeviceCost cost, AdviceContext ctx) {
    if (cost.swSkbsPerSec() < ctx.thresholds().minSoftwareGsoPerSec()) {
      return Optional.empty();
    }
    Optional<AdviceContext.Located> at = ctx.locate(cost);
    if (at.isEmpty() || !at.get().device().kind().equals("wireguard")) {
      return Optional.empty();
    }
    Device d = at.get().device();
    Map<String, Object> ev = Evidence.gso(cost);
    ev.put("kind", "wireguard");
    return Optional.of(new Finding(name(), "info", AdviceContext.ref(d), List.of(AdviceContext.ref(d)),
        String.format("%s (WireGuard) segments %.0f super-packets/s in software: WireGuard has no segmentation "
            + "offload", AdviceContext.label(d), cost.swSkbsPerSec()),
        ev, List.of(), 0, "none: there is no command to run", "high", "none",
        "WireGuard encrypts every segment separately, so it must cut each super-packet into MTU-sized packets itself; "
            + "no driver or NIC offloads this. Nothing on " + AdviceContext.label(d) + " can be changed to avoid it. "
            + "The cost scales with packets, not bytes: a larger tunnel MTU (where the path allows) means fewer "
            + "segments; an IPsec setup with NIC crypto offload is the alternative that offloads."));
  }
}

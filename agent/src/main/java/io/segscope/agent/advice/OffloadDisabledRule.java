package io.segscope.agent.advice;

import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.inventory.Device;
import io.segscope.agent.inventory.Features;
import io.segscope.agent.inventory.Netns;
import io.segscope.exporters.model.GsoCause;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code offload_disabled}: device D segments in software because its features lack the
 * segmentation offload the super-packets need, and D lets the user turn it on (the feature is not
 * "[fixed]"). Typical after {@code ethtool -K D tso off} under a macvlan (docs/kernel.md: 5507 → 1204
 * Mbit/s in the original report). Turning TSO on also needs scatter-gather and a TX checksum
 * offload (netdev_fix_features drops TSO without them): the command includes whichever is off.
 *
 * <p>No advice when the missing feature is fixed off (the driver cannot do it; the chain has to
 * segment somewhere) or when the missing feature cannot be told from the device's feature set.
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
    double share = cost.causeShare(GsoCause.FEATURE_MISSING);
    if (share < t.minCauseShare()) {
      return Optional.empty();
    }
    Optional<AdviceContext.Located> at = ctx.locate(cost);
    if (at.isEmpty() || !at.get().device().features().available()) {
      return Optional.empty();
    }
    Device d = at.get().device();
    Netns ns = at.get().netns();
    Features f = d.features();
    List<String> turnOn = new ArrayList<>();
    String missing;
    if (!f.isActive(TSO4) || !f.isActive(TSO6)) {
      if (f.isFixed(TSO4) && !f.isActive(TSO4)) {
        return Optional.empty(); // fixed off: nothing the user can enable here
      }
      missing = "tso";
      turnOn.addAll(List.of("tso", "on"));
    } else if (f.known().contains(UDP_SEG) && !f.isActive(UDP_SEG)) {
      if (f.isFixed(UDP_SEG)) {
        return Optional.empty();
      }
      missing = UDP_SEG;
      turnOn.addAll(List.of(UDP_SEG, "on"));
    } else {
      return Optional.empty(); // the missing bit is not one we can name from the feature set
    }
    if (!f.isActive(SG)) {
      if (f.isFixed(SG)) {
        return Optional.empty(); // TSO cannot stay on without scatter-gather
      }
      turnOn.addAll(0, List.of("sg", "on"));
    }
    if (CSUM.stream().noneMatch(f::isActive)) {
      if (CSUM.stream().allMatch(f::isFixed)) {
        return Optional.empty();
      }
      turnOn.addAll(0, List.of("tx", "on"));
    }
    Command command = NetnsCommands.ethtoolK(ns, d.name(), turnOn);
    Map<String, Object> ev = new LinkedHashMap<>();
    ev.put("software_gso_per_sec", GsoSizeMismatchRule.round(cost.swSkbsPerSec()));
    ev.put("bytes_per_sec", GsoSizeMismatchRule.round(cost.swBytesPerSec()));
    ev.put("cause_feature_missing_share", GsoSizeMismatchRule.round(share));
    ev.put("cpu_cores", cost.gsoCpu().cores());
    ev.put("cpu_basis", cost.gsoCpu().explanation());
    ev.put("duration_p50_ns", cost.swDurationQuantileNanos(0.5));
    ev.put("duration_p99_ns", cost.swDurationQuantileNanos(0.99));
    ev.put("mode", cost.gsoMode());
    ev.put("features_off", List.of(SG, TSO4, TSO6, UDP_SEG).stream()
        .filter(x -> f.known().contains(x) && !f.isActive(x)).toList());
    return Optional.of(new Finding(name(), "warning", AdviceContext.name(d), List.of(AdviceContext.name(d)),
        String.format("%s segments %.0f super-packets/s in software because %s is off on it",
            AdviceContext.name(d), cost.swSkbsPerSec(), missing),
        ev, List.of(command), cost.gsoCpu().cores() * share,
        "the CPU measured segmenting at " + AdviceContext.name(d) + " for this cause (" + cost.gsoCpu().basis()
            + "): the driver takes the super-packets intact once the offload is on",
        share >= 0.9 ? "high" : "medium",
        "whoever turned the offload off may have had a reason (a driver bug, a capture tool that wants "
            + "wire-size packets): check before turning it on"));
  }
}

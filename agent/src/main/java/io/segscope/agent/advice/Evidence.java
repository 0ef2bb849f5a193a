package io.segscope.agent.advice;

import io.segscope.agent.cost.DeviceCost;
import io.segscope.vocabulary.GsoType;
import io.segscope.vocabulary.Site;
import java.util.LinkedHashMap;
import java.util.Map;

/** The evidence every software-GSO finding carries, and rounding for JSON. */
final class Evidence {
  private Evidence() {}

  static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }

  /** Rates, CPU and its basis, quantiles, mode, and the shares of call sites and GSO types seen. */
  static Map<String, Object> gso(DeviceCost cost) {
    Map<String, Object> ev = new LinkedHashMap<>();
    ev.put("software_gso_per_sec", round(cost.swSkbsPerSec()));
    ev.put("segments_per_sec", round(cost.swSegmentsPerSec()));
    ev.put("bytes_per_sec", round(cost.swBytesPerSec()));
    ev.put("offloaded_per_sec", round(cost.offloadedSkbsPerSec()));
    ev.put("cpu_cores", cost.gsoCpu().cores());
    ev.put("cpu_basis", cost.gsoCpu().explanation());
    ev.put("duration_p50_ns", cost.swDurationQuantileNanos(0.5));
    ev.put("duration_p99_ns", cost.swDurationQuantileNanos(0.99));
    ev.put("mode", cost.gsoMode());
    Map<String, Object> sites = new LinkedHashMap<>();
    for (Site s : Site.values()) {
      if (cost.siteShare(s) > 0) {
        sites.put(s.label(), round(cost.siteShare(s)));
      }
    }
    ev.put("site_shares", sites);
    Map<String, Object> types = new LinkedHashMap<>();
    for (GsoType t : GsoType.values()) {
      if (cost.typeShare(t) > 0) {
        types.put(t.label(), round(cost.typeShare(t)));
      }
    }
    ev.put("gso_type_shares", types);
    return ev;
  }

  /** Whether the window says which GSO types were segmented (the probes report them per device). */
  static boolean typesKnown(DeviceCost cost) {
    double sum = 0;
    for (GsoType t : GsoType.values()) {
      sum += cost.typeShare(t);
    }
    return sum > 0;
  }

  /** The share of tunnel GSO types (udp_tunnel, gre, ipip): the inner packet of an encapsulation. */
  static double tunnelShare(DeviceCost cost) {
    return cost.typeShare(GsoType.UDP_TUNNEL) + cost.typeShare(GsoType.GRE) + cost.typeShare(GsoType.IPIP);
  }
}

package io.segscope.agent.advice;

import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.DeviceGraph;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How a {@link GsoSizeMismatchRule} finding reads: its evidence (D's limits, the feeders compared, the limit
 * case and why), the end of its sentence, its risk and the explanation of a raise only iproute2 6.3 can make.
 * The decisions are the rule's; the words are here.
 */
final class GsoSizeMismatchFinding {
  private GsoSizeMismatchFinding() {}

  /** One feeder as the evidence's {@code upstream} lists it. */
  static Map<String, Object> comparison(AdviceContext ctx, DeviceGraph.Source src, boolean changed) {
    Device u = src.device();
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("device", AdviceContext.label(u));
    c.put("kind", u.kind().isEmpty() ? "physical" : u.kind());
    c.put("relation", src.relation().name().toLowerCase(Locale.ROOT));
    c.put("distance", src.distance());
    c.put("gso_per_sec", Evidence.round(ctx.gsoTraffic(u.id())));
    c.put("gso_max_size", u.link().gsoMaxSize().orElse(-1));
    c.put("gso_ipv4_max_size", u.link().gsoIpv4MaxSize().orElse(-1));
    c.put("gso_max_segs", u.link().gsoMaxSegs().orElse(-1));
    c.put("tso_max_size", u.link().tsoMaxSize().orElse(-1));
    c.put("changed", changed);
    return c;
  }

  static Map<String, Object> evidence(DeviceCost cost, Device d, GsoSizeMismatchRule.Limits before, double sizeShare,
      double segsShare, String limitCase, GsoSizeMismatchRule.Raise raise, List<Map<String, Object>> compared) {
    Map<String, Object> ev = Evidence.gso(cost);
    ev.put("cause_gso_max_size_share", Evidence.round(sizeShare));
    ev.put("cause_gso_max_segs_share", Evidence.round(segsShare));
    ev.put("device_gso_max_size", before.size().orElse(-1));
    ev.put("device_gso_ipv4_max_size", d.link().gsoIpv4MaxSize().orElse(-1));
    ev.put("device_gso_max_segs", before.segs().orElse(-1));
    ev.put("device_tso_max_size", d.link().tsoMaxSize().orElse(-1));
    ev.put("device_tso_max_segs", d.link().tsoMaxSegs().orElse(-1));
    ev.put("limit_case", limitCase);
    ev.put("limit_case_why", raise.why());
    ev.put("upstream", compared);
    return ev;
  }

  /** The end of the finding's sentence: what the commands do in this limit case. */
  static String what(String limitCase) {
    return switch (limitCase) {
      case "setting" -> "; its limit is a setting below what its driver takes: raise it";
      case "setting_and_cap" -> "; raise its limit to what its driver takes, and bring the feeders above that down";
      case "setting_ipv4_keyword" -> "; its IPv4 limit is a setting, but only iproute2 6.3 or later raises it above 64 "
          + "KiB: the commands bring the feeders down (the explanation gives the raise)";
      default -> "; its limit is its driver's cap: bring the feeders down to it";
    };
  }

  static String risk(Device d, GsoSizeMismatchRule.Raise raise, boolean shrinks, boolean ipv4Keyword) {
    String risk = "";
    if (!raise.sets().isEmpty()) {
      risk = AdviceContext.label(d) + " hands larger super-packets on (up to " + raise.after().size().orElse(-1)
          + " bytes): someone may have lowered its limit on purpose (a driver or device bug with large "
          + "super-packets), and raising it undoes that";
    }
    if (shrinks) {
      risk += (risk.isEmpty() ? "" : "; ") + "TCP on the feeding devices builds smaller super-packets: more per-packet "
          + "work in the stack above them, less than segmenting in software; traffic from those devices to other "
          + "destinations gets the same smaller limit";
    }
    if (ipv4Keyword) {
      risk += "; the gso_ipv4_max_size keyword needs iproute2 6.3 or later (older ip refuses it)";
    }
    return risk;
  }

  /** The raise only the gso_ipv4_max_size keyword makes, given as text (empty where there is none). */
  static String keywordExplanation(Device d, GsoSizeMismatchRule.Raise raise) {
    return raise.keywordV4() <= 0 ? "" : "Better than bringing the feeders' IPv4 limit down: raise "
        + AdviceContext.label(d) + "'s to " + raise.keywordV4() + " (ip link set dev " + d.name()
        + " gso_ipv4_max_size " + raise.keywordV4() + " in its namespace); it needs iproute2 6.3 or later (older ip "
        + "does not know the keyword), so segscope gives it as text, not as a command.";
  }
}

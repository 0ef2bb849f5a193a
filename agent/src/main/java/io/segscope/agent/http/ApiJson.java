package io.segscope.agent.http;

import io.segscope.agent.advice.Command;
import io.segscope.agent.advice.Recommendation;
import io.segscope.agent.advice.SavingCheck;
import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.inventory.model.Chain;
import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Features;
import io.segscope.agent.inventory.model.Hop;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.model.Link;
import io.segscope.agent.inventory.model.LinkLimit;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.workload.DeviceWorkloads;
import io.segscope.agent.workload.Workload;
import io.segscope.agent.workload.Workloads;
import io.segscope.device.DeviceId;
import io.segscope.exporters.model.DeviceRef;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Predicate;

/** The JSON documents of the API (schema: docs/api.md). Pure translation. */
final class ApiJson {
  private ApiJson() {}

  static JsonObject devices(Inventory inv, Collection<DeviceCost> costs, Predicate<Device> filter) {
    return devices(inv, costs, filter, Workloads.none());
  }

  /** The inventory with each namespace's workload and the workload each device serves. */
  static JsonObject devices(Inventory inv, Collection<DeviceCost> costs, Predicate<Device> filter,
      Workloads workloads) {
    DeviceWorkloads served = new DeviceWorkloads(inv, workloads);
    Map<DeviceId, DeviceCost> byKey = new HashMap<>();
    for (DeviceCost c : costs) {
      byKey.put(c.id().withoutCookie(), c);
    }
    JsonArray namespaces = new JsonArray();
    for (Netns n : inv.namespaces()) {
      namespaces.add(new JsonObject().put("netns", n.inode()).put("name", n.name()).put("root", n.root())
          .put("workload", workload(workloads.of(n))));
    }
    JsonArray devices = new JsonArray();
    for (Device d : inv.devices()) {
      if (filter.test(d)) {
        JsonObject o = device(inv, d, byKey.get(d.id().withoutCookie()));
        DeviceWorkloads.Served w = served.served(d);
        o.put("workload", workload(w.workload()).put("netns", w.netns()).put("via", w.viaLink() ? "link" : "netns"));
        devices.add(o);
      }
    }
    return new JsonObject().put("read_at", inv.readAt().toString()).put("namespaces", namespaces)
        .put("devices", devices);
  }

  static JsonObject device(Inventory inv, Device d, DeviceCost cost) {
    Link l = d.link();
    JsonObject limits = new JsonObject();
    for (LinkLimit k : LinkLimit.values()) {
      put(limits, k.key(), k.of(l));
    }
    JsonObject xdp = new JsonObject().put("mode", l.xdp().mode().label());
    put(xdp, "prog_id", l.xdp().progId());
    put(xdp, "driver_prog_id", l.xdp().driverProgId());
    put(xdp, "generic_prog_id", l.xdp().genericProgId());
    put(xdp, "hardware_prog_id", l.xdp().hardwareProgId());
    Features f = d.features();
    JsonObject features = new JsonObject().put("source", f.source().name().toLowerCase(Locale.ROOT));
    if (f.available()) {
      features.put("active", new JsonArray(List.copyOf(f.active())))
          .put("fixed", new JsonArray(f.known().stream().filter(f::isFixed).toList()));
    } else {
      features.put("error", f.error());
    }
    JsonObject o = new JsonObject()
        .put("netns", d.netns()).put("netns_name", d.netnsName()).put("name", d.name()).put("ifindex", d.ifindex())
        .put("kind", d.kind()).put("operstate", l.operstate()).put("limits", limits).put("xdp", xdp)
        .put("features", features)
        .put("master", inv.master(d).map(Device::name).orElse(null));
    if (l.lower().isPresent()) {
      JsonObject link = new JsonObject().put("ifindex", l.lower().getAsInt());
      inv.linkTarget(d).ifPresent(t -> link.put("device", t.name()).put("netns", t.netns()));
      o.put("link", link);
    }
    o.put("chain", chain(inv.chain(d)));
    if (cost != null) {
      o.put("cost", cost(cost));
    }
    return o;
  }

  static JsonObject chain(Chain c) {
    return new JsonObject().put("down", hops(c.down())).put("up", hops(c.up()))
        .put("exits", new JsonArray(c.exits().stream().map(k -> new JsonObject().put("netns", k.netns())
            .put("ifindex", k.ifindex())).toList()))
        .put("unresolved", new JsonArray(c.unresolved()));
  }

  private static JsonArray hops(List<Hop> hops) {
    JsonArray a = new JsonArray();
    for (Hop h : hops) {
      a.add(new JsonObject().put("netns", h.device().netns()).put("device", h.name())
          .put("ifindex", h.device().ifindex()).put("relation", h.relation().name().toLowerCase(Locale.ROOT))
          .put("distance", h.distance()));
    }
    return a;
  }

  static JsonObject cost(DeviceCost c) {
    JsonObject causes = new JsonObject();
    c.causesPerSec().forEach((k, v) -> causes.put(k.label(), v));
    return new JsonObject().put("window_seconds", c.seconds())
        .put("gso", new JsonObject().put("mode", c.gsoMode())
            .put("software_skbs_per_sec", c.swSkbsPerSec()).put("segments_per_sec", c.swSegmentsPerSec())
            .put("bytes_per_sec", c.swBytesPerSec()).put("offloaded_skbs_per_sec", c.offloadedSkbsPerSec())
            .put("causes_per_sec", causes).put("cpu_cores", c.gsoCpu().cores()).put("cpu_basis", c.gsoCpu().basis())
            .put("cpu_relative_error", finite(c.gsoCpu().relativeError()))
            .put("timed_skbs", c.swDuration().count())
            .put("duration_p50_ns", finite(c.swDurationQuantileNanos(0.5)))
            .put("duration_p90_ns", finite(c.swDurationQuantileNanos(0.9)))
            .put("duration_p99_ns", finite(c.swDurationQuantileNanos(0.99))))
        .put("xdp_generic", new JsonObject().put("mode", c.xdpMode())
            .put("copied_per_sec", c.xdpCopiedPerSec()).put("passed_per_sec", c.xdpPassedPerSec())
            .put("copied_bytes_per_sec", c.xdpCopiedBytesPerSec()).put("cpu_cores", c.xdpCpu().cores())
            .put("cpu_basis", c.xdpCpu().basis()).put("cpu_relative_error", finite(c.xdpCpu().relativeError())));
  }

  static JsonObject recommendations(List<Recommendation> open) {
    return recommendations(open, null, List.of());
  }

  static JsonObject recommendations(List<Recommendation> open, DeviceWorkloads served) {
    return recommendations(open, served, List.of());
  }

  /**
   * @param served the workload each device serves; null to leave workloads out
   * @param verified what closed recommendations were measured to save, newest first
   */
  static JsonObject recommendations(List<Recommendation> open, DeviceWorkloads served,
      List<SavingCheck.Verification> verified) {
    JsonArray a = new JsonArray();
    for (Recommendation r : open) {
      JsonObject o = recommendation(r);
      if (served != null) {
        var f = r.finding();
        o.getJsonObject("subject").put("workload", workload(served.served(f.subject().id()).workload()));
        JsonArray ds = o.getJsonArray("devices");
        for (int i = 0; i < ds.size() && i < f.devices().size(); i++) {
          ds.getJsonObject(i).put("workload", workload(served.served(f.devices().get(i).id()).workload()));
        }
      }
      a.add(o);
    }
    JsonArray v = new JsonArray();
    verified.forEach(x -> v.add(verification(x)));
    return new JsonObject().put("recommendations", a).put("verified_savings", v);
  }

  /** One closed recommendation's before/after (docs/api.md). */
  static JsonObject verification(SavingCheck.Verification x) {
    Recommendation r = x.recommendation();
    JsonObject o = new JsonObject().put("id", r.id()).put("rule", r.finding().rule()).put("state", r.state())
        .put("subject", name(r.finding().subject())).put("closed_at", x.closedAt().toString())
        .put("verdict", x.verdict()).put("saving_cores", x.savingCores())
        .put("traffic_ratio", finite(x.trafficRatio()))
        .put("traffic_unit", SavingCheck.xdpRule(r.finding()) ? "packets/s" : "bytes/s")
        .put("host_cpu_per_unit_ratio", finite(x.cpuPerUnitRatio()))
        .put("before", measure(x.before()));
    x.after().ifPresent(m -> o.put("after", measure(m)));
    JsonArray undo = new JsonArray();
    x.undo().forEach(c -> undo.add(c.shell()));
    o.put("undo", undo);
    return o;
  }

  private static JsonObject measure(SavingCheck.Measure m) {
    return new JsonObject().put("from", m.from().toString()).put("to", m.to().toString())
        .put("software_per_sec", m.softwarePerSec()).put("cpu_cores", m.cpuCores()).put("cpu_basis", m.cpuBasis())
        .put("traffic_per_sec", m.traffic()).put("host_cpu_cores", finite(m.hostCpuCores()))
        .put("host_cpu_per_unit", finite(m.cpuPerUnit()));
  }

  /** A workload as the API shows it: every field, "" when unknown; pid only when one was read. */
  static JsonObject workload(Workload w) {
    JsonObject o = new JsonObject().put("kind", w.kind().label()).put("name", w.name()).put("pod", w.pod())
        .put("pod_namespace", w.podNamespace()).put("pod_uid", w.podUid()).put("container", w.container())
        .put("runtime", w.runtime()).put("unit", w.unit()).put("process", w.process()).put("source", w.source());
    if (w.pid() > 0) {
      o.put("pid", w.pid());
    }
    return o;
  }

  static JsonObject recommendation(Recommendation r) {
    var f = r.finding();
    JsonObject evidence = new JsonObject();
    f.evidence().forEach((k, v) -> evidence.put(k, jsonValue(v)));
    return new JsonObject().put("id", r.id()).put("rule", f.rule()).put("severity", f.severity())
        .put("summary", f.summary()).put("subject", name(f.subject()))
        .put("devices", new JsonArray(f.devices().stream().map(ApiJson::name).toList()))
        .put("evidence", evidence)
        .put("commands", new JsonArray(f.commands().stream().map(Command::shell).toList()))
        .put("argv", new JsonArray(f.commands().stream().map(c -> new JsonArray(c.argv())).toList()))
        .put("cpu_saving_cores", f.cpuSavingCores()).put("saving_basis", f.savingBasis())
        .put("confidence", f.confidence()).put("risk", f.risk()).put("explanation", f.explanation())
        .put("state", r.state()).put("accepted_by", r.acceptedBy())
        .put("first_seen", r.firstSeen().toString()).put("last_seen", r.lastSeen().toString())
        .put("opened_at", r.openedAt().toString());
  }

  private static JsonObject name(DeviceRef d) {
    return new JsonObject().put("netns", d.netns()).put("netns_name", d.netnsName()).put("device", d.device());
  }

  @SuppressWarnings("unchecked")
  private static Object jsonValue(Object v) {
    if (v instanceof Map<?, ?> m) {
      JsonObject o = new JsonObject();
      ((Map<String, Object>) m).forEach((k, x) -> o.put(k, jsonValue(x)));
      return o;
    }
    if (v instanceof List<?> l) {
      JsonArray a = new JsonArray();
      l.forEach(x -> a.add(jsonValue(x)));
      return a;
    }
    if (v instanceof Double d) {
      return finite(d);
    }
    return v;
  }

  /** JSON has no NaN: unknown quantiles are null. */
  private static Double finite(double v) {
    return Double.isFinite(v) ? v : null;
  }

  private static void put(JsonObject o, String k, OptionalLong v) {
    if (v.isPresent()) {
      o.put(k, v.getAsLong());
    }
  }

  private static void put(JsonObject o, String k, OptionalInt v) {
    if (v.isPresent()) {
      o.put(k, v.getAsInt());
    }
  }
}

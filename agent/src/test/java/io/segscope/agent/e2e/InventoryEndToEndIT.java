package io.segscope.agent.e2e;

import static io.segscope.testkit.PromText.labels;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.agent.inventory.EthtoolJson;
import io.segscope.agent.telemetry.InventoryView;
import io.segscope.lab.Lab;
import io.segscope.lab.LabTest;
import io.segscope.lab.Netns;
import io.segscope.lab.Scenarios;
import io.segscope.testkit.Await;
import io.segscope.testkit.PromText;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * Issue "device inventory", end to end through the running agent: for every device of a lab of 10+
 * devices in 8 namespaces (veth, bridge, macvlan, varied gso_max_size / gso_max_segs / MTU / features,
 * a generic XDP program), /api/v1/devices and the device metrics equal what `ip -d -j link show` and
 * `ethtool --json -k` report inside each namespace; then devices and namespaces come and go while the
 * agent runs and both follow within seconds.
 */
class InventoryEndToEndIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> LIMITS = List.of("gso_max_size", "gso_max_segs", "tso_max_size",
      "tso_max_segs", "gro_max_size");
  private static final Map<String, String> METRIC = Map.of("gso_max_size", "segscope_device_gso_max_size_bytes",
      "gso_max_segs", "segscope_device_gso_max_segments", "tso_max_size", "segscope_device_tso_max_size_bytes",
      "tso_max_segs", "segscope_device_tso_max_segments", "gro_max_size", "segscope_device_gro_max_size_bytes");

  @Test
  @LabTest
  void apiAndMetricsAgreeWithIproute2AndEthtoolAndFollowChurn(Lab lab) throws Exception {
    var s1 = Scenarios.s1GsoMismatch(lab, false);
    Scenarios.s2OffloadLost(lab, false);
    Scenarios.s3GenericXdp(lab, false);
    Netns rcv = s1.receiver();
    lab.set(rcv, "rcv0", "mtu", "9000");
    lab.set(rcv, "rcv0", "gso_max_segs", "1000");
    try (AgentProcess agent = AgentProcess.start("--interval", "1s")) {
      agent.awaitReady(Duration.ofSeconds(90));
      // the lab is settled: wait for an inventory refresh after now and a map read after that
      PromText metrics = agent.scrapeAfterAnInventoryRefreshSince(Instant.now(), Duration.ofSeconds(30));
      JsonNode api = JSON.readTree(agent.get("/api/v1/devices").body());
      SoftAssertions soft = new SoftAssertions();
      int compared = 0;
      for (Netns ns : lab.namespaces()) {
        JsonNode ip = JSON.readTree(lab.exec(ns, "ip", "-d", "-j", "link", "show"));
        for (JsonNode link : ip) {
          String dev = link.path("ifname").asText();
          JsonNode a = find(api, ns.inode(), dev);
          soft.assertThat(a).as("%s/%s in /api/v1/devices", ns.name(), dev).isNotNull();
          if (a == null) {
            continue;
          }
          compared++;
          String where = ns.name() + "/" + dev;
          soft.assertThat(a.path("ifindex").asInt()).as(where + " ifindex").isEqualTo(link.path("ifindex").asInt());
          soft.assertThat(a.path("limits").path("mtu").asInt()).as(where + " mtu").isEqualTo(link.path("mtu").asInt());
          soft.assertThat(a.path("kind").asText()).as(where + " kind")
              .isEqualTo(link.path("linkinfo").path("info_kind").asText(""));
          soft.assertThat(a.path("master").asText("")).as(where + " master").isEqualTo(link.path("master").asText(""));
          Map<String, String> dl = labels("netns", Long.toString(ns.inode()), "device", dev);
          for (String l : LIMITS) {
            if (link.has(l)) {
              soft.assertThat(a.path("limits").path(l).asLong()).as(where + " " + l).isEqualTo(link.path(l).asLong());
              soft.assertThat(metrics.sum(METRIC.get(l), dl)).as(where + " metric " + METRIC.get(l))
                  .isEqualTo((double) link.path(l).asLong());
            }
          }
          soft.assertThat(metrics.sum("segscope_device_mtu_bytes", dl)).as(where + " mtu metric")
              .isEqualTo(link.path("mtu").asDouble());
          String xdp = link.has("xdp") ? (link.path("xdp").path("mode").asInt() == 2 ? "generic" : "other") : "none";
          if (!xdp.equals("other")) {
            soft.assertThat(a.path("xdp").path("mode").asText()).as(where + " xdp").isEqualTo(xdp);
          }
          compareFeatures(soft, lab, ns, dev, a, metrics, dl);
        }
      }
      soft.assertAll();
      assertThat(compared).as("devices compared").isGreaterThanOrEqualTo(10 + lab.namespaces().size());
      // the generic program and the settings the scenarios changed are visible
      assertThat(metrics.sum("segscope_device_info", labels("device", "rcv0", "xdp_mode", "generic"))).isEqualTo(1.0);

      // ---- churn: a namespace with a veth pair appears, one device goes, then the namespace goes
      Lab churn = Lab.create("churn");
      try {
        Netns a = churn.namespace("ca");
        Netns b = churn.namespace("cb");
        churn.veth(a, "ch0", b, "ch1");
        awaitDevices(agent, a.inode(), Set.of("lo", "ch0"), Duration.ofSeconds(3));
        awaitDevices(agent, b.inode(), Set.of("lo", "ch1"), Duration.ofSeconds(3));
        churn.exec(a, "ip", "link", "del", "ch0"); // deletes the pair
        awaitDevices(agent, a.inode(), Set.of("lo"), Duration.ofSeconds(3));
        awaitDevices(agent, b.inode(), Set.of("lo"), Duration.ofSeconds(3));
      } finally {
        churn.close();
      }
      boolean gone = Await.atMost(Duration.ofSeconds(4)).every(Duration.ofMillis(200))
          .until(() -> !agent.get("/metrics").body().contains(churn.prefix()));
      assertThat(gone).as("the churn lab's namespaces left /metrics within 4 s").isTrue();
    }
  }

  private static void compareFeatures(SoftAssertions soft, Lab lab, Netns ns, String dev, JsonNode api,
      PromText metrics, Map<String, String> dl) throws Exception {
    JsonNode eth = JSON.readTree(lab.exec(ns, "ethtool", "--json", "-k", dev)).get(0);
    Set<String> active = new HashSet<>();
    api.path("features").path("active").forEach(f -> active.add(f.asText()));
    Set<String> fixed = new HashSet<>();
    api.path("features").path("fixed").forEach(f -> fixed.add(f.asText()));
    Map<String, Double> exported = new HashMap<>();
    for (var s : metrics.samples("segscope_device_feature_active")) {
      if (s.labels().entrySet().containsAll(dl.entrySet())) {
        exported.put(s.labels().get("feature") + "/" + s.labels().get("fixed"), s.value());
      }
    }
    for (Iterator<String> it = eth.fieldNames(); it.hasNext();) {
      String printed = it.next();
      JsonNode f = eth.path(printed);
      // ethtool prints some kernel features under their legacy ethtool(8) names
      String name = EthtoolJson.LEGACY.getOrDefault(printed, printed);
      if (!f.isObject() || !f.path("active").isBoolean() || !f.path("fixed").isBoolean()) {
        continue; // ethtool's group names (tx-checksumming, ...) have no bit of their own
      }
      boolean on = f.path("active").asBoolean();
      boolean fx = f.path("fixed").asBoolean();
      soft.assertThat(active.contains(name)).as("%s/%s feature %s active", ns.name(), dev, name).isEqualTo(on);
      soft.assertThat(fixed.contains(name)).as("%s/%s feature %s fixed", ns.name(), dev, name).isEqualTo(fx);
      Double m = exported.get(name + "/" + fx);
      if (InventoryView.CURATED_FEATURES.contains(name)) {
        soft.assertThat(m).as("%s/%s metric feature %s fixed=%s", ns.name(), dev, name, fx).isEqualTo(on ? 1.0 : 0.0);
      }
    }
  }

  private static JsonNode find(JsonNode api, long netns, String dev) {
    for (JsonNode d : api.path("devices")) {
      if (d.path("netns").asLong() == netns && d.path("name").asText().equals(dev)) {
        return d;
      }
    }
    return null;
  }

  private static void awaitDevices(AgentProcess agent, long netns, Set<String> expected, Duration timeout)
      throws Exception {
    List<Set<String>> seen = new ArrayList<>(List.of(Set.of()));
    Await.atMost(timeout).every(Duration.ofMillis(100)).untilOrFail(() -> {
      JsonNode api = JSON.readTree(agent.get("/api/v1/devices?netns=" + netns).body());
      Set<String> names = new HashSet<>();
      api.path("devices").forEach(d -> names.add(d.path("name").asText()));
      seen.set(0, names);
      return names.equals(expected);
    }, () -> "netns " + netns + ": expected devices " + expected + " within " + timeout
        + ", the API shows " + seen.get(0));
  }
}

package io.segscope.agent.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.segscope.agent.inventory.model.Chain;
import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.DeviceGraph;
import io.segscope.agent.inventory.model.Hop;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.model.Qdisc;
import io.segscope.agent.inventory.model.Relation;
import io.segscope.agent.inventory.model.Routing;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.testkit.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.StreamSupport;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Routes, forwarding and qdiscs read over rtnetlink against the real kernel, compared with what
 * iproute2 ({@code ip -j route}, {@code tc -j qdisc}) and sysctl say at the same moment; and the
 * device graph seeing through the router namespace. Topology (lab addresses only, no route out):
 * sender {@code s0} — {@code r0} [router r: forwarding on r0, r1; off on r2] {@code r1} —
 * {@code d0} receiver, and {@code r2} — {@code e0}.
 */
@Tag("lab")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RoutingLabTest {
  private Lab lab;
  private String r;
  private String s;
  private String d;
  private Inventory inventory;
  private final DecodeWarnings warnings = new DecodeWarnings();

  @BeforeAll
  void build() {
    Lab.requireLab();
    Lab.require(Files.isExecutable(Path.of("/usr/sbin/tc"))
        || Files.isExecutable(Path.of("/sbin/tc")), "tc (iproute2) is not installed");
    lab = new Lab();
    r = lab.netns("r");
    s = lab.netns("s");
    d = lab.netns("d");
    String e = lab.netns("e");
    Lab.run("ip", "-n", r, "link", "add", "r0", "type", "veth", "peer", "name", "s0", "netns", s);
    Lab.run("ip", "-n", r, "link", "add", "r1", "type", "veth", "peer", "name", "d0", "netns", d);
    Lab.run("ip", "-n", r, "link", "add", "r2", "type", "veth", "peer", "name", "e0", "netns", e);
    for (String[] up : new String[][] {{r, "r0"}, {r, "r1"}, {r, "r2"}, {s, "s0"}, {d, "d0"}, {e, "e0"}}) {
      Lab.run("ip", "-n", up[0], "link", "set", up[1], "up");
    }
    Lab.run("ip", "-n", r, "addr", "add", "198.18.30.1/24", "dev", "r0");
    Lab.run("ip", "-n", r, "addr", "add", "198.18.31.1/24", "dev", "r1");
    Lab.run("ip", "-n", r, "addr", "add", "198.18.32.1/24", "dev", "r2");
    Lab.run("ip", "-n", s, "addr", "add", "198.18.30.2/24", "dev", "s0");
    Lab.run("ip", "-n", d, "addr", "add", "198.18.31.2/24", "dev", "d0");
    Lab.run("ip", "-n", r, "route", "add", "198.18.40.0/24", "nexthop", "via", "198.18.31.2", "dev", "r1",
        "nexthop", "via", "198.18.30.2", "dev", "r0");
    Lab.run("ip", "-n", r, "route", "add", "198.18.41.0/24", "via", "198.18.31.2", "dev", "r1", "mtu", "1300");
    Lab.run("ip", "-n", r, "route", "add", "unreachable", "198.18.42.0/24");
    Lab.run("ip", "-n", r, "route", "add", "198.18.43.0/24", "dev", "r2", "table", "100");
    lab.inNetns(r, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1");
    lab.inNetns(r, "sysctl", "-q", "-w", "net.ipv4.conf.r2.forwarding=0");
    lab.inNetns(r, "tc", "qdisc", "add", "dev", "r1", "root", "tbf", "rate", "100mbit", "burst", "10000", "limit",
        "30000");
    lab.inNetns(r, "tc", "qdisc", "add", "dev", "r0", "root", "handle", "1:", "htb", "default", "10");
    lab.inNetns(r, "tc", "class", "add", "dev", "r0", "parent", "1:", "classid", "1:10", "htb", "rate", "100mbit");
    lab.inNetns(r, "tc", "qdisc", "add", "dev", "r0", "parent", "1:10", "handle", "20:", "tbf", "rate", "10mbit",
        "burst", "5000", "limit", "20000");
    lab.inNetns(r, "tc", "qdisc", "add", "dev", "r2", "root", "tbf", "rate", "50mbit", "burst", "20000", "limit",
        "40000", "peakrate", "60mbit", "mtu", "2000");
    inventory = InventoryReader.read(InventoryConfig.defaults(), warnings);
  }

  @AfterAll
  void cleanup() {
    if (lab != null) {
      lab.close();
    }
  }

  private Device dev(String ns, String name) {
    return inventory.device(lab.inode(ns), name).orElseThrow(() -> new AssertionError(ns + "/" + name + " not read"));
  }

  @Test
  void routesAndForwardingMatchIproute2AndSysctl() {
    Routing routing = inventory.routing(lab.inode(r));
    assertThat(routing.read()).isTrue();
    assertThat(routing.forwardingKnown()).isTrue();
    // every unicast route outside the local table that ip lists (main and table 100), by device
    Set<Integer> ipEgress = new HashSet<>();
    List<String> ipPrefixes = new ArrayList<>();
    for (String table : List.of("main", "100")) {
      for (JsonNode route : lab.json("ip", "-n", r, "-j", "-4", "route", "show", "table", table)) {
        if (route.path("type").asText("unicast").equals("unicast")) {
          ipPrefixes.add(route.path("dst").asText());
          route.path("nexthops").forEach(nh -> ipEgress.add(dev(r, nh.path("dev").asText()).ifindex()));
          if (route.has("dev")) {
            ipEgress.add(dev(r, route.path("dev").asText()).ifindex());
          }
        }
      }
    }
    // ip writes a host route without its /32 and the default route as "default"
    List<String> ours = routing.routes().stream().filter(x -> x.family() == 4)
        .map(x -> x.destination().endsWith("/32") ? x.destination().replace("/32", "") : x.destination())
        .map(x -> x.equals("0.0.0.0/0") ? "default" : x).toList();
    assertThat(ours).containsExactlyInAnyOrderElementsOf(ipPrefixes)
        .contains("198.18.30.0/24", "198.18.31.0/24", "198.18.32.0/24", "198.18.40.0/24", "198.18.41.0/24",
            "198.18.43.0/24");
    assertThat(routing.egress().keySet()).containsExactlyInAnyOrderElementsOf(ipEgress)
        .contains(dev(r, "r0").ifindex(), dev(r, "r1").ifindex(), dev(r, "r2").ifindex());
    assertThat(routing.routes()).filteredOn(x -> x.destination().equals("198.18.40.0/24")).singleElement()
        .satisfies(x -> assertThat(x.oifs()).containsExactly(dev(r, "r1").ifindex(), dev(r, "r0").ifindex()));
    assertThat(routing.egress().get(dev(r, "r1").ifindex())).isEqualTo(OptionalLong.of(1300));
    assertThat(routing.routes()).noneMatch(x -> x.destination().startsWith("198.18.42."))
        .noneMatch(x -> x.destination().startsWith("fe80"));
    for (String name : List.of("r0", "r1", "r2")) {
      String sysctl = lab.inNetns(r, "sysctl", "-n", "net.ipv4.conf." + name + ".forwarding").trim();
      assertThat(routing.forwards(dev(r, name).ifindex())).as("forwarding of %s (sysctl %s)", name, sysctl)
          .isEqualTo(sysctl.equals("1"));
    }
    assertThat(inventory.routing(lab.inode(s)).forwarding()).isEmpty();
    assertThat(warnings.count()).as("decode warnings: %s", warnings.last()).isZero();
  }

  @Test
  void qdiscsMatchTc() {
    for (String name : List.of("r0", "r1", "r2")) {
      Device x = dev(r, name);
      JsonNode tc = lab.json("ip", "netns", "exec", r, "tc", "-j", "qdisc", "show", "dev", name);
      List<Qdisc> ours = inventory.qdiscs(x);
      assertThat(ours).extracting(Qdisc::kind).containsExactlyInAnyOrderElementsOf(
          StreamSupport.stream(tc.spliterator(), false).map(q -> q.path("kind").asText()).toList());
      for (JsonNode q : tc) {
        Qdisc mine = ours.stream().filter(o -> o.handleText().equals(q.path("handle").asText())).findFirst()
            .orElseThrow(() -> new AssertionError("qdisc " + q + " not read"));
        assertThat(mine.root()).isEqualTo(q.path("root").asBoolean(false));
        if (!mine.root()) {
          assertThat(mine.parentText()).isEqualTo(q.path("parent").asText());
        }
        if (mine.kind().equals("tbf")) {
          Qdisc.Tbf p = mine.tbf().orElseThrow();
          JsonNode o = q.path("options");
          assertThat(p.rateBytesPerSec()).isEqualTo(o.path("rate").asLong());
          // tc computes the burst from the same ticks through its own tick length: equal within a byte
          assertThat((double) p.burstBytes()).isCloseTo(o.path("burst").asDouble(), within(1.0));
          if (o.has("minburst")) {
            assertThat((double) p.mtuBytes()).isCloseTo(o.path("minburst").asDouble(), within(8.0));
            assertThat(p.peakBytesPerSec()).isEqualTo(60_000_000 / 8);
          }
        }
      }
    }
    assertThat(inventory.qdiscs(dev(r, "r1")).get(0).tbf().orElseThrow().limitBytes()).isEqualTo(30000);
  }

  @Test
  void theGraphSeesThroughTheRouter() {
    Device r1 = dev(r, "r1");
    Chain c = inventory.chain(r1);
    assertThat(c.up()).extracting(Hop::name, Hop::relation).contains(
        Tuple.tuple("r0", Relation.ROUTE), Tuple.tuple("s0", Relation.PEER))
        .extracting(t -> t.toList().get(0)).doesNotContain("e0", "r2"); // r2 does not forward
    assertThat(inventory.graph().sources(r1.id())).extracting(x -> x.device().name(), DeviceGraph.Source::origin)
        .containsExactly(Tuple.tuple("s0", DeviceGraph.Origin.LOCAL));
    assertThat(inventory.chain(dev(s, "s0")).down()).extracting(Hop::name)
        .containsExactly("r0", "r1", "r2", "d0", "e0");
  }

  @Test
  void aRouteAddedLaterReachesTheLiveInventory() throws Exception {
    try (DeviceInventory live = DeviceInventory.start(InventoryConfig.defaults(), new DecodeWarnings())) {
      Device r2 = live.current().device(lab.inode(r), "r2").orElseThrow();
      Lab.run("ip", "-n", r, "route", "add", "198.18.44.0/24", "dev", "r2", "mtu", "1280");
      Await wait = Await.atMost(Duration.ofSeconds(10)).every(Duration.ofMillis(50));
      wait.untilOrFail(() -> live.current().routing(lab.inode(r)).egress()
          .getOrDefault(r2.ifindex(), OptionalLong.empty()).equals(OptionalLong.of(1280)),
          () -> "route change seen within 10 s");
      lab.inNetns(r, "tc", "qdisc", "replace", "dev", "r2", "root", "tbf", "rate", "20mbit", "burst", "30000",
          "limit", "60000");
      wait.untilOrFail(() -> live.current().qdiscs(live.current().device(lab.inode(r), "r2").orElseThrow()).stream()
          .anyMatch(q -> q.tbf().map(t -> t.rateBytesPerSec() == 2_500_000).orElse(false)),
          () -> "qdisc change seen within 10 s");
    } finally {
      Lab.run("ip", "-n", r, "route", "del", "198.18.44.0/24");
    }
  }
}

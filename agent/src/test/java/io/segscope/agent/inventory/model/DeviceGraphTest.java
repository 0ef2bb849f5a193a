package io.segscope.agent.inventory.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import io.segscope.device.DeviceId;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The device graph on hand-made topologies (see DeviceGraph / docs/inventory.md). */
class DeviceGraphTest {
  static final long HOST = 100;
  static final long POD1 = 201;
  static final long POD2 = 202;

  private final List<Device> devices = new ArrayList<>();

  private void dev(long ns, int index, String name, String kind, Integer master, Integer link, Integer nsid) {
    Link l = new Link(index, name, kind, "", 1500, opt(link), opt(master), opt(nsid),
        OptionalLong.of(65536), OptionalLong.of(65535), OptionalLong.empty(), OptionalLong.empty(),
        OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), XdpAttachment.UNREPORTED, "UP",
        OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), 1, OptionalInt.empty());
    devices.add(new Device(ns, "", l, Features.unavailable("test")));
  }

  private static OptionalInt opt(Integer v) {
    return v == null ? OptionalInt.empty() : OptionalInt.of(v);
  }

  private Inventory inventory(Map<Long, Map<Integer, Long>> nsids) {
    return inventory(nsids, Map.of());
  }

  private Inventory inventory(Map<Long, Map<Integer, Long>> nsids, Map<Long, Routing> routing) {
    return new Inventory(List.of(new Netns(HOST, "", Path.of("/h"), true), new Netns(POD1, "p1", Path.of("/1"), false),
        new Netns(POD2, "p2", Path.of("/2"), false)), devices, nsids, routing, Map.of(), Instant.now());
  }

  /** A namespace whose routes leave by {@code egress} and whose devices {@code forwarding} forward. */
  static Routing routing(List<Integer> egress, List<Integer> forwarding) {
    Map<Integer, OptionalLong> e = new HashMap<>();
    egress.forEach(i -> e.put(i, OptionalLong.empty()));
    return new Routing(List.of(), egress.size(), e, Set.copyOf(forwarding), true, true, List.of());
  }

  /**
   * A Docker-like host: eth0 (NIC) and bond0 over eth1/eth2; bridge docker0 with uplink bond0 and
   * the host ends of two pods' veths; a macvlan on eth0 moved into pod 2.
   */
  private Inventory dockerHost() {
    dev(HOST, 2, "eth0", "", null, null, null);
    dev(HOST, 3, "eth1", "", 6, null, null);
    dev(HOST, 4, "eth2", "", 6, null, null);
    dev(HOST, 6, "bond0", "bond", 7, null, null);
    dev(HOST, 7, "docker0", "bridge", null, null, null);
    dev(HOST, 10, "vethA", "veth", 7, 2, 1);  // peer: ifindex 2 in nsid 1 (pod 1)
    dev(HOST, 11, "vethB", "veth", 7, 2, 2);  // peer: ifindex 2 in nsid 2 (pod 2)
    dev(POD1, 2, "eth0", "veth", null, 10, 0); // peer: ifindex 10 in nsid 0 (host)
    dev(POD2, 2, "eth0", "veth", null, 11, 0);
    dev(POD2, 3, "mv0", "macvlan", null, 2, 0); // lower: host eth0
    return inventory(Map.of(HOST, Map.of(1, POD1, 2, POD2), POD1, Map.of(0, HOST), POD2, Map.of(0, HOST)));
  }

  @Test
  void podVethGoesThroughBridgeAndBondToTheNicsAndToTheOtherPod() {
    Inventory inv = dockerHost();
    Device pod1 = inv.device(POD1, 2).orElseThrow();
    Chain c = inv.chain(pod1);
    // the bridge forwards to every port but the one a frame came in by: the uplink and the other pod
    assertThat(c.down()).extracting(Hop::name, Hop::relation, Hop::distance).containsExactly(
        tuple("vethA", Relation.PEER, 1),
        tuple("docker0", Relation.MASTER, 2),
        tuple("bond0", Relation.PORT, 3),
        tuple("vethB", Relation.PORT, 3),
        tuple("eth1", Relation.PORT, 4),
        tuple("eth2", Relation.PORT, 4),
        tuple("eth0", Relation.PEER, 4));
    assertThat(c.down().get(6).device()).isEqualTo(DeviceId.of(POD2, 2));
    // the NICs send to the wire; pod 2 (which does not forward) delivers locally; docker0 has no address route
    assertThat(c.exits()).containsExactlyInAnyOrder(DeviceId.of(HOST, 3), DeviceId.of(HOST, 4),
        DeviceId.of(POD2, 2), DeviceId.of(HOST, 7));
    assertThat(c.up()).as("nothing on the host hands packets to a pod's transmit path").isEmpty();
    assertThat(c.unresolved()).isEmpty();
  }

  @Test
  void nicSeesEveryFeeder() {
    Inventory inv = dockerHost();
    Chain c = inv.chain(inv.device(HOST, 3).orElseThrow());
    assertThat(c.down()).isEmpty();
    assertThat(c.exits()).containsExactly(DeviceId.of(HOST, 3));
    assertThat(c.up()).extracting(Hop::name, Hop::relation).containsExactly(
        tuple("bond0", Relation.MASTER),
        tuple("docker0", Relation.MASTER),
        tuple("vethA", Relation.PORT),
        tuple("vethB", Relation.PORT),
        tuple("eth0", Relation.PEER),
        tuple("eth0", Relation.PEER));
    assertThat(c.up().get(4).device()).isEqualTo(DeviceId.of(POD1, 2));
    assertThat(c.up().get(5).device()).isEqualTo(DeviceId.of(POD2, 2));
  }

  @Test
  void macvlanInAPodLeavesThroughItsLowerInTheHost() {
    Inventory inv = dockerHost();
    Device mv = inv.device(POD2, 3).orElseThrow();
    assertThat(inv.linkNetns(mv)).hasValue(HOST);
    Chain c = inv.chain(mv);
    assertThat(c.down()).extracting(Hop::device, Hop::relation)
        .containsExactly(tuple(DeviceId.of(HOST, 2), Relation.LOWER));
    Chain nic = inv.chain(inv.device(HOST, 2).orElseThrow());
    assertThat(nic.up()).extracting(Hop::name, Hop::relation).containsExactly(tuple("mv0", Relation.UPPER));
  }

  @Test
  void aPairInOneNamespaceDeliversToTheOtherEndWithoutLooping() {
    dev(POD1, 5, "a", "veth", null, 6, null);
    dev(POD1, 6, "b", "veth", null, 5, null);
    Inventory inv = inventory(Map.of());
    Chain c = inv.chain(inv.device(POD1, 5).orElseThrow());
    assertThat(c.down()).extracting(Hop::name).containsExactly("b");
    assertThat(c.up()).as("what b sends arrives on a's receive path, not its transmit path").isEmpty();
    assertThat(c.exits()).containsExactly(DeviceId.of(POD1, 6));
    // both ends forwarding into each other: the walk stops at visited states
    Inventory loop = inventory(Map.of(), Map.of(POD1, routing(List.of(5, 6), List.of(5, 6))));
    Chain l = loop.chain(loop.device(POD1, 5).orElseThrow());
    assertThat(l.down()).extracting(Hop::name).containsExactly("b");
    assertThat(l.up()).extracting(Hop::name, Hop::relation).containsExactly(tuple("b", Relation.ROUTE));
  }

  @Test
  void aRoutedPodLeavesThroughTheHostsRoutes() {
    dev(HOST, 2, "eth0", "", null, null, null);
    dev(HOST, 10, "cali1", "veth", null, 2, 1);
    dev(HOST, 11, "cali2", "veth", null, 2, 2);
    dev(POD1, 2, "eth0", "veth", null, 10, 0);
    dev(POD2, 2, "eth0", "veth", null, 11, 0);
    // the host forwards; its routes leave by eth0 (default) and each pod's host-side veth (/32)
    Inventory inv = inventory(Map.of(HOST, Map.of(1, POD1, 2, POD2), POD1, Map.of(0, HOST), POD2, Map.of(0, HOST)),
        Map.of(HOST, routing(List.of(2, 10, 11), List.of(2, 10, 11))));
    Chain c = inv.chain(inv.device(POD1, 2).orElseThrow());
    assertThat(c.down()).extracting(Hop::name, Hop::relation, Hop::distance).containsExactly(
        tuple("cali1", Relation.PEER, 1),
        tuple("eth0", Relation.ROUTE, 2),
        tuple("cali2", Relation.ROUTE, 2),
        tuple("eth0", Relation.PEER, 3));
    assertThat(c.down().get(1).device()).isEqualTo(DeviceId.of(HOST, 2));
    assertThat(c.exits()).containsExactlyInAnyOrder(DeviceId.of(HOST, 2), DeviceId.of(POD2, 2));
    // what reaches pod 2's host-side veth: forwarded from the NIC and from pod 1
    Chain toPod2 = inv.chain(inv.device(HOST, 11).orElseThrow());
    assertThat(toPod2.up()).extracting(Hop::name, Hop::relation).containsExactlyInAnyOrder(
        tuple("eth0", Relation.ROUTE), tuple("cali1", Relation.ROUTE), tuple("eth0", Relation.PEER));
    assertThat(inv.graph().sources(DeviceId.of(HOST, 11)))
        .extracting(s -> s.device().id(), DeviceGraph.Source::origin, DeviceGraph.Source::leaf)
        .containsExactlyInAnyOrder(tuple(DeviceId.of(HOST, 2), DeviceGraph.Origin.WIRE, true),
            tuple(DeviceId.of(POD1, 2), DeviceGraph.Origin.LOCAL, true));
    // without forwarding the host routes nothing between them
    Inventory noFwd = inventory(Map.of(HOST, Map.of(1, POD1, 2, POD2), POD1, Map.of(0, HOST), POD2, Map.of(0, HOST)),
        Map.of(HOST, routing(List.of(2, 10, 11), List.of())));
    assertThat(noFwd.chain(noFwd.device(POD1, 2).orElseThrow()).down()).extracting(Hop::name).containsExactly("cali1");
  }

  @Test
  void aRouterNamespaceIsSeenThrough() {
    // sender (POD1) -- veth -- router (HOST, forwarding) -- veth -- receiver (POD2)
    dev(POD1, 2, "snd0", "veth", null, 3, 0);
    dev(HOST, 3, "rt0", "veth", null, 2, 1);
    dev(HOST, 4, "rt1", "veth", null, 2, 2);
    dev(POD2, 2, "rcv0", "veth", null, 4, 0);
    Inventory inv = inventory(Map.of(HOST, Map.of(1, POD1, 2, POD2), POD1, Map.of(0, HOST), POD2, Map.of(0, HOST)),
        Map.of(HOST, routing(List.of(3, 4), List.of(3, 4))));
    Chain c = inv.chain(inv.device(HOST, 4).orElseThrow());
    assertThat(c.up()).extracting(Hop::name, Hop::relation, Hop::distance)
        .containsExactly(tuple("rt0", Relation.ROUTE, 1), tuple("snd0", Relation.PEER, 2));
    assertThat(c.down()).extracting(Hop::name).containsExactly("rcv0");
    assertThat(inv.graph().sources(DeviceId.of(HOST, 4)))
        .extracting(s -> s.device().name(), DeviceGraph.Source::origin, DeviceGraph.Source::distance)
        .containsExactly(tuple("snd0", DeviceGraph.Origin.LOCAL, 2));
  }

  @Test
  void aBondPortsSourcesAreTheBondAndWhatIsBridgedIntoIt() {
    Inventory inv = dockerHost();
    assertThat(inv.graph().sources(DeviceId.of(HOST, 4)))
        .extracting(s -> s.device().name(), DeviceGraph.Source::origin, DeviceGraph.Source::leaf,
            DeviceGraph.Source::relation)
        .containsExactly(
            tuple("bond0", DeviceGraph.Origin.LOCAL, false, Relation.MASTER),
            tuple("docker0", DeviceGraph.Origin.LOCAL, true, Relation.MASTER),
            tuple("eth0", DeviceGraph.Origin.LOCAL, true, Relation.PEER),
            tuple("eth0", DeviceGraph.Origin.LOCAL, true, Relation.PEER));
  }

  @Test
  void guestsBehindTapsAndMacvtapsAreGuestSources() {
    dev(HOST, 2, "eth0", "", 5, null, null);
    dev(HOST, 3, "tap0", "tun", 5, null, null);
    dev(HOST, 4, "mvt0", "macvtap", null, 2, null);
    dev(HOST, 5, "br0", "bridge", null, null, null);
    Inventory inv = inventory(Map.of());
    assertThat(inv.graph().sources(DeviceId.of(HOST, 2)))
        .extracting(s -> s.device().name(), DeviceGraph.Source::origin)
        .containsExactly(tuple("mvt0", DeviceGraph.Origin.GUEST), tuple("br0", DeviceGraph.Origin.LOCAL),
            tuple("tap0", DeviceGraph.Origin.GUEST)); // by distance, then (netns, ifindex)
  }

  @Test
  void aTunnelWithoutALowerSendsThroughItsNamespacesRoutes() {
    dev(HOST, 2, "eth0", "", null, null, null);
    dev(HOST, 3, "vx0", "vxlan", null, null, null);
    Inventory inv = inventory(Map.of(), Map.of(HOST, routing(List.of(2, 3), List.of())));
    assertThat(inv.chain(inv.device(HOST, 3).orElseThrow()).down()).extracting(Hop::name, Hop::relation)
        .containsExactly(tuple("eth0", Relation.ROUTE));
    assertThat(inv.chain(inv.device(HOST, 2).orElseThrow()).up()).extracting(Hop::name).containsExactly("vx0");
  }

  @Test
  void unknownNsidAndMissingDevicesAreReportedNotGuessed() {
    dev(POD1, 2, "eth0", "veth", null, 10, 7);      // nsid 7 unknown
    dev(POD1, 3, "mv0", "macvlan", 9, 44, null);  // lower 44 and master 9 do not exist
    Inventory inv = inventory(Map.of());
    Device eth0 = inv.device(POD1, 2).orElseThrow();
    assertThat(inv.linkNetns(eth0)).isEmpty();
    assertThat(inv.linkTarget(eth0)).isEmpty();
    assertThat(inv.chain(eth0).unresolved()).singleElement().asString()
        .contains("netnsid 7").contains("did not find");
    assertThat(inv.chain(inv.device(POD1, 3).orElseThrow()).unresolved()).hasSize(2)
        .anySatisfy(s -> assertThat(s).contains("link ifindex 44 not found"))
        .anySatisfy(s -> assertThat(s).contains("master ifindex 9 not found"));
  }

  @Test
  void portsAndMasterLookups() {
    Inventory inv = dockerHost();
    Device docker0 = inv.device(HOST, "docker0").orElseThrow();
    assertThat(inv.ports(docker0)).extracting(Device::name).containsExactly("bond0", "vethA", "vethB");
    assertThat(inv.master(inv.device(HOST, "eth1").orElseThrow())).map(Device::name).hasValue("bond0");
    assertThat(inv.rootNetns()).isEqualTo(HOST);
    assertThat(inv.namespaces().get(0).root()).isTrue();
  }
}

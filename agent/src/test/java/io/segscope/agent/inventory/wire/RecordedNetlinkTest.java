package io.segscope.agent.inventory.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.segscope.agent.inventory.EthtoolJson;
import io.segscope.agent.inventory.Fixtures;
import io.segscope.agent.inventory.IpJson;
import io.segscope.agent.inventory.NetlinkFixtureRecorder;
import io.segscope.agent.inventory.model.Chain;
import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Features;
import io.segscope.agent.inventory.model.Hop;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.model.Link;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.inventory.model.Relation;
import io.segscope.agent.inventory.model.XdpMode;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.agent.netlink.NetlinkMessage;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.assertj.core.api.SoftAssertions;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Decodes netlink bytes recorded from this kernel (6.18) and compares them with what iproute2 and
 * ethtool printed at the same moment. Topology (NetlinkFixtureRecorder): namespace a holds veth va
 * (mtu 9000, gso_max_size 32000, gso_max_segs 100, gro_max_size 32768) with macvlan mv0 (generic
 * XDP) and macvtap mt0 on it; its peer vb is a port of bridge br0 in namespace b, which also holds
 * the same-namespace pair vc/vd (vd a br0 port, vc with native XDP) and vxlan vx0 on vc.
 */
class RecordedNetlinkTest {
  private final DecodeWarnings warnings = new DecodeWarnings();

  @ParameterizedTest
  @ValueSource(strings = {"a", "b"})
  void linkDumpMatchesIproute2(String ns) {
    List<Link> links = Rtnetlink.decodeLinks(Fixtures.messages("links-" + ns + ".bin"), warnings);
    SoftAssertions soft = new SoftAssertions();
    IpJson.assertMatches(soft, links, Fixtures.json("links-" + ns + ".ip.json"));
    soft.assertAll();
    assertThat(warnings.count()).as("decode warnings: " + warnings.last()).isZero();
  }

  @Test
  void configuredValuesAreDecoded() {
    Link va = link("a", "va");
    assertThat(va.mtu()).isEqualTo(9000);
    assertThat(va.gsoMaxSize()).hasValue(32000);
    assertThat(va.gsoMaxSegs()).hasValue(100);
    assertThat(va.groMaxSize()).hasValue(32768);
    assertThat(va.kind()).isEqualTo("veth");
    assertThat(va.linkNetnsId()).isPresent();
    // iproute2 6.1 prints no *_ipv4_max_size: the kernel's rule is that setting gso_max_size /
    // gro_max_size below 65536 sets the IPv4 limits to the same value (netif_set_gso_max_size).
    assertThat(va.gsoIpv4MaxSize()).hasValue(32000);
    assertThat(va.groIpv4MaxSize()).hasValue(32768);
    assertThat(link("b", "lo").gsoIpv4MaxSize()).hasValue(65536);

    assertThat(link("a", "mv0").xdp().mode()).isEqualTo(XdpMode.GENERIC);
    assertThat(link("a", "mv0").xdp().generic()).isTrue();
    assertThat(link("b", "vc").xdp().mode()).isEqualTo(XdpMode.DRIVER);
    assertThat(link("b", "vc").xdp().generic()).isFalse();
    assertThat(link("b", "vb").slaveKind()).isEqualTo("bridge");
    assertThat(link("b", "vx0").vxlanLink()).hasValue(link("b", "vc").ifindex());
    assertThat(link("b", "vx0").link()).isEmpty();
    assertThat(link("a", "lo").kind()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"a", "b"})
  void featureDumpMatchesEthtool(String ns) {
    List<String> names =
        EthtoolNetlinkFeatures.decodeFeatureNames(Fixtures.messages("strset-" + ns + ".bin"), warnings);
    Map<Integer, Features> features = EthtoolNetlinkFeatures.decodeFeatureDump(
        Fixtures.messages("features-" + ns + ".bin"), names, warnings);
    List<Link> links = Rtnetlink.decodeLinks(Fixtures.messages("links-" + ns + ".bin"), warnings);
    JsonNode ethtool = Fixtures.json("features-" + ns + ".ethtool.json");
    assertThat(features.keySet()).containsExactlyInAnyOrderElementsOf(links.stream().map(Link::ifindex).toList());
    SoftAssertions soft = new SoftAssertions();
    for (Link l : links) {
      EthtoolJson.assertMatches(soft, l.name(), features.get(l.ifindex()), ethtool.get(l.name()).get(0));
    }
    soft.assertAll();
    assertThat(warnings.count()).as("decode warnings: " + warnings.last()).isZero();
  }

  @Test
  void tsoSwitchedOffAndPeerOfNativeXdpLosesSoftwareGso() {
    Features vd = features("b", "vd");
    assertThat(vd.isActive("tx-tcp-segmentation")).isFalse();
    assertThat(vd.isActive("tx-scatter-gather")).isTrue();
    Features va = features("a", "va");
    assertThat(va.isActive("tx-tcp-segmentation")).isTrue();
    assertThat(va.isFixed("tx-tcp-segmentation")).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"a", "b"})
  void nsidReplyMatchesIproute2(String ns) {
    List<NetlinkMessage> reply = Fixtures.messages("nsid-" + ns + ".bin");
    OptionalInt nsid = OptionalInt.empty();
    for (NetlinkMessage m : reply) {
      if (m.type() == Rtnl.RTM_NEWNSID) {
        nsid = m.attributes(Rtnl.RTGENMSG_LENGTH, warnings).s32(Rtnl.NETNSA_NSID);
      }
    }
    JsonNode ip = Fixtures.json("nsid-" + ns + ".ip.json");
    assertThat(ip).hasSize(1);
    assertThat(nsid).hasValue(ip.get(0).get("nsid").asInt());
  }

  @Test
  void recordedTopologyChains() {
    long a = 1001;
    long b = 1002;
    List<Device> devices = new ArrayList<>();
    for (Link l : Rtnetlink.decodeLinks(Fixtures.messages("links-a.bin"), warnings)) {
      devices.add(new Device(a, "a", l, Features.unavailable("not read")));
    }
    for (Link l : Rtnetlink.decodeLinks(Fixtures.messages("links-b.bin"), warnings)) {
      devices.add(new Device(b, "b", l, Features.unavailable("not read")));
    }
    int nsidOfB = link("a", "va").linkNetnsId().getAsInt();
    int nsidOfA = link("b", "vb").linkNetnsId().getAsInt();
    Inventory inv = new Inventory(
        List.of(new Netns(a, "a", Path.of("/a"), true), new Netns(b, "b", Path.of("/b"), false)),
        devices, Map.of(a, Map.of(nsidOfB, b), b, Map.of(nsidOfA, a)), Instant.now());
    Device va = inv.device(a, "va").orElseThrow();
    Device br0 = inv.device(b, "br0").orElseThrow();
    assertThat(inv.linkTarget(va).map(Device::name)).hasValue("vb");
    assertThat(inv.linkNetns(va)).isEqualTo(OptionalLong.of(b));

    // what va transmits crosses the pair, is bridged out of br0's other port vd, and reaches vc (and the vxlan on it)
    Chain chain = inv.chain(va);
    assertThat(chain.down()).extracting(Hop::name, Hop::relation)
        .containsExactly(Tuple.tuple("vb", Relation.PEER),
            Tuple.tuple("br0", Relation.MASTER),
            Tuple.tuple("vd", Relation.PORT),
            Tuple.tuple("vc", Relation.PEER),
            Tuple.tuple("vx0", Relation.UPPER));
    assertThat(chain.exits()).containsExactly(br0.id(), inv.device(b, "vx0").orElseThrow().id());
    assertThat(chain.up()).extracting(Hop::name).containsExactlyInAnyOrder("mv0", "mt0");

    // the bridge's own transmit path reaches every port and beyond; nothing but its stack feeds it
    Chain bridge = inv.chain(br0);
    assertThat(bridge.up()).isEmpty();
    assertThat(bridge.down()).extracting(Hop::name)
        .containsExactlyInAnyOrder("vb", "vd", "va", "vc", "mv0", "mt0", "vx0");
    // what reaches port vb's transmit path: the bridge, its other port and what feeds that
    assertThat(inv.chain(inv.device(b, "vb").orElseThrow()).up()).extracting(Hop::name, Hop::relation)
        .containsExactly(Tuple.tuple("br0", Relation.MASTER),
            Tuple.tuple("vd", Relation.PORT),
            Tuple.tuple("vc", Relation.PEER),
            Tuple.tuple("vx0", Relation.UPPER));
    assertThat(inv.chain(inv.device(b, "vx0").orElseThrow()).down()).extracting(Hop::name)
        .containsExactly("vc", "vd", "br0", "vb", "va", "mv0", "mt0");
  }

  private Link link(String ns, String name) {
    return Rtnetlink.decodeLinks(Fixtures.messages("links-" + ns + ".bin"), warnings).stream()
        .filter(l -> l.name().equals(name)).findFirst().orElseThrow();
  }

  private Features features(String ns, String name) {
    List<String> names =
        EthtoolNetlinkFeatures.decodeFeatureNames(Fixtures.messages("strset-" + ns + ".bin"), warnings);
    return EthtoolNetlinkFeatures.decodeFeatureDump(Fixtures.messages("features-" + ns + ".bin"), names, warnings)
        .get(link(ns, name).ifindex());
  }
}

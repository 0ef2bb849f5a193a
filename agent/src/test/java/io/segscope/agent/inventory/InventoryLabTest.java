package io.segscope.agent.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import io.segscope.agent.inventory.model.Chain;
import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Features;
import io.segscope.agent.inventory.model.Hop;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.model.Link;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.inventory.model.Relation;
import io.segscope.agent.inventory.model.XdpMode;
import io.segscope.agent.inventory.wire.EthtoolNetlinkFeatures;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.agent.netlink.Netlink;
import io.segscope.agent.netlink.NetlinkSocket;
import io.segscope.device.DeviceId;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The inventory against iproute2 and ethtool on a real lab of 3 namespaces and 13 devices:
 * <pre>
 *  ns a: va0 (veth, mtu 9000, gso_max_size 32000, gso_max_segs 100)   mv0 (macvlan on va0, generic XDP)
 *  ns b: br0 (bridge, gso_max_segs 64) with ports vb0 (peer of va0), vb1 (peer of vc0, tso off), vb3;
 *        vb2/vb3 a same-namespace veth pair (vb2 mtu 1400); vx0 (vxlan 42, dev vb2)
 *  ns c: vc0 (veth, mtu 1400, gso_max_size 16384, gro_max_size 16384, native XDP) mv1 (macvlan on vc0)
 * </pre>
 * plus lo in each. Every value the inventory reports for these devices must equal
 * {@code ip -d -j link show} and {@code ethtool --json -k} run inside the namespace.
 */
@Tag("lab")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InventoryLabTest {
  private Lab lab;
  private String a;
  private String b;
  private String c;
  private Inventory inventory;
  private final DecodeWarnings warnings = new DecodeWarnings();

  @BeforeAll
  void buildLab() {
    Lab.requireLab();
    lab = new Lab();
    a = lab.netns("a");
    b = lab.netns("b");
    c = lab.netns("c");
    Path pin = Path.of("/sys/fs/bpf/" + lab.prefix + "xdp");
    lab.pinned(pin);
    XdpTestProgram.loadAndPin(pin);
    Lab.run("ip", "-n", a, "link", "add", "va0", "mtu", "9000", "gso_max_size", "32000", "gso_max_segs", "100",
        "type", "veth", "peer", "name", "vb0", "netns", b);
    Lab.run("ip", "-n", a, "link", "add", "link", "va0", "name", "mv0", "type", "macvlan", "mode", "bridge");
    Lab.run("nsenter", "--net=/run/netns/" + a, "ip", "link", "set", "mv0", "xdpgeneric", "pinned", pin.toString());
    Lab.run("ip", "-n", b, "link", "add", "br0", "type", "bridge");
    Lab.run("ip", "-n", b, "link", "set", "br0", "gso_max_segs", "64");
    Lab.run("ip", "-n", b, "link", "add", "vb1", "type", "veth", "peer", "name", "vc0", "netns", c);
    Lab.run("ip", "-n", b, "link", "add", "vb2", "mtu", "1400", "type", "veth", "peer", "name", "vb3");
    for (String port : List.of("vb0", "vb1", "vb3")) {
      Lab.run("ip", "-n", b, "link", "set", port, "master", "br0");
    }
    Lab.run("ip", "-n", b, "link", "add", "vx0", "type", "vxlan", "id", "42", "dev", "vb2", "dstport", "4789");
    Lab.run("ip", "netns", "exec", b, "ethtool", "-K", "vb1", "tso", "off");
    Lab.run("ip", "-n", c, "link", "set", "vc0", "mtu", "1400", "gso_max_size", "16384", "gro_max_size", "16384");
    Lab.run("ip", "-n", c, "link", "add", "link", "vc0", "name", "mv1", "type", "macvlan");
    Lab.run("nsenter", "--net=/run/netns/" + c, "ip", "link", "set", "vc0", "xdpdrv", "pinned", pin.toString());
    String[][] upDevices = {{a, "va0"}, {a, "mv0"}, {b, "vb0"}, {b, "br0"}, {b, "vb1"}, {c, "vc0"}};
    for (String[] up : upDevices) {
      Lab.run("ip", "-n", up[0], "link", "set", up[1], "up");
    }
    // operstate follows "link up" asynchronously (linkwatch): let it settle so that the snapshot and
    // the later iproute2 reading see the same state
    for (String[] up : upDevices) {
      lab.awaitOperstate(up[0], up[1], "UP");
    }
    inventory = InventoryReader.read(InventoryConfig.defaults(), warnings);
  }

  @AfterAll
  void cleanup() {
    if (lab != null) {
      lab.close();
    }
  }

  private List<Device> devicesOf(String ns) {
    long inode = lab.inode(ns);
    return inventory.devices().stream().filter(d -> d.netns() == inode).toList();
  }

  private Device device(String ns, String name) {
    return inventory.device(lab.inode(ns), name).orElseThrow(() -> new AssertionError(name + " not in " + ns));
  }

  @Test
  void namespacesAreFoundWithNames() {
    for (String ns : List.of(a, b, c)) {
      assertThat(inventory.namespaces()).filteredOn(n -> n.inode() == lab.inode(ns)).singleElement()
          .satisfies(n -> assertThat(n.name()).isEqualTo(ns));
      assertThat(devicesOf(ns)).allSatisfy(d -> assertThat(d.netnsName()).isEqualTo(ns));
    }
    assertThat(inventory.namespaces()).filteredOn(Netns::root).hasSize(1);
    assertThat(devicesOf(a).size() + devicesOf(b).size() + devicesOf(c).size()).isEqualTo(13);
  }

  @Test
  void everyDeviceIsIdentifiedWithItsNamespacesCookie() {
    // SO_NETNS_COOKIE is 5.14+: this kernel has it, so every device's id carries a cookie, the one of
    // its namespace, and the three lab namespaces have three different ones
    for (String ns : List.of(a, b, c)) {
      long cookie = inventory.namespace(lab.inode(ns)).orElseThrow().cookie();
      assertThat(cookie).as("cookie of %s", ns).isNotZero();
      assertThat(devicesOf(ns)).isNotEmpty().allSatisfy(d -> {
        assertThat(d.id()).isEqualTo(new DeviceId(cookie, lab.inode(ns), d.ifindex()));
        assertThat(inventory.device(d.id())).contains(d);
        assertThat(inventory.device(d.id().withCookie(cookie + 1))).as("another namespace's cookie").isEmpty();
      });
    }
    assertThat(List.of(a, b, c)).extracting(ns -> inventory.namespace(lab.inode(ns)).orElseThrow().cookie())
        .doesNotHaveDuplicates();
  }

  @Test
  void everyLinkValueEqualsIproute2() {
    SoftAssertions soft = new SoftAssertions();
    for (String ns : List.of(a, b, c)) {
      List<Link> links = devicesOf(ns).stream().map(Device::link).toList();
      IpJson.assertMatches(soft, links, lab.json("ip", "-n", ns, "-d", "-j", "link", "show"));
    }
    soft.assertAll();
    // iproute2 6.1 does not print the IPv4 limits; the kernel sets them with gso/gro_max_size < 64 KiB
    assertThat(device(a, "va0").link().gsoIpv4MaxSize()).hasValue(32000);
    assertThat(device(c, "vc0").link().gsoIpv4MaxSize()).hasValue(16384);
    assertThat(device(c, "vc0").link().groIpv4MaxSize()).hasValue(16384);
    assertThat(device(b, "br0").link().gsoMaxSegs()).hasValue(64);
    assertThat(device(a, "mv0").link().xdp().mode()).isEqualTo(XdpMode.GENERIC);
    assertThat(device(c, "vc0").link().xdp().mode()).isEqualTo(XdpMode.DRIVER);
  }

  @Test
  void everyFeatureEqualsEthtool() {
    SoftAssertions soft = new SoftAssertions();
    for (String ns : List.of(a, b, c)) {
      for (Device d : devicesOf(ns)) {
        JsonNode ethtool = readEthtool(ns, d.name());
        soft.assertThat(d.features().source()).as(d.name()).isEqualTo(Features.Source.ETHTOOL_NETLINK);
        EthtoolJson.assertMatches(soft, ns + "/" + d.name(), d.features(), ethtool);
      }
    }
    soft.assertAll();
    assertThat(device(b, "vb1").features().isActive("tx-tcp-segmentation")).isFalse();
    assertThat(device(b, "vb0").features().isActive("tx-tcp-segmentation")).isTrue();
  }

  private JsonNode readEthtool(String ns, String dev) {
    try {
      return Lab.JSON.readTree(lab.inNetns(ns, "ethtool", "--json", "-k", dev)).get(0);
    } catch (IOException e) {
      throw new AssertionError("parse ethtool output for " + dev, e);
    }
  }

  @Test
  void compactBitsetsSayWhatNamedBitsSayForOneDeviceAndForADump() {
    SoftAssertions soft = new SoftAssertions();
    int compared = 0;
    try (NetnsThread thread = new NetnsThread("compact-bitsets")) {
      for (String ns : List.of(a, b, c)) {
        Netns netns = new Netns(lab.inode(ns), ns, Path.of("/run/netns", ns), false);
        compared += thread.call(netns, () -> {
          DecodeWarnings w = new DecodeWarnings();
          var genl = NetlinkSocket.open(Netlink.NETLINK_GENERIC,
              Duration.ofSeconds(5), w);
          try (EthtoolNetlinkFeatures reader = EthtoolNetlinkFeatures.open(genl, w).orElseThrow()) {
            Map<Integer, Features> named = EthtoolNetlinkFeatures.decodeFeatureDump(reader.dumpFeatures(false),
                reader.knownFeatures(), w);
            Map<Integer, Features> compact = EthtoolNetlinkFeatures.decodeFeatureDump(reader.dumpFeatures(true),
                reader.knownFeatures(), w);
            soft.assertThat(compact).as(ns + " compact dump").isEqualTo(named);
            for (Device d : devicesOf(ns)) {
              soft.assertThat(reader.read(d.ifindex(), d.name())).as(ns + "/" + d.name())
                  .isEqualTo(named.get(d.ifindex()));
            }
            soft.assertThat(w.count()).as(ns + " decode warnings").isZero();
            return named.size();
          }
        });
      }
    }
    soft.assertAll();
    assertThat(compared).isEqualTo(13);
  }

  @Test
  void ioctlFallbackReadsTheSameFeatures() {
    DecodeWarnings w = new DecodeWarnings();
    Inventory viaIoctl =
        InventoryReader.read(InventoryConfig.defaults().withFeatures(InventoryConfig.FeatureMode.IOCTL), w);
    SoftAssertions soft = new SoftAssertions();
    int compared = 0;
    for (String ns : List.of(a, b, c)) {
      for (Device d : devicesOf(ns)) {
        Features io = viaIoctl.device(d.id()).orElseThrow().features();
        Features nl = d.features();
        soft.assertThat(io.source()).as(d.name() + " (" + io.error() + ")").isEqualTo(Features.Source.ETHTOOL_IOCTL);
        soft.assertThat(io.active()).as(d.name() + " active").isEqualTo(nl.active());
        soft.assertThat(io.hardware()).as(d.name() + " hardware").isEqualTo(nl.hardware());
        soft.assertThat(io.wanted()).as(d.name() + " wanted").isEqualTo(nl.wanted());
        soft.assertThat(io.noChange()).as(d.name() + " noChange").isEqualTo(nl.noChange());
        soft.assertThat(io.known()).as(d.name() + " known").isEqualTo(nl.known());
        EthtoolJson.assertMatches(soft, "ioctl " + d.name(), io, readEthtool(ns, d.name()));
        compared++;
      }
    }
    soft.assertAll();
    assertThat(compared).isEqualTo(13);
  }

  @Test
  void chainsFollowTheTopology() {
    assertThat(inventory.linkNetns(device(a, "va0"))).hasValue(lab.inode(b));
    assertThat(inventory.linkTarget(device(c, "vc0")).map(Device::name)).hasValue("vb1");
    // transmit paths: down the stack, across pairs, bridged out of every other port of br0 and up the stacks there
    assertThat(inventory.chain(device(a, "mv0")).down()).extracting(Hop::name, Hop::relation, Hop::distance)
        .containsExactly(tuple("va0", Relation.LOWER, 1), tuple("vb0", Relation.PEER, 2),
            tuple("br0", Relation.MASTER, 3), tuple("vb1", Relation.PORT, 4), tuple("vb3", Relation.PORT, 4),
            tuple("vc0", Relation.PEER, 5), tuple("vb2", Relation.PEER, 5), tuple("mv1", Relation.UPPER, 6),
            tuple("vx0", Relation.UPPER, 6));
    assertThat(inventory.chain(device(c, "mv1")).down()).extracting(Hop::name, Hop::relation).startsWith(
        tuple("vc0", Relation.LOWER), tuple("vb1", Relation.PEER), tuple("br0", Relation.MASTER));
    assertThat(inventory.chain(device(b, "vx0")).down()).extracting(Hop::name, Hop::relation).containsExactly(
        tuple("vb2", Relation.LOWER), tuple("vb3", Relation.PEER), tuple("br0", Relation.MASTER),
        tuple("vb0", Relation.PORT), tuple("vb1", Relation.PORT), tuple("va0", Relation.PEER),
        tuple("vc0", Relation.PEER), tuple("mv0", Relation.UPPER), tuple("mv1", Relation.UPPER));
    Chain bridge = inventory.chain(device(b, "br0"));
    assertThat(bridge.up()).as("only br0's own stack transmits on br0").isEmpty();
    assertThat(bridge.down()).extracting(Hop::name).startsWith("vb0", "vb1", "vb3");
    assertThat(bridge.exits()).containsExactlyInAnyOrder(device(a, "mv0").id(), device(c, "mv1").id(),
        device(b, "vx0").id());
    // what reaches port vb0's transmit path (where a segmentation toward a would happen)
    Chain port = inventory.chain(device(b, "vb0"));
    Map<String, Relation> up = port.up().stream().collect(Collectors.toMap(h -> h.name(), Hop::relation));
    assertThat(up).containsOnlyKeys("br0", "vb1", "vb3", "vc0", "vb2", "mv1", "vx0");
    assertThat(up).containsEntry("br0", Relation.MASTER).containsEntry("vb1", Relation.PORT)
        .containsEntry("vc0", Relation.PEER).containsEntry("mv1", Relation.UPPER);
    assertThat(port.unresolved()).isEmpty();
    assertThat(bridge.unresolved()).isEmpty();
  }
}

package io.segscope.agent.advice;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.inventory.InventoryConfig;
import io.segscope.agent.inventory.InventoryReader;
import io.segscope.agent.inventory.LinkSetter;
import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.model.Link;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.exporters.model.GsoDeviceStats;
import io.segscope.lab.Lab;
import io.segscope.lab.LabTest;
import io.segscope.lab.Netns;
import io.segscope.vocabulary.Cause;
import io.segscope.vocabulary.GsoType;
import io.segscope.vocabulary.Site;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The kernel accepts every command the new rules recommend: each test builds a real device of the
 * right kind in a lab namespace (router namespace with forwarding, vxlan underlay, tbf, tap in a
 * bridge, BIG TCP limits), reads the real inventory, lets the rule speak on a window that carries
 * the rule's cause at that device, runs segscope's own command through {@code sh -c}, and checks
 * the kernel's state afterwards. (Not here: bond and cake commands: this kernel has neither module;
 * the bond command is the same {@code ip link set dev X gso_max_size N} tested on a veth.)
 */
class RuleCommandsLabTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static Inventory read() {
    return InventoryReader.read(InventoryConfig.defaults(), new DecodeWarnings());
  }

  private static Device dev(Inventory inv, Netns ns, String name) {
    return inv.device(ns.inode(), name).orElseThrow(() -> new AssertionError(ns.name() + "/" + name + " not read"));
  }

  private static GsoDeviceStats segmenting(Device d, Cause cause, GsoType type, Site site) {
    return Costs.gso(d.netns(), d.ifindex(), d.name(), 32066, 2089457356L, cause, 8000, 0, type, site);
  }

  private static GsoDeviceStats sending(Device d) {
    return Costs.gso(d.netns(), d.ifindex(), d.name(), 0, 0, Cause.OTHER, 0, 32066);
  }

  private static Finding advise(Inventory inv, String rule, GsoDeviceStats... window) {
    Collection<DeviceCost> costs = Costs.window(window);
    List<Finding> f = new Recommender().evaluate(costs, AdviceContext.of(inv, AdviceContext.Thresholds.DEFAULT, true,
        costs));
    assertThat(f).extracting(Finding::rule).contains(rule);
    Finding found = f.stream().filter(x -> x.rule().equals(rule)).findFirst().orElseThrow();
    assertThat(found.commands()).as("%s recommends a command", rule).isNotEmpty();
    return found;
  }

  /** Runs every command of the finding as segscope prints it; each must exit 0. */
  private static List<String> run(Finding f) throws Exception {
    List<String> ran = new ArrayList<>();
    for (Command c : f.commands()) {
      Process p = new ProcessBuilder("sh", "-c", c.shell()).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as("the kernel refused segscope's command `%s`: %s", c.display(), out).isZero();
      ran.add(c.shell());
    }
    return ran;
  }

  private static JsonNode link(Lab lab, Netns ns, String dev) throws Exception {
    return JSON.readTree(lab.exec(ns, "ip", "-d", "-j", "link", "show", "dev", dev)).get(0);
  }

  @Test
  @LabTest
  void mtuMismatchLowersTheSendersMtuThroughTheRouter(Lab lab) throws Exception {
    Netns snd = lab.namespace("snd");
    Netns rt = lab.namespace("rt");
    Netns rcv = lab.namespace("rcv");
    lab.veth(snd, "snd0", rt, "rt0");
    lab.veth(rt, "rt1", rcv, "rcv0");
    lab.set(rt, "rt1", "mtu", "1400");
    lab.set(rcv, "rcv0", "mtu", "1400");
    lab.address(snd, "snd0", "198.18.50.1/24");
    lab.address(rt, "rt0", "198.18.50.254/24");
    lab.address(rt, "rt1", "198.18.51.254/24");
    lab.address(rcv, "rcv0", "198.18.51.1/24");
    lab.exec(rt, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1");
    Inventory inv = read();
    Finding f = advise(inv, "mtu_mismatch", segmenting(dev(inv, rt, "rt1"), Cause.MTU, GsoType.TCP4,
        Site.IP_OUTPUT_MTU), sending(dev(inv, snd, "snd0")));
    assertThat(run(f)).containsExactly("ip -n " + snd.name() + " link set dev snd0 mtu 1400");
    assertThat(link(lab, snd, "snd0").path("mtu").asInt()).isEqualTo(1400);
  }

  @Test
  @LabTest
  void tunnelOffloadMissingTurnsTheUnderlaysTunnelSegmentationOn(Lab lab) throws Exception {
    Netns a = lab.namespace("vx");
    Netns b = lab.namespace("peer");
    lab.veth(a, "u0", b, "u1");
    lab.exec(a, "ip", "link", "add", "vx0", "type", "vxlan", "id", "42", "dstport", "4789", "dev", "u0");
    lab.ethtoolK(a, "u0", "tx-udp_tnl-segmentation", "off");
    Inventory inv = read();
    Finding f = advise(inv, "tunnel_offload_missing", segmenting(dev(inv, a, "u0"), Cause.FEATURE_MISSING,
        GsoType.UDP_TUNNEL, Site.XMIT));
    assertThat(run(f)).containsExactly("ip netns exec " + a.name() + " ethtool -K u0 tx-udp_tnl-segmentation on");
    assertThat(lab.exec(a, "ethtool", "-k", "u0")).contains("tx-udp_tnl-segmentation: on");
  }

  @Test
  @LabTest
  void qdiscSegmentationGivesTheTbfABurstThatHoldsASuperPacket(Lab lab) throws Exception {
    Netns a = lab.namespace("tbf");
    Netns b = lab.namespace("peer");
    lab.veth(a, "snd0", b, "rcv0");
    lab.exec(a, "tc", "qdisc", "add", "dev", "snd0", "root", "tbf", "rate", "100mbit", "burst", "10000", "limit",
        "30000");
    Inventory inv = read();
    Finding f = advise(inv, "qdisc_segmentation", segmenting(dev(inv, a, "snd0"), Cause.QDISC, GsoType.TCP4,
        Site.QDISC));
    run(f);
    JsonNode tbf = JSON.readTree(lab.exec(a, "tc", "-j", "qdisc", "show", "dev", "snd0")).get(0);
    assertThat(tbf.path("kind").asText()).isEqualTo("tbf");
    assertThat(tbf.path("options").path("rate").asLong()).as("rate kept").isEqualTo(12_500_000);
    assertThat(tbf.path("options").path("burst").asLong()).isGreaterThanOrEqualTo(70_000);
    // tbf's latency ((limit - burst) / rate) is what it was: 20000 bytes at 12.5 MB/s = 1.6 ms
    Inventory after = read();
    var p = after.qdiscs(dev(after, a, "snd0")).get(0).tbf().orElseThrow();
    assertThat(p.limitBytes() - p.burstBytes()).isBetween(19_990L, 20_010L);
  }

  @Test
  @LabTest
  void guestGsoSizeMismatchRaisesTheUplinkBehindATap(Lab lab) throws Exception {
    Netns sw = lab.namespace("sw");
    Netns rcv = lab.namespace("rcv");
    lab.exec(sw, "ip", "tuntap", "add", "dev", "tap0", "mode", "tap", "vnet_hdr");
    lab.veth(sw, "up0", rcv, "rcv0");
    lab.exec(sw, "ip", "link", "add", "br0", "type", "bridge");
    lab.exec(sw, "ip", "link", "set", "tap0", "master", "br0");
    lab.exec(sw, "ip", "link", "set", "up0", "master", "br0");
    lab.set(sw, "up0", "gso_max_size", "16384");
    Inventory inv = read();
    Finding f = advise(inv, "guest_gso_size_mismatch", segmenting(dev(inv, sw, "up0"), Cause.GSO_MAX_SIZE,
        GsoType.TCP4, Site.XMIT));
    assertThat(run(f)).containsExactly("ip -n " + sw.name() + " link set dev up0 gso_max_size 65536");
    assertThat(link(lab, sw, "up0").path("gso_max_size").asLong()).isEqualTo(65536);
  }

  @Test
  @LabTest
  void udpGsoOffloadAndBigTcpLimitsAreAccepted(Lab lab) throws Exception {
    Netns a = lab.namespace("udp");
    Netns b = lab.namespace("peer");
    lab.veth(a, "snd0", b, "rcv0");
    lab.ethtoolK(a, "snd0", "tx-udp-segmentation", "off");
    Inventory inv = read();
    Finding udp = advise(inv, "offload_disabled", segmenting(dev(inv, a, "snd0"), Cause.FEATURE_MISSING,
        GsoType.UDP_L4, Site.XMIT));
    assertThat(run(udp)).containsExactly("ip netns exec " + a.name() + " ethtool -K snd0 tx-udp-segmentation on");
    assertThat(lab.exec(a, "ethtool", "-k", "snd0")).contains("tx-udp-segmentation: on");

    // BIG TCP caps: a sender at 185000 for both families, an uplink with BIG TCP for IPv6 only. iproute2
    // 6.1 has no gso_ipv4_max_size keyword: gso_max_size above 64 KiB leaves the IPv4 limit alone
    Netns sw = lab.namespace("big");
    Netns rx = lab.namespace("bigrcv");
    lab.veth(a, "big0", sw, "big0p");
    lab.veth(sw, "up0", rx, "rcv1");
    lab.bridge(sw, "br0", "big0p", "up0");
    lab.set(a, "big0", "gso_max_size", "185000");
    lab.set(sw, "up0", "gso_max_size", "65536");
    lab.set(sw, "up0", "gso_max_size", "185000");
    LinkSetter.setGsoIpv4MaxSize(a.name(), a.inode(),
        link(lab, a, "big0").path("ifindex").asInt(), 185000);
    inv = read();
    Device big0 = dev(inv, a, "big0");
    assertThat(big0.link().gsoIpv4MaxSize()).hasValue(185000);
    Finding caps = advise(inv, "gso_size_mismatch", segmenting(dev(inv, sw, "up0"), Cause.GSO_MAX_SIZE,
        GsoType.TCP4, Site.XMIT), sending(big0));
    assertThat(run(caps)).containsExactly("ip -n " + a.name() + " link set dev big0 gso_max_size 65536",
        "ip -n " + a.name() + " link set dev big0 gso_max_size 185000");
    Device after = dev(read(), a, "big0");
    assertThat(after.link().gsoIpv4MaxSize()).hasValue(65536);
    assertThat(after.link().gsoMaxSize()).as("IPv6 keeps BIG TCP").hasValue(185000);

    // big_tcp_headroom's command, on a device that takes it (the rule speaks for physical NICs only)
    Device up0 = dev(inv, sw, "up0");
    Inventory asNic = LabInventories.withLink(inv, up0.netns(), up0.ifindex(), l -> new Link(
        l.ifindex(), l.name(), "", l.slaveKind(), l.mtu(), l.link(), l.master(), l.linkNetnsId(), l.gsoMaxSize(),
        l.gsoMaxSegs(), l.tsoMaxSize(), l.tsoMaxSegs(), l.groMaxSize(), l.gsoIpv4MaxSize(), l.groIpv4MaxSize(), l.xdp(),
        l.operstate(), l.minMtu(), l.maxMtu(), l.txQueueLength(), l.flags(), l.vxlanLink()));
    lab.set(sw, "up0", "gso_max_size", "65536");
    asNic = LabInventories.withLink(asNic, up0.netns(), up0.ifindex(), l -> LabInventories.withSizes(l, 65536, 65536,
        524280));
    Finding headroom = advise(asNic, "big_tcp_headroom", Costs.gso(up0.netns(), up0.ifindex(), "up0", 0, 0,
        Cause.OTHER, 0, 90000));
    assertThat(run(headroom)).containsExactly("ip -n " + sw.name() + " link set dev up0 gso_max_size 185000");
    assertThat(dev(read(), sw, "up0").link().gsoMaxSize()).hasValue(185000);
  }

}

package io.segscope.agent.advice;

import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Features;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.model.Link;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.inventory.model.Qdisc;
import io.segscope.agent.inventory.model.Routing;
import io.segscope.agent.inventory.model.XdpAttachment;
import io.segscope.agent.inventory.model.XdpMode;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;

/**
 * Inventories of the lab topologies (docs/lab.md) with the values the 6.18 development kernel
 * reports for them (`ip -d -j link show`, `ethtool -k`, recorded 2026-11-30): a veth advertises
 * gso_max_size 65536 / gso_max_segs 65535, tso_max_size 524280 / tso_max_segs 65535, MTU 1500, and
 * has every segmentation feature on and changeable except the fixed ones listed below.
 */
final class LabInventories {
  static final long ROOT = 4026531840L;
  static final long SENDER = 4026532300L;
  static final long SWITCH = 4026532301L;
  static final long RECEIVER = 4026532302L;

  /** ethtool -k of a 6.18 veth: what is active, and what is [fixed]. */
  static final Set<String> VETH_ACTIVE = Set.of("tx-scatter-gather", "tx-checksum-ip-generic",
      "tx-tcp-segmentation", "tx-tcp6-segmentation", "tx-tcp-ecn-segmentation",
      "tx-tcp-mangleid-segmentation", "tx-udp-segmentation", "tx-generic-segmentation",
      "tx-scatter-gather-fraglist", "tx-gso-list", "tx-gre-segmentation", "tx-gre-csum-segmentation",
      "tx-ipxip4-segmentation", "tx-ipxip6-segmentation", "tx-udp_tnl-segmentation",
      "tx-udp_tnl-csum-segmentation");
  static final Set<String> VETH_FIXED_OFF = Set.of("tx-checksum-ipv4", "tx-checksum-ipv6", "tx-gso-partial");
  static final List<String> KNOWN = List.of("tx-scatter-gather", "tx-checksum-ipv4", "tx-checksum-ip-generic",
      "tx-checksum-ipv6", "tx-scatter-gather-fraglist", "tx-generic-segmentation", "tx-tcp-segmentation",
      "tx-tcp-ecn-segmentation", "tx-tcp-mangleid-segmentation", "tx-tcp6-segmentation",
      "tx-udp-segmentation", "tx-gso-list", "tx-gre-segmentation", "tx-gre-csum-segmentation",
      "tx-ipxip4-segmentation", "tx-ipxip6-segmentation", "tx-udp_tnl-segmentation",
      "tx-udp_tnl-csum-segmentation", "tx-gso-partial");

  static Features vethFeatures(String... turnedOff) {
    Set<String> active = new TreeSet<>(VETH_ACTIVE);
    for (String off : turnedOff) {
      active.remove(off);
    }
    Set<String> hw = new TreeSet<>(KNOWN);
    hw.removeAll(VETH_FIXED_OFF);
    return new Features(Features.Source.ETHTOOL_NETLINK, KNOWN, active, hw, active, Set.of(), "");
  }

  static Features fixedOff(String... fixed) {
    Set<String> active = new TreeSet<>(VETH_ACTIVE);
    Set<String> hw = new TreeSet<>(KNOWN);
    hw.removeAll(VETH_FIXED_OFF);
    for (String f : fixed) {
      active.remove(f);
      hw.remove(f);
    }
    return new Features(Features.Source.ETHTOOL_NETLINK, KNOWN, active, hw, active, Set.of(), "");
  }

  static Link link(int ifindex, String name, String kind, Integer link, Integer master, Integer linkNetnsId,
      long gsoMaxSize, long gsoMaxSegs, XdpAttachment xdp) {
    return new Link(ifindex, name, kind, master == null ? "" : "bridge", 1500,
        link == null ? OptionalInt.empty() : OptionalInt.of(link),
        master == null ? OptionalInt.empty() : OptionalInt.of(master),
        linkNetnsId == null ? OptionalInt.empty() : OptionalInt.of(linkNetnsId),
        OptionalLong.of(gsoMaxSize), OptionalLong.of(gsoMaxSegs),
        OptionalLong.of(kind.equals("bridge") ? 65536 : 524280),
        OptionalLong.of(65535), OptionalLong.of(65536), OptionalLong.of(gsoMaxSize), OptionalLong.of(65536),
        xdp, "UP", OptionalLong.of(68), OptionalLong.of(65535), OptionalLong.of(1000), 0x1 | 0x10000,
        OptionalInt.empty());
  }

  static final XdpAttachment NO_XDP = new XdpAttachment(XdpMode.NONE, OptionalInt.empty(), OptionalInt.empty(),
      OptionalInt.empty(), OptionalInt.empty());

  static XdpAttachment generic(int progId) {
    return new XdpAttachment(XdpMode.GENERIC, OptionalInt.of(progId), OptionalInt.empty(), OptionalInt.of(progId),
        OptionalInt.empty());
  }

  static Netns ns(long inode, String name) {
    return new Netns(inode, name, Path.of(name.isEmpty() ? "/proc/4242/ns/net" : "/run/netns/" + name),
        inode == ROOT);
  }

  /**
   * S1 (docs/lab.md): sender ns "snd0" (ifindex 2) — peer "snd0-br" (2) in the switch ns, port of
   * "br0" (4) — uplink "up0" (3, port of br0, gso_max_size {@code uplinkGsoMaxSize}) — its peer
   * "rcv0" (2) in the receiver ns. nsids: in each namespace, 0 designates the other side.
   */
  static Inventory s1(long uplinkGsoMaxSize, String senderNetnsName) {
    List<Device> d = new ArrayList<>();
    d.add(
        new Device(SENDER, senderNetnsName, link(2, "snd0", "veth", 2, null, 0, 65536, 65535, NO_XDP), vethFeatures()));
    d.add(new Device(SWITCH, "lab-sw", link(2, "snd0-br", "veth", 2, 4, 0, 65536, 65535, NO_XDP), vethFeatures()));
    d.add(new Device(SWITCH, "lab-sw", link(3, "up0", "veth", 2, 4, 1, uplinkGsoMaxSize, 65535, NO_XDP),
        vethFeatures()));
    d.add(new Device(SWITCH, "lab-sw", link(4, "br0", "bridge", null, null, null, Math.min(uplinkGsoMaxSize, 65536),
        65535, NO_XDP), vethFeatures()));
    d.add(new Device(RECEIVER, "lab-rcv", link(2, "rcv0", "veth", 3, null, 0, 65536, 65535, NO_XDP), vethFeatures()));
    Map<Long, Map<Integer, Long>> nsids = new HashMap<>();
    nsids.put(SENDER, Map.of(0, SWITCH));
    nsids.put(SWITCH, Map.of(0, SENDER, 1, RECEIVER));
    nsids.put(RECEIVER, Map.of(0, SWITCH));
    return new Inventory(List.of(ns(ROOT, ""), ns(SENDER, senderNetnsName), ns(SWITCH, "lab-sw"),
        ns(RECEIVER, "lab-rcv")), d, nsids, Instant.parse("2026-11-30T19:00:00Z"));
  }

  /** S2: macvlan "mv0" in the sender ns over "low0" (lower ns) whose peer "rcv0" is in the receiver ns. */
  static Inventory s2(Features lowerFeatures) {
    List<Device> d = new ArrayList<>();
    d.add(new Device(SENDER, "lab-snd", link(2, "mv0", "macvlan", 2, null, 0, 65536, 65535, NO_XDP), vethFeatures()));
    d.add(new Device(SWITCH, "lab-low", link(2, "low0", "veth", 2, null, 1, 65536, 65535, NO_XDP), lowerFeatures));
    d.add(new Device(RECEIVER, "lab-rcv", link(2, "rcv0", "veth", 2, null, 0, 65536, 65535, NO_XDP), vethFeatures()));
    Map<Long, Map<Integer, Long>> nsids = new HashMap<>();
    nsids.put(SENDER, Map.of(0, SWITCH));
    nsids.put(SWITCH, Map.of(0, SENDER, 1, RECEIVER));
    nsids.put(RECEIVER, Map.of(0, SWITCH));
    return new Inventory(List.of(ns(ROOT, ""), ns(SENDER, "lab-snd"), ns(SWITCH, "lab-low"), ns(RECEIVER, "lab-rcv")),
        d, nsids, Instant.parse("2026-11-30T19:00:00Z"));
  }

  /** S3: veth "snd0" (sender ns) — "rcv0" (receiver ns) with an XDP program (id 77) in {@code xdp} mode. */
  static Inventory s3(XdpAttachment xdp, String receiverKind) {
    List<Device> d = new ArrayList<>();
    d.add(new Device(SENDER, "lab-snd", link(2, "snd0", "veth", 2, null, 0, 65536, 65535, NO_XDP), vethFeatures()));
    d.add(
        new Device(RECEIVER, "lab-rcv", link(2, "rcv0", receiverKind, 2, null, 0, 65536, 65535, xdp), vethFeatures()));
    Map<Long, Map<Integer, Long>> nsids = new HashMap<>();
    nsids.put(SENDER, Map.of(0, RECEIVER));
    nsids.put(RECEIVER, Map.of(0, SENDER));
    return new Inventory(List.of(ns(ROOT, ""), ns(SENDER, "lab-snd"), ns(RECEIVER, "lab-rcv")), d, nsids,
        Instant.parse("2026-11-30T19:00:00Z"));
  }

  static final Instant READ_AT = Instant.parse("2026-11-30T19:00:00Z");

  /** A link with another MTU (and min/max MTU as a 6.18 veth reports them: 68..65535). */
  static Link withMtu(Link l, int mtu) {
    return new Link(l.ifindex(), l.name(), l.kind(), l.slaveKind(), mtu, l.link(), l.master(), l.linkNetnsId(),
        l.gsoMaxSize(), l.gsoMaxSegs(), l.tsoMaxSize(), l.tsoMaxSegs(), l.groMaxSize(), l.gsoIpv4MaxSize(),
        l.groIpv4MaxSize(), l.xdp(), l.operstate(), l.minMtu(), l.maxMtu(), l.txQueueLength(), l.flags(),
        l.vxlanLink());
  }

  /** A link with other size limits (gso_max_size, gso_ipv4_max_size, tso_max_size). */
  static Link withSizes(Link l, long gso, long gsoIpv4, long tso) {
    return new Link(l.ifindex(), l.name(), l.kind(), l.slaveKind(), l.mtu(), l.link(), l.master(), l.linkNetnsId(),
        OptionalLong.of(gso), l.gsoMaxSegs(), OptionalLong.of(tso), l.tsoMaxSegs(), l.groMaxSize(),
        OptionalLong.of(gsoIpv4), l.groIpv4MaxSize(), l.xdp(), l.operstate(), l.minMtu(), l.maxMtu(),
        l.txQueueLength(), l.flags(), l.vxlanLink());
  }

  /**
   * {@code inv} with device (netns, ifindex) at its cap: its tso_max_size and tso_max_segs equal to its
   * gso_max_size and gso_max_segs (a driver that takes no more, as a tap's 65536 on 6.18), so
   * gso_size_mismatch cannot raise it and brings the feeders down instead.
   */
  static Inventory capped(Inventory inv, long netns, int ifindex) {
    return withLink(inv, netns, ifindex, l -> new Link(l.ifindex(), l.name(), l.kind(), l.slaveKind(), l.mtu(),
        l.link(), l.master(), l.linkNetnsId(), l.gsoMaxSize(), l.gsoMaxSegs(), l.gsoMaxSize(), l.gsoMaxSegs(),
        l.groMaxSize(), l.gsoIpv4MaxSize(), l.groIpv4MaxSize(), l.xdp(), l.operstate(), l.minMtu(), l.maxMtu(),
        l.txQueueLength(), l.flags(), l.vxlanLink()));
  }

  /** A link with other segment limits (gso_max_segs, tso_max_segs). */
  static Link withSegs(Link l, long gsoSegs, long tsoSegs) {
    return new Link(l.ifindex(), l.name(), l.kind(), l.slaveKind(), l.mtu(), l.link(), l.master(), l.linkNetnsId(),
        l.gsoMaxSize(), OptionalLong.of(gsoSegs), l.tsoMaxSize(), OptionalLong.of(tsoSegs), l.groMaxSize(),
        l.gsoIpv4MaxSize(), l.groIpv4MaxSize(), l.xdp(), l.operstate(), l.minMtu(), l.maxMtu(), l.txQueueLength(),
        l.flags(), l.vxlanLink());
  }

  /** A link whose lower device is given by IFLA_VXLAN_LINK (a vxlan's "dev X"). */
  static Link vxlanOver(int ifindex, String name, int lower) {
    Link l = link(ifindex, name, "vxlan", null, null, null, 65536, 65535, NO_XDP);
    return new Link(l.ifindex(), l.name(), l.kind(), l.slaveKind(), 1450, l.link(), l.master(), l.linkNetnsId(),
        l.gsoMaxSize(), l.gsoMaxSegs(), l.tsoMaxSize(), l.tsoMaxSegs(), l.groMaxSize(), l.gsoIpv4MaxSize(),
        l.groIpv4MaxSize(), l.xdp(), l.operstate(), l.minMtu(), l.maxMtu(), l.txQueueLength(), l.flags(),
        OptionalInt.of(lower));
  }

  static Routing routes(List<Integer> egress, List<Integer> forwarding, Map<Integer, Long> mtus) {
    Map<Integer, OptionalLong> e = new HashMap<>();
    egress.forEach(i -> e.put(i, mtus.containsKey(i) ? OptionalLong.of(mtus.get(i)) : OptionalLong.empty()));
    return new Routing(List.of(), egress.size(), e, Set.copyOf(forwarding), true, true, List.of());
  }

  /**
   * A router namespace between sender and receiver (issue 13's routed shape): sender "snd0" (MTU
   * 1500) in the sender ns, its peer "rt0" (2) in the router ns (SWITCH inode), forwarding on; "rt1"
   * (3, MTU {@code egressMtu}, gso_max_size {@code egressGso}) to "rcv0" in the receiver ns. The
   * router's routes leave by rt0 and rt1 (connected /24s).
   */
  static Inventory routed(int egressMtu, long egressGso) {
    List<Device> d = new ArrayList<>();
    d.add(new Device(SENDER, "lab-snd", link(2, "snd0", "veth", 2, null, 0, 65536, 65535, NO_XDP), vethFeatures()));
    d.add(new Device(SWITCH, "lab-rt", link(2, "rt0", "veth", 2, null, 0, 65536, 65535, NO_XDP), vethFeatures()));
    d.add(new Device(SWITCH, "lab-rt", withMtu(link(3, "rt1", "veth", 2, null, 1, egressGso, 65535, NO_XDP), egressMtu),
        vethFeatures()));
    d.add(new Device(RECEIVER, "lab-rcv", withMtu(link(2, "rcv0", "veth", 3, null, 0, 65536, 65535, NO_XDP), egressMtu),
        vethFeatures()));
    Map<Long, Map<Integer, Long>> nsids = new HashMap<>();
    nsids.put(SENDER, Map.of(0, SWITCH));
    nsids.put(SWITCH, Map.of(0, SENDER, 1, RECEIVER));
    nsids.put(RECEIVER, Map.of(0, SWITCH));
    Map<Long, Routing> routing = Map.of(SENDER, routes(List.of(2), List.of(), Map.of()),
        SWITCH, routes(List.of(2, 3), List.of(2, 3), Map.of()), RECEIVER, routes(List.of(2), List.of(), Map.of()));
    return new Inventory(List.of(ns(ROOT, ""), ns(SENDER, "lab-snd"), ns(SWITCH, "lab-rt"), ns(RECEIVER, "lab-rcv")),
        d, nsids, routing, Map.of(), READ_AT);
  }

  /** The routed shape with the router's ingress a physical NIC "eth0" (2): the senders are other hosts. */
  static Inventory routedFromTheWire(int egressMtu) {
    List<Device> d = new ArrayList<>();
    d.add(new Device(SWITCH, "lab-rt", link(2, "eth0", "", null, null, null, 65536, 65535, NO_XDP), vethFeatures()));
    d.add(new Device(SWITCH, "lab-rt", withMtu(link(3, "rt1", "veth", 2, null, 1, 65536, 65535, NO_XDP), egressMtu),
        vethFeatures()));
    d.add(new Device(RECEIVER, "lab-rcv", link(2, "rcv0", "veth", 3, null, 0, 65536, 65535, NO_XDP), vethFeatures()));
    Map<Long, Map<Integer, Long>> nsids = Map.of(SWITCH, Map.of(1, RECEIVER), RECEIVER, Map.of(0, SWITCH));
    return new Inventory(List.of(ns(ROOT, ""), ns(SWITCH, "lab-rt"), ns(RECEIVER, "lab-rcv")), d, nsids,
        Map.of(SWITCH, routes(List.of(2, 3), List.of(2, 3), Map.of())), Map.of(), READ_AT);
  }

  /**
   * A vxlan overlay "vx0" (3, dev u0) on veth "u0" (2) in the sender ns, peer "u1" (2) in the
   * receiver ns; the underlay's features are {@code underlay}.
   */
  static Inventory vxlan(Features underlay) {
    List<Device> d = new ArrayList<>();
    d.add(new Device(SENDER, "lab-vx", link(2, "u0", "veth", 2, null, 0, 65536, 65535, NO_XDP), underlay));
    d.add(new Device(SENDER, "lab-vx", vxlanOver(3, "vx0", 2), vethFeatures()));
    d.add(new Device(RECEIVER, "lab-rcv", link(2, "u1", "veth", 2, null, 0, 65536, 65535, NO_XDP), vethFeatures()));
    Map<Long, Map<Integer, Long>> nsids = Map.of(SENDER, Map.of(0, RECEIVER), RECEIVER, Map.of(0, SENDER));
    return new Inventory(List.of(ns(ROOT, ""), ns(SENDER, "lab-vx"), ns(RECEIVER, "lab-rcv")), d, nsids, READ_AT);
  }

  /** S3's pair "snd0" — "rcv0" with {@code qdiscs} on snd0 (the sender's side). */
  static Inventory shaped(List<Qdisc> qdiscs) {
    Inventory base = s3(NO_XDP, "veth");
    return new Inventory(base.namespaces(), base.devices(), Map.of(SENDER, Map.of(0, RECEIVER), RECEIVER,
        Map.of(0, SENDER)), Map.of(), Map.of(SENDER, qdiscs), READ_AT);
  }

  /** tbf as tc dumps it: rate 100mbit burst 10000 limit 30000, handle 8001: at the root. */
  static Qdisc tbf(long peakBytesPerSec) {
    return new Qdisc(2, 0x80010000, Qdisc.ROOT, "tbf", Optional.of(new Qdisc.Tbf(12_500_000,
        peakBytesPerSec, 30000, 10000, peakBytesPerSec > 0 ? 1995 : 0, 0, 0, 1)), Optional.empty());
  }

  /**
   * The hypervisor shape: bridge "br0" (4) in the switch ns with tap "tap0" (2, kind tun: a VM's
   * vhost-net) and uplink "up0" (3, gso_max_size {@code uplinkGsoMaxSize}) whose peer "rcv0" is in
   * the receiver ns. A tap reports tso_max_size 65536 on 6.18.
   */
  static Inventory guest(long uplinkGsoMaxSize) {
    List<Device> d = new ArrayList<>();
    d.add(new Device(SWITCH, "lab-sw", withSizes(link(2, "tap0", "tun", null, 4, null, 65536, 65535, NO_XDP), 65536,
        65536, 65536), fixedOff()));
    d.add(
        new Device(SWITCH, "lab-sw", link(3, "up0", "veth", 2, 4, 1, uplinkGsoMaxSize, 65535, NO_XDP), vethFeatures()));
    d.add(
        new Device(SWITCH, "lab-sw", link(4, "br0", "bridge", null, null, null, 65536, 65535, NO_XDP), vethFeatures()));
    d.add(new Device(RECEIVER, "lab-rcv", link(2, "rcv0", "veth", 3, null, 0, 65536, 65535, NO_XDP), vethFeatures()));
    Map<Long, Map<Integer, Long>> nsids = Map.of(SWITCH, Map.of(1, RECEIVER), RECEIVER, Map.of(0, SWITCH));
    return new Inventory(List.of(ns(ROOT, ""), ns(SWITCH, "lab-sw"), ns(RECEIVER, "lab-rcv")), d, nsids, READ_AT);
  }

  /**
   * A bond "bond0" (4) in the root namespace over physical ports "eth1" (2, gso_max_size 65536) and
   * "eth2" (3, gso_max_size {@code eth2GsoMaxSize}), tso_max_size 65536 each (values a bond reports
   * in the Debian 6.1 guest; the development kernel has no bonding).
   */
  static Inventory bond(long eth2GsoMaxSize) {
    List<Device> d = new ArrayList<>();
    d.add(new Device(ROOT, "", withSizes(link(2, "eth1", "", null, 4, null, 65536, 65535, NO_XDP), 65536, 65536, 65536),
        vethFeatures()));
    d.add(new Device(ROOT, "", withSizes(link(3, "eth2", "", null, 4, null, eth2GsoMaxSize, 65535, NO_XDP),
        eth2GsoMaxSize, eth2GsoMaxSize, 65536), vethFeatures()));
    d.add(new Device(ROOT, "", withSizes(link(4, "bond0", "bond", null, null, null, 65536, 65535, NO_XDP), 65536, 65536,
        65536), vethFeatures()));
    return new Inventory(List.of(ns(ROOT, "")), d, Map.of(), READ_AT);
  }

  /** A WireGuard device "wg0" (2) in the sender ns. */
  static Inventory wireguard() {
    Device wg = new Device(SENDER, "lab-wg", withMtu(link(2, "wg0", "wireguard", null, null, null, 65536, 65535,
        NO_XDP), 1420), vethFeatures());
    return new Inventory(List.of(ns(ROOT, ""), ns(SENDER, "lab-wg")), List.of(wg), Map.of(), READ_AT);
  }

  /**
   * BIG TCP: S1 with the sender veth at gso_max_size and gso_ipv4_max_size 185000, the uplink at
   * {@code uplinkGso} / {@code uplinkGsoIpv4}.
   */
  static Inventory bigTcp(long uplinkGso, long uplinkGsoIpv4) {
    Inventory base = s1(65536, "lab-snd");
    List<Device> d = new ArrayList<>();
    for (Device x : base.devices()) {
      Link l = x.link();
      if (x.name().equals("snd0")) {
        l = withSizes(l, 185000, 185000, 524280);
      } else if (x.name().equals("up0")) {
        l = withSizes(l, uplinkGso, uplinkGsoIpv4, 524280);
      }
      d.add(new Device(x.netns(), x.netnsName(), l, x.features()));
    }
    Map<Long, Map<Integer, Long>> nsids = new HashMap<>();
    for (Netns n : base.namespaces()) {
      nsids.put(n.inode(), base.nsids(n.inode()));
    }
    return new Inventory(base.namespaces(), d, nsids, READ_AT);
  }

  /** {@code inv} with device (netns, ifindex)'s features replaced. */
  static Inventory withFeatures(Inventory inv, long netns, int ifindex, Features f) {
    return inv.withDevices(inv.devices().stream().map(d -> d.netns() == netns && d.ifindex() == ifindex
        ? new Device(d.netns(), d.netnsName(), d.link(), f, d.driver()) : d).toList());
  }

  /** {@code inv} with device (netns, ifindex)'s link changed by {@code change}. */
  static Inventory withLink(Inventory inv, long netns, int ifindex, UnaryOperator<Link> change) {
    return inv.withDevices(inv.devices().stream().map(d -> d.netns() == netns && d.ifindex() == ifindex
        ? new Device(d.netns(), d.netnsName(), change.apply(d.link()), d.features(), d.driver()) : d).toList());
  }
}

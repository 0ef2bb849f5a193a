package io.segscope.agent.advice;

import io.segscope.agent.inventory.Device;
import io.segscope.agent.inventory.Features;
import io.segscope.agent.inventory.Inventory;
import io.segscope.agent.inventory.Link;
import io.segscope.agent.inventory.Netns;
import io.segscope.agent.inventory.XdpAttachment;
import io.segscope.agent.inventory.XdpMode;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;

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
      "tx-scatter-gather-fraglist", "tx-gso-list");
  static final Set<String> VETH_FIXED_OFF = Set.of("tx-checksum-ipv4", "tx-checksum-ipv6");
  static final List<String> KNOWN = List.of("tx-scatter-gather", "tx-checksum-ipv4", "tx-checksum-ip-generic",
      "tx-checksum-ipv6", "tx-scatter-gather-fraglist", "tx-generic-segmentation", "tx-tcp-segmentation",
      "tx-tcp-ecn-segmentation", "tx-tcp-mangleid-segmentation", "tx-tcp6-segmentation",
      "tx-udp-segmentation", "tx-gso-list");

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
        OptionalLong.of(gsoMaxSize), OptionalLong.of(gsoMaxSegs), OptionalLong.of(kind.equals("bridge") ? 65536 : 524280),
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
    d.add(new Device(SENDER, senderNetnsName, link(2, "snd0", "veth", 2, null, 0, 65536, 65535, NO_XDP), vethFeatures()));
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
    d.add(new Device(RECEIVER, "lab-rcv", link(2, "rcv0", receiverKind, 2, null, 0, 65536, 65535, xdp), vethFeatures()));
    Map<Long, Map<Integer, Long>> nsids = new HashMap<>();
    nsids.put(SENDER, Map.of(0, RECEIVER));
    nsids.put(RECEIVER, Map.of(0, SENDER));
    return new Inventory(List.of(ns(ROOT, ""), ns(SENDER, "lab-snd"), ns(RECEIVER, "lab-rcv")), d, nsids,
        Instant.parse("2026-11-30T19:00:00Z"));
  }
}

package io.segscope.lab;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The lab scenarios (docs/lab.md), each built in a {@link Lab} next to its healthy control (same topology,
 * consistent settings). Namespace roles carry the scenario and a {@code h} for the healthy variant
 * ({@code s1snd}, {@code s1hsnd}, ...) and the two variants use different /24s, so one lab can hold a
 * scenario and its control side by side. Builders use only {@code ip} and {@code ethtool} (S3 also clang);
 * they do not send traffic. Diagrams and addresses: docs/lab.md.
 */
public final class Scenarios {
  /** gso_max_size put on the S1 uplink. */
  public static final int S1_UPLINK_GSO_MAX_SIZE = 16384;

  private Scenarios() {
  }

  /**
   * S1, GSO size mismatch: sender veth {@code snd0} → its peer {@code snd0p} in bridge {@code br0} of a
   * switch namespace → uplink veth {@code up0} in the same bridge, with {@code gso_max_size 16384} unless
   * healthy → its peer {@code rcv0} in the receiver namespace. Roles: sender, senderPeer, bridge, uplink,
   * receiver. Addresses 198.18.1.1/24 → .2 (healthy 198.18.11.0/24).
   */
  public static Topology s1GsoMismatch(Lab lab, boolean healthy) {
    return s1GsoMismatch(lab, healthy, Family.IPV4);
  }

  /**
   * S1 in {@code family}: IPv6 uses roles {@code s1v6snd}, ... and 2001:2:0:1::/64 (healthy
   * 2001:2:0:11::/64), with the same devices and settings.
   */
  public static Topology s1GsoMismatch(Lab lab, boolean healthy, Family family) {
    String v = (family == Family.IPV6 ? "v6" : "") + (healthy ? "h" : "");
    String net = family.net(1, healthy);
    Netns snd = lab.namespace("s1" + v + "snd");
    Netns sw = lab.namespace("s1" + v + "sw");
    Netns rcv = lab.namespace("s1" + v + "rcv");
    lab.veth(snd, "snd0", sw, "snd0p");
    lab.veth(sw, "up0", rcv, "rcv0");
    lab.bridge(sw, "br0", "snd0p", "up0");
    if (!healthy) {
      lab.set(sw, "up0", "gso_max_size", Integer.toString(S1_UPLINK_GSO_MAX_SIZE));
    }
    lab.address(snd, "snd0", net + "1" + family.len());
    lab.address(rcv, "rcv0", net + "2" + family.len());
    Map<String, DeviceAt> devices = new LinkedHashMap<>();
    devices.put("sender", new DeviceAt(snd, "snd0"));
    devices.put("senderPeer", new DeviceAt(sw, "snd0p"));
    devices.put("bridge", new DeviceAt(sw, "br0"));
    devices.put("uplink", new DeviceAt(sw, "up0"));
    devices.put("receiver", new DeviceAt(rcv, "rcv0"));
    return new Topology(name("s1-gso-mismatch" + family.suffix(), healthy), snd, rcv, net + "2", devices);
  }

  /**
   * S2, offload lost below a virtual device: lower veth {@code low0} lives in a lower namespace, its peer
   * {@code rcv0} in the receiver namespace; macvlan {@code mv0} (bridge mode) on {@code low0} is moved into
   * the sender namespace. Unless healthy, {@code ethtool -K low0 tso off}. Traffic mv0 → low0 → rcv0.
   * Roles: macvlan (also "sender"), lower, receiver. Addresses 198.18.2.1/24 → .2 (healthy 198.18.12.0/24).
   */
  public static Topology s2OffloadLost(Lab lab, boolean healthy) {
    return s2OffloadLost(lab, healthy, Family.IPV4);
  }

  /** S2 in {@code family} (IPv6: roles {@code s2v6snd}, ..., 2001:2:0:2::/64, healthy 2001:2:0:12::/64). */
  public static Topology s2OffloadLost(Lab lab, boolean healthy, Family family) {
    String v = (family == Family.IPV6 ? "v6" : "") + (healthy ? "h" : "");
    String net = family.net(2, healthy);
    Netns snd = lab.namespace("s2" + v + "snd");
    Netns low = lab.namespace("s2" + v + "low");
    Netns rcv = lab.namespace("s2" + v + "rcv");
    lab.veth(low, "low0", rcv, "rcv0");
    lab.macvlan(snd, "mv0", low, "low0", "bridge");
    if (!healthy) {
      lab.ethtoolK(low, "low0", "tso", "off");
    }
    lab.address(snd, "mv0", net + "1" + family.len());
    lab.address(rcv, "rcv0", net + "2" + family.len());
    Map<String, DeviceAt> devices = new LinkedHashMap<>();
    devices.put("sender", new DeviceAt(snd, "mv0"));
    devices.put("macvlan", new DeviceAt(snd, "mv0"));
    devices.put("lower", new DeviceAt(low, "low0"));
    devices.put("receiver", new DeviceAt(rcv, "rcv0"));
    return new Topology(name("s2-offload-lost" + family.suffix(), healthy), snd, rcv, net + "2", devices);
  }

  /**
   * S3, generic XDP: veth {@code snd0} in the sender namespace, peer {@code rcv0} in the receiver
   * namespace; unless healthy, an XDP_PASS program (built with clang from xdp_pass.c) attached to
   * {@code rcv0} in generic mode, detached on close. Roles: sender, receiver. Addresses 198.18.3.1/24 → .2
   * (healthy 198.18.13.0/24).
   */
  public static Topology s3GenericXdp(Lab lab, boolean healthy) {
    return s3GenericXdp(lab, healthy, Family.IPV4);
  }

  /** S3 in {@code family} (IPv6: roles {@code s3v6snd}, ..., 2001:2:0:3::/64, healthy 2001:2:0:13::/64). */
  public static Topology s3GenericXdp(Lab lab, boolean healthy, Family family) {
    String v = (family == Family.IPV6 ? "v6" : "") + (healthy ? "h" : "");
    String net = family.net(3, healthy);
    Path object = healthy ? null : XdpPass.build(lab.workDir());
    Netns snd = lab.namespace("s3" + v + "snd");
    Netns rcv = lab.namespace("s3" + v + "rcv");
    lab.veth(snd, "snd0", rcv, "rcv0");
    if (!healthy) {
      lab.xdp(rcv, "rcv0", "xdpgeneric", object, XdpPass.SECTION);
    }
    lab.address(snd, "snd0", net + "1" + family.len());
    lab.address(rcv, "rcv0", net + "2" + family.len());
    Map<String, DeviceAt> devices = new LinkedHashMap<>();
    devices.put("sender", new DeviceAt(snd, "snd0"));
    devices.put("receiver", new DeviceAt(rcv, "rcv0"));
    return new Topology(name("s3-generic-xdp" + family.suffix(), healthy), snd, rcv, net + "2", devices);
  }

  /** gso_max_size (and gso_ipv4_max_size) of the BIG TCP senders: above the 64 KiB of a default uplink. */
  public static final int BIG_TCP_GSO_MAX_SIZE = 185000;
  /** The tap scenario's "guest": its MAC and TCP payload per super-packet (gso_size 1448). */
  public static final String TAP_GUEST_MAC = "02:00:c6:12:05:01";
  public static final int TAP_PAYLOAD = 63000;
  public static final int TAP_MSS = 1448;
  /** The routed scenario's smaller egress MTU. */
  public static final int ROUTED_EGRESS_MTU = 1400;

  /**
   * S4, vxlan over a veth underlay that lacks {@code tx-udp_tnl-segmentation}: underlay veth {@code u0}
   * (198.18.4.1/24, namespace {@code s4a}) / {@code u1} (198.18.4.2, {@code s4b}); vxlan {@code vx0}
   * (VNI 4, UDP 4789) on each end over it, 198.18.104.1/24 → .2. Unless healthy, {@code ethtool -K u0
   * tx-udp_tnl-segmentation off tx-udp_tnl-csum-segmentation off}: the encapsulated super-packets are
   * segmented in software when they leave u0. Roles: sender (vx0 in a), underlay (u0), underlayPeer (u1),
   * receiver (vx0 in b). Healthy: 198.18.14.0/24 and 198.18.114.0/24, VNI 14.
   */
  public static Topology s4VxlanTunnelOffloadOff(Lab lab, boolean healthy) {
    String v = healthy ? "h" : "";
    int n = healthy ? 14 : 4;
    Netns a = lab.namespace("s4" + v + "a");
    Netns b = lab.namespace("s4" + v + "b");
    lab.veth(a, "u0", b, "u1");
    lab.address(a, "u0", "198.18." + n + ".1/24");
    lab.address(b, "u1", "198.18." + n + ".2/24");
    lab.link(a, "vx0", "vxlan", "id", Integer.toString(n), "local", "198.18." + n + ".1", "remote",
        "198.18." + n + ".2", "dstport", "4789", "dev", "u0");
    lab.link(b, "vx0", "vxlan", "id", Integer.toString(n), "local", "198.18." + n + ".2", "remote",
        "198.18." + n + ".1", "dstport", "4789", "dev", "u1");
    if (!healthy) {
      lab.ethtoolK(a, "u0", "tx-udp_tnl-segmentation", "off", "tx-udp_tnl-csum-segmentation", "off");
    }
    lab.address(a, "vx0", "198.18.1" + String.format("%02d", n) + ".1/24");
    lab.address(b, "vx0", "198.18.1" + String.format("%02d", n) + ".2/24");
    Map<String, DeviceAt> devices = new LinkedHashMap<>();
    devices.put("sender", new DeviceAt(a, "vx0"));
    devices.put("underlay", new DeviceAt(a, "u0"));
    devices.put("underlayPeer", new DeviceAt(b, "u1"));
    devices.put("receiver", new DeviceAt(b, "vx0"));
    return new Topology(name("s4-vxlan-tunnel-offload-off", healthy), a, b,
        "198.18.1" + String.format("%02d", n) + ".2", devices);
  }

  /**
   * S5, the hypervisor shape of S1: a tap {@code tap0} with virtio-net headers and an uplink veth
   * {@code up0} in bridge {@code br0} (namespace {@code s5sw}); {@code up0}'s peer {@code rcv0}
   * (198.18.5.2/24) in {@code s5rcv}. A {@link TapInjector} in {@code s5sw} plays the guest
   * ({@link #TAP_GUEST_MAC}, 198.18.5.1) writing 63,000-byte TCP super-packets (gso_size 1448) into tap0.
   * Unless healthy, up0 has {@code gso_max_size 16384}: the bridge forwards the guest's super-packets to
   * an uplink that cannot take them whole. Roles: tap (also "sender"), bridge, uplink, receiver. Healthy:
   * 198.18.15.0/24.
   */
  public static Topology s5TapIntoSmallerUplink(Lab lab, boolean healthy) {
    String v = healthy ? "h" : "";
    String net = healthy ? "198.18.15." : "198.18.5.";
    Netns sw = lab.namespace("s5" + v + "sw");
    Netns rcv = lab.namespace("s5" + v + "rcv");
    lab.tap(sw, "tap0");
    lab.veth(sw, "up0", rcv, "rcv0");
    lab.bridge(sw, "br0", "tap0", "up0");
    if (!healthy) {
      lab.set(sw, "up0", "gso_max_size", Integer.toString(S1_UPLINK_GSO_MAX_SIZE));
    }
    lab.address(rcv, "rcv0", net + "2/24");
    Map<String, DeviceAt> devices = new LinkedHashMap<>();
    devices.put("sender", new DeviceAt(sw, "tap0"));
    devices.put("tap", new DeviceAt(sw, "tap0"));
    devices.put("bridge", new DeviceAt(sw, "br0"));
    devices.put("uplink", new DeviceAt(sw, "up0"));
    devices.put("receiver", new DeviceAt(rcv, "rcv0"));
    return new Topology(name("s5-tap-into-smaller-uplink", healthy), sw, rcv, net + "2", devices);
  }

  /**
   * S6, forwarded GSO larger than the egress MTU: sender {@code snd0} (198.18.6.1/24, namespace
   * {@code s6snd}, PMTU discovery off: {@code net.ipv4.ip_no_pmtu_disc=1}, so its segments carry no DF)
   * → router {@code r0} (198.18.6.2) / {@code r1} (198.18.106.1/24) in {@code s6rtr} (forwarding on) →
   * receiver {@code rcv0} (198.18.106.2, {@code s6rcv}); routes between the two /24s via the router.
   * Unless healthy, r1 has MTU {@link #ROUTED_EGRESS_MTU} while both hosts keep 1500: the router
   * segments each forwarded super-packet in software (ip_finish_output_gso) and fragments the segments.
   * Roles: sender, routerIn, routerOut, receiver. Healthy: 198.18.16.0/24 and 198.18.116.0/24.
   */
  public static Topology s6RoutedSmallerEgressMtu(Lab lab, boolean healthy) {
    String v = healthy ? "h" : "";
    String in = healthy ? "198.18.16." : "198.18.6.";
    String out = healthy ? "198.18.116." : "198.18.106.";
    Netns snd = lab.namespace("s6" + v + "snd");
    Netns rtr = lab.namespace("s6" + v + "rtr");
    Netns rcv = lab.namespace("s6" + v + "rcv");
    lab.veth(snd, "snd0", rtr, "r0");
    lab.veth(rtr, "r1", rcv, "rcv0");
    if (!healthy) {
      lab.set(rtr, "r1", "mtu", Integer.toString(ROUTED_EGRESS_MTU));
    }
    lab.address(snd, "snd0", in + "1/24");
    lab.address(rtr, "r0", in + "2/24");
    lab.address(rtr, "r1", out + "1/24");
    lab.address(rcv, "rcv0", out + "2/24");
    lab.route(snd, out + "0/24", in + "2");
    lab.route(rcv, in + "0/24", out + "1");
    lab.sysctl(rtr, "net.ipv4.ip_forward", "1");
    lab.sysctl(snd, "net.ipv4.ip_no_pmtu_disc", "1");
    Map<String, DeviceAt> devices = new LinkedHashMap<>();
    devices.put("sender", new DeviceAt(snd, "snd0"));
    devices.put("routerIn", new DeviceAt(rtr, "r0"));
    devices.put("routerOut", new DeviceAt(rtr, "r1"));
    devices.put("receiver", new DeviceAt(rcv, "rcv0"));
    return new Topology(name("s6-routed-smaller-egress-mtu", healthy), snd, rcv, out + "2", devices);
  }

  /**
   * S7, a shaping qdisc that segments: veth {@code snd0} (198.18.7.1/24, {@code s7snd}) / {@code rcv0}
   * (198.18.7.2, {@code s7rcv}) with a tbf root qdisc on snd0, {@code rate 1gbit latency 2ms} and a burst
   * of 16 KiB (healthy: 256 KiB). tbf cuts every super-packet larger than its burst in software
   * (tbf_segment) and queues the segments. Roles: sender, receiver. Healthy: 198.18.17.0/24.
   */
  public static Topology s7TbfSmallBurst(Lab lab, boolean healthy) {
    String v = healthy ? "h" : "";
    String net = healthy ? "198.18.17." : "198.18.7.";
    Netns snd = lab.namespace("s7" + v + "snd");
    Netns rcv = lab.namespace("s7" + v + "rcv");
    lab.veth(snd, "snd0", rcv, "rcv0");
    lab.tc(snd, "qdisc", "add", "dev", "snd0", "root", "tbf", "rate", "1gbit", "burst", healthy ? "256kb" : "16kb",
        "latency", "2ms");
    lab.address(snd, "snd0", net + "1/24");
    lab.address(rcv, "rcv0", net + "2/24");
    Map<String, DeviceAt> devices = new LinkedHashMap<>();
    devices.put("sender", new DeviceAt(snd, "snd0"));
    devices.put("receiver", new DeviceAt(rcv, "rcv0"));
    return new Topology(name("s7-tbf-small-burst", healthy), snd, rcv, net + "2", devices);
  }

  /**
   * S8, UDP GSO ({@code UDP_SEGMENT} senders, QUIC) over a veth without {@code tx-udp-segmentation}:
   * veth {@code snd0} (198.18.8.1/24, {@code s8snd}) / {@code rcv0} (198.18.8.2, {@code s8rcv}); unless
   * healthy, {@code ethtool -K snd0 tx-udp-segmentation off}. Traffic: {@link UdpGsoSender}, to a sink that
   * accepts GRO'd datagrams (UDP_GRO), so only the sender's side can segment. Roles: sender, receiver.
   * Healthy: 198.18.18.0/24.
   */
  public static Topology s8UdpGsoOffloadOff(Lab lab, boolean healthy) {
    String v = healthy ? "h" : "";
    String net = healthy ? "198.18.18." : "198.18.8.";
    Netns snd = lab.namespace("s8" + v + "snd");
    Netns rcv = lab.namespace("s8" + v + "rcv");
    lab.veth(snd, "snd0", rcv, "rcv0");
    if (!healthy) {
      lab.ethtoolK(snd, "snd0", "tx-udp-segmentation", "off");
    }
    lab.address(snd, "snd0", net + "1/24");
    lab.address(rcv, "rcv0", net + "2/24");
    Map<String, DeviceAt> devices = new LinkedHashMap<>();
    devices.put("sender", new DeviceAt(snd, "snd0"));
    devices.put("receiver", new DeviceAt(rcv, "rcv0"));
    return new Topology(name("s8-udp-gso-offload-off", healthy), snd, rcv, net + "2", devices);
  }

  /**
   * S9, UDP super-packets received by a socket that did not ask for them: the same veth pair as S8
   * (198.18.9.0/24, {@code s9snd}/{@code s9rcv}) with every offload on; the {@link UdpGsoSender}'s
   * super-packets reach {@code rcv0} whole, and a sink without UDP_GRO makes the kernel cut them again on
   * receive (udp_rcv_segment). The topology is the same healthy or not: what differs is the sink (healthy:
   * with UDP_GRO). Roles: sender, receiver. Healthy: 198.18.19.0/24.
   */
  public static Topology s9UdpRxForANonGroSocket(Lab lab, boolean healthy) {
    String v = healthy ? "h" : "";
    String net = healthy ? "198.18.19." : "198.18.9.";
    Netns snd = lab.namespace("s9" + v + "snd");
    Netns rcv = lab.namespace("s9" + v + "rcv");
    lab.veth(snd, "snd0", rcv, "rcv0");
    lab.address(snd, "snd0", net + "1/24");
    lab.address(rcv, "rcv0", net + "2/24");
    Map<String, DeviceAt> devices = new LinkedHashMap<>();
    devices.put("sender", new DeviceAt(snd, "snd0"));
    devices.put("receiver", new DeviceAt(rcv, "rcv0"));
    return new Topology(name("s9-udp-rx-non-gro-socket", healthy), snd, rcv, net + "2", devices);
  }

  /**
   * S10, ingress redirected to an ifb: veth {@code snd0} (198.18.10.1/24, {@code s10snd}) / {@code rcv0}
   * (198.18.10.2, {@code s10rcv}); in s10rcv an ingress qdisc on rcv0 redirects everything (u32 match-all,
   * mirred) to {@code ifb0}, as ingress shaping set-ups do. Unless healthy, {@code ethtool -K ifb0 tso off}:
   * the received super-packets are segmented in software when they leave ifb0. Roles: sender, receiver,
   * ifb. Healthy: 198.18.20.0/24.
   */
  public static Topology s10IfbIngressRedirect(Lab lab, boolean healthy) {
    String v = healthy ? "h" : "";
    String net = healthy ? "198.18.20." : "198.18.10.";
    Netns snd = lab.namespace("s10" + v + "snd");
    Netns rcv = lab.namespace("s10" + v + "rcv");
    lab.veth(snd, "snd0", rcv, "rcv0");
    lab.link(rcv, "ifb0", "ifb");
    lab.tc(rcv, "qdisc", "add", "dev", "rcv0", "handle", "ffff:", "ingress");
    lab.tc(rcv, "filter", "add", "dev", "rcv0", "parent", "ffff:", "protocol", "all", "u32", "match", "u32", "0",
        "0", "action", "mirred", "egress", "redirect", "dev", "ifb0");
    if (!healthy) {
      lab.ethtoolK(rcv, "ifb0", "tso", "off");
    }
    lab.address(snd, "snd0", net + "1/24");
    lab.address(rcv, "rcv0", net + "2/24");
    Map<String, DeviceAt> devices = new LinkedHashMap<>();
    devices.put("sender", new DeviceAt(snd, "snd0"));
    devices.put("receiver", new DeviceAt(rcv, "rcv0"));
    devices.put("ifb", new DeviceAt(rcv, "ifb0"));
    return new Topology(name("s10-ifb-ingress-redirect", healthy), snd, rcv, net + "2", devices);
  }

  /**
   * S11, BIG TCP against a 64 KiB uplink: S1's shape (sender veth, bridge, uplink veth, receiver) with
   * the sender's {@code gso_max_size} (IPv6) or {@code gso_ipv4_max_size} (IPv4, set with
   * {@link LinkIpv4Max}) at {@link #BIG_TCP_GSO_MAX_SIZE}, so its TCP builds super-packets above 64 KiB;
   * unless healthy, the uplink keeps the default 65536 and segments them in software (healthy: the uplink
   * takes the same size). Roles: sender, senderPeer, bridge, uplink, receiver. IPv4: 198.18.21.0/24
   * (healthy .31), roles {@code bt4...}; IPv6: 2001:2:0:22::/64 (healthy :32::), roles {@code bt6...}.
   */
  public static Topology s11BigTcp(Lab lab, boolean healthy, Family family) {
    String v = (family == Family.IPV6 ? "6" : "4") + (healthy ? "h" : "");
    String net = family.net(family == Family.IPV6 ? 22 : 21, healthy);
    Netns snd = lab.namespace("bt" + v + "snd");
    Netns sw = lab.namespace("bt" + v + "sw");
    Netns rcv = lab.namespace("bt" + v + "rcv");
    lab.veth(snd, "snd0", sw, "snd0p");
    lab.veth(sw, "up0", rcv, "rcv0");
    lab.bridge(sw, "br0", "snd0p", "up0");
    String big = Integer.toString(BIG_TCP_GSO_MAX_SIZE);
    lab.set(snd, "snd0", "gso_max_size", big);
    if (healthy) {
      lab.set(sw, "up0", "gso_max_size", big);
    }
    if (family == Family.IPV4) {
      LinkIpv4Max set = LinkIpv4Max.build(lab.workDir());
      set.set(lab, snd, "snd0", BIG_TCP_GSO_MAX_SIZE, BIG_TCP_GSO_MAX_SIZE);
      if (healthy) {
        set.set(lab, sw, "up0", BIG_TCP_GSO_MAX_SIZE, BIG_TCP_GSO_MAX_SIZE);
      }
    }
    lab.address(snd, "snd0", net + "1" + family.len());
    lab.address(rcv, "rcv0", net + "2" + family.len());
    Map<String, DeviceAt> devices = new LinkedHashMap<>();
    devices.put("sender", new DeviceAt(snd, "snd0"));
    devices.put("senderPeer", new DeviceAt(sw, "snd0p"));
    devices.put("bridge", new DeviceAt(sw, "br0"));
    devices.put("uplink", new DeviceAt(sw, "up0"));
    devices.put("receiver", new DeviceAt(rcv, "rcv0"));
    return new Topology(name("s11-big-tcp" + (family == Family.IPV6 ? "-ipv6" : "-ipv4"), healthy), snd, rcv,
        net + "2", devices);
  }

  /**
   * S12, a real cap below BIG TCP, with segmentation moving to a vhost stand-in: sender veth {@code snd0}
   * (198.18.23.1/24, {@code s12snd}) with BIG TCP ({@code gso_max_size} and {@code gso_ipv4_max_size}
   * {@link #BIG_TCP_GSO_MAX_SIZE} unless healthy) → its peer {@code snd0p} in bridge {@code br0}
   * ({@code s12sw}) → uplink tap {@code tap0} (vnet_hdr) in the same bridge, whose {@code tso_max_size} is
   * 64 KiB: a cap, not a setting. A {@link TapForwarder} started by the test (its TUNSETOFFLOAD gives both
   * taps checksum and TSO offloads) moves tap0's frames, GSO metadata intact, into tap {@code tap1}
   * (198.18.23.2/24) of the receiver namespace {@code s12rcv}, and back. Unless healthy, tap0 segments the
   * sender's super-packets above 64 KiB in software. Roles: sender, senderPeer, bridge, uplink (tap0),
   * receiver (tap1). Healthy: 198.18.33.0/24, the sender at 64 KiB.
   */
  public static Topology s12TapCap(Lab lab, boolean healthy) {
    String v = healthy ? "h" : "";
    String net = healthy ? "198.18.33." : "198.18.23.";
    Netns snd = lab.namespace("s12" + v + "snd");
    Netns sw = lab.namespace("s12" + v + "sw");
    Netns rcv = lab.namespace("s12" + v + "rcv");
    lab.veth(snd, "snd0", sw, "snd0p");
    lab.tap(sw, "tap0");
    lab.tap(rcv, "tap1");
    lab.bridge(sw, "br0", "snd0p", "tap0");
    if (!healthy) {
      String big = Integer.toString(BIG_TCP_GSO_MAX_SIZE);
      lab.set(snd, "snd0", "gso_max_size", big);
      LinkIpv4Max.build(lab.workDir()).set(lab, snd, "snd0", BIG_TCP_GSO_MAX_SIZE, BIG_TCP_GSO_MAX_SIZE);
    }
    lab.address(snd, "snd0", net + "1/24");
    lab.address(rcv, "tap1", net + "2/24");
    Map<String, DeviceAt> devices = new LinkedHashMap<>();
    devices.put("sender", new DeviceAt(snd, "snd0"));
    devices.put("senderPeer", new DeviceAt(sw, "snd0p"));
    devices.put("bridge", new DeviceAt(sw, "br0"));
    devices.put("uplink", new DeviceAt(sw, "tap0"));
    devices.put("receiver", new DeviceAt(rcv, "tap1"));
    return new Topology(name("s12-tap-cap", healthy), snd, rcv, net + "2", devices);
  }

  static String name(String base, boolean healthy) {
    return healthy ? base + "-healthy" : base;
  }
}

package io.segscope.lab;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The lab scenarios of device kinds the development kernel lacks (geneve, vlan, ipvlan, bond, WireGuard), built
 * in the Debian 6.1 guest by the agent's guest suite; like {@link Scenarios}, each next to its healthy control.
 * Diagrams and addresses: docs/lab.md.
 */
public final class GuestKindScenarios {
  private GuestKindScenarios() {
  }

  /**
   * G1, geneve over a veth underlay without {@code tx-udp_tnl-segmentation}: S4 with geneve (VNI 40)
   * instead of vxlan. Underlay 198.18.40.0/24, overlay 198.18.140.0/24, namespaces {@code g1a}/{@code g1b};
   * healthy 198.18.50.0/24 / 198.18.150.0/24, VNI 50. Roles as S4.
   */
  public static Topology g1GeneveTunnelOffloadOff(Lab lab, boolean healthy) {
    String v = healthy ? "h" : "";
    int n = healthy ? 50 : 40;
    Netns a = lab.namespace("g1" + v + "a");
    Netns b = lab.namespace("g1" + v + "b");
    lab.veth(a, "u0", b, "u1");
    lab.address(a, "u0", "198.18." + n + ".1/24");
    lab.address(b, "u1", "198.18." + n + ".2/24");
    lab.link(a, "gn0", "geneve", "id", Integer.toString(n), "remote", "198.18." + n + ".2");
    lab.link(b, "gn0", "geneve", "id", Integer.toString(n), "remote", "198.18." + n + ".1");
    if (!healthy) {
      lab.ethtoolK(a, "u0", "tx-udp_tnl-segmentation", "off", "tx-udp_tnl-csum-segmentation", "off");
    }
    lab.address(a, "gn0", "198.18.1" + n + ".1/24");
    lab.address(b, "gn0", "198.18.1" + n + ".2/24");
    Map<String, DeviceAt> devices = new LinkedHashMap<>();
    devices.put("sender", new DeviceAt(a, "gn0"));
    devices.put("underlay", new DeviceAt(a, "u0"));
    devices.put("underlayPeer", new DeviceAt(b, "u1"));
    devices.put("receiver", new DeviceAt(b, "gn0"));
    return new Topology(Scenarios.name("g1-geneve-tunnel-offload-off", healthy), a, b, "198.18.1" + n + ".2", devices);
  }

  /**
   * G2, a vlan over a veth without TSO: veth {@code u0} ({@code g2a}) / {@code u1} ({@code g2b}), vlan 41
   * {@code v0} on each end (198.18.41.0/24, healthy VLAN 51 and 198.18.51.0/24); unless healthy
   * {@code ethtool -K u0 tso off}: the vlan passes the super-packets down and u0 segments them in
   * software. Roles: sender (v0 in a), lower (u0), lowerPeer (u1), receiver (v0 in b).
   */
  public static Topology g2VlanOverLowerWithoutTso(Lab lab, boolean healthy) {
    String v = healthy ? "h" : "";
    int n = healthy ? 51 : 41;
    Netns a = lab.namespace("g2" + v + "a");
    Netns b = lab.namespace("g2" + v + "b");
    lab.veth(a, "u0", b, "u1");
    lab.linkOn(a, "v0", a, "u0", "vlan", "id", Integer.toString(n));
    lab.linkOn(b, "v0", b, "u1", "vlan", "id", Integer.toString(n));
    if (!healthy) {
      lab.ethtoolK(a, "u0", "tso", "off");
    }
    lab.address(a, "v0", "198.18." + n + ".1/24");
    lab.address(b, "v0", "198.18." + n + ".2/24");
    Map<String, DeviceAt> devices = new LinkedHashMap<>();
    devices.put("sender", new DeviceAt(a, "v0"));
    devices.put("lower", new DeviceAt(a, "u0"));
    devices.put("lowerPeer", new DeviceAt(b, "u1"));
    devices.put("receiver", new DeviceAt(b, "v0"));
    return new Topology(Scenarios.name("g2-vlan-lower-without-tso", healthy), a, b, "198.18." + n + ".2", devices);
  }

  /**
   * G3, S2 with an ipvlan (mode l2) instead of the macvlan: {@code ipv0} on {@code low0} ({@code g3low}),
   * moved into {@code g3snd}; {@code low0}'s peer {@code rcv0} in {@code g3rcv}; unless healthy
   * {@code ethtool -K low0 tso off}. 198.18.42.0/24 (healthy 198.18.52.0/24). Roles: sender (= ipvlan),
   * lower, receiver.
   */
  public static Topology g3IpvlanOffloadLost(Lab lab, boolean healthy) {
    String v = healthy ? "h" : "";
    String net = healthy ? "198.18.52." : "198.18.42.";
    Netns snd = lab.namespace("g3" + v + "snd");
    Netns low = lab.namespace("g3" + v + "low");
    Netns rcv = lab.namespace("g3" + v + "rcv");
    lab.veth(low, "low0", rcv, "rcv0");
    lab.linkOn(snd, "ipv0", low, "low0", "ipvlan", "mode", "l2");
    if (!healthy) {
      lab.ethtoolK(low, "low0", "tso", "off");
    }
    lab.address(snd, "ipv0", net + "1/24");
    lab.address(rcv, "rcv0", net + "2/24");
    Map<String, DeviceAt> devices = new LinkedHashMap<>();
    devices.put("sender", new DeviceAt(snd, "ipv0"));
    devices.put("ipvlan", new DeviceAt(snd, "ipv0"));
    devices.put("lower", new DeviceAt(low, "low0"));
    devices.put("receiver", new DeviceAt(rcv, "rcv0"));
    return new Topology(Scenarios.name("g3-ipvlan-offload-lost", healthy), snd, rcv, net + "2", devices);
  }

  /**
   * G4, a bond whose port takes less than the bond: {@code bond0} (active-backup, namespace {@code g4a})
   * with port veth {@code s0}, whose peer {@code rcv0} is in {@code g4b}. A bond takes the smallest
   * gso_max_size of its ports when they join; unless healthy, s0's gso_max_size is lowered to 16384 after it
   * joined, so the bond keeps offering 64 KiB and s0 segments in software. 198.18.43.0/24 (healthy
   * 198.18.53.0/24). Roles: sender (= bond), port, receiver.
   */
  public static Topology g4BondPortSmallerThanBond(Lab lab, boolean healthy) {
    String v = healthy ? "h" : "";
    String net = healthy ? "198.18.53." : "198.18.43.";
    Netns a = lab.namespace("g4" + v + "a");
    Netns b = lab.namespace("g4" + v + "b");
    lab.veth(a, "s0", b, "rcv0");
    lab.link(a, "bond0", "bond", "mode", "active-backup");
    lab.set(a, "s0", "down");
    lab.set(a, "s0", "master", "bond0");
    lab.set(a, "s0", "up");
    if (!healthy) {
      lab.set(a, "s0", "gso_max_size", Integer.toString(Scenarios.S1_UPLINK_GSO_MAX_SIZE));
    }
    lab.address(a, "bond0", net + "1/24");
    lab.address(b, "rcv0", net + "2/24");
    Map<String, DeviceAt> devices = new LinkedHashMap<>();
    devices.put("sender", new DeviceAt(a, "bond0"));
    devices.put("bond", new DeviceAt(a, "bond0"));
    devices.put("port", new DeviceAt(a, "s0"));
    devices.put("receiver", new DeviceAt(b, "rcv0"));
    return new Topology(Scenarios.name("g4-bond-port-smaller-than-bond", healthy), a, b, net + "2", devices);
  }

  /**
   * G5, WireGuard: {@code wg0} in {@code g5a} and {@code g5b} over a veth underlay {@code u0}/{@code u1}
   * (198.18.44.0/24, UDP 51820, keys made with {@code wg genkey} in the lab's work directory), tunnel
   * 198.18.144.0/24. WireGuard offers GSO to the stack and cuts every super-packet itself in software
   * (wg_xmit); no setting avoids it. The healthy control is the same pair of hosts talking over the
   * underlay directly (198.18.54.0/24, no tunnel). Roles: sender (wg0 in a, or u0 when healthy), underlay,
   * receiver.
   */
  public static Topology g5Wireguard(Lab lab, boolean healthy) {
    String v = healthy ? "h" : "";
    String net = healthy ? "198.18.54." : "198.18.44.";
    Netns a = lab.namespace("g5" + v + "a");
    Netns b = lab.namespace("g5" + v + "b");
    lab.veth(a, "u0", b, "u1");
    lab.address(a, "u0", net + "1/24");
    lab.address(b, "u1", net + "2/24");
    Map<String, DeviceAt> devices = new LinkedHashMap<>();
    devices.put("underlay", new DeviceAt(a, "u0"));
    devices.put("underlayPeer", new DeviceAt(b, "u1"));
    if (healthy) {
      devices.put("sender", new DeviceAt(a, "u0"));
      devices.put("receiver", new DeviceAt(b, "u1"));
      return new Topology(Scenarios.name("g5-wireguard", true), a, b, net + "2", devices);
    }
    String wg = Tools.require("wg");
    Path keyA = lab.workDir().resolve("g5a.key");
    Path keyB = lab.workDir().resolve("g5b.key");
    writeKey(keyA, lab.exec(a, wg, "genkey"));
    writeKey(keyB, lab.exec(b, wg, "genkey"));
    String pubA = pubkey(lab, a, wg, keyA);
    String pubB = pubkey(lab, b, wg, keyB);
    lab.link(a, "wg0", "wireguard");
    lab.link(b, "wg0", "wireguard");
    lab.exec(a, wg, "set", "wg0", "listen-port", "51820", "private-key", keyA.toString(), "peer", pubB,
        "endpoint", net + "2:51820", "allowed-ips", "198.18.144.0/24");
    lab.exec(b, wg, "set", "wg0", "listen-port", "51820", "private-key", keyB.toString(), "peer", pubA,
        "endpoint", net + "1:51820", "allowed-ips", "198.18.144.0/24");
    lab.address(a, "wg0", "198.18.144.1/24");
    lab.address(b, "wg0", "198.18.144.2/24");
    devices.put("sender", new DeviceAt(a, "wg0"));
    devices.put("receiver", new DeviceAt(b, "wg0"));
    return new Topology(Scenarios.name("g5-wireguard", false), a, b, "198.18.144.2", devices);
  }

  private static void writeKey(Path file, String key) {
    try {
      Files.writeString(file, key.strip() + "\n");
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    } catch (IOException e) {
      throw new LabException("write WireGuard key " + file + ": " + e.getMessage(), e);
    }
  }

  private static String pubkey(Lab lab, Netns ns, String wg, Path key) {
    // `wg pubkey` reads the private key on stdin: through a shell that redirects from the key file
    return lab.exec(ns, "sh", "-c", "exec \"$0\" pubkey < \"$1\"", wg, key.toString()).strip();
  }
}

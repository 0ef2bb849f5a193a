package io.segscope.agent.inventory.model;

import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * One network device as rtnetlink (RTM_NEWLINK) describes it, in the namespace it was read from.
 *
 * <p>Every optional is empty when the kernel did not send the attribute (older kernels lack
 * IFLA_GRO_MAX_SIZE before 5.17, IFLA_TSO_MAX_* before 5.19, IFLA_G[SR]O_IPV4_MAX_SIZE before 6.3):
 * absent, never 0. {@code kind} and {@code slaveKind} are "" when the device has none (a physical
 * NIC has no IFLA_INFO_KIND; a device without a master has no slave kind).
 *
 * @param ifindex interface index in its namespace
 * @param name IFLA_IFNAME, byte-exact in segscope's name form ({@link io.segscope.host.names.NameCodec}):
 *     valid UTF-8 as is, a backslash as {@code \\}, other bytes as {@code \xHH}
 * @param kind IFLA_INFO_KIND ("veth", "bridge", "macvlan", ...) or ""
 * @param slaveKind IFLA_INFO_SLAVE_KIND (the master's kind as seen by a port, e.g. "bridge") or ""
 * @param mtu IFLA_MTU
 * @param link IFLA_LINK: the peer (veth) or lower device (macvlan, vlan, ...), in the namespace
 *     given by {@code linkNetnsId} when present, else in this one
 * @param master IFLA_MASTER: the bridge/bond this device is a port of
 * @param linkNetnsId IFLA_LINK_NETNSID: the nsid (local to this namespace) of {@code link}'s namespace
 * @param gsoMaxSize IFLA_GSO_MAX_SIZE
 * @param gsoMaxSegs IFLA_GSO_MAX_SEGS
 * @param tsoMaxSize IFLA_TSO_MAX_SIZE
 * @param tsoMaxSegs IFLA_TSO_MAX_SEGS
 * @param groMaxSize IFLA_GRO_MAX_SIZE
 * @param gsoIpv4MaxSize IFLA_GSO_IPV4_MAX_SIZE
 * @param groIpv4MaxSize IFLA_GRO_IPV4_MAX_SIZE
 * @param xdp IFLA_XDP
 * @param operstate IFLA_OPERSTATE as iproute2 names it (UP, DOWN, UNKNOWN, LOWERLAYERDOWN, ...), ""
 *     when absent
 * @param minMtu IFLA_MIN_MTU
 * @param maxMtu IFLA_MAX_MTU
 * @param txQueueLength IFLA_TXQLEN
 * @param flags ifi_flags (IFF_UP = 1, IFF_LOWER_UP = 0x10000, ...)
 * @param vxlanLink IFLA_VXLAN_LINK inside IFLA_INFO_DATA: a vxlan device's lower device ("dev X"),
 *     which vxlan does not report as IFLA_LINK
 */
public record Link(
    int ifindex,
    String name,
    String kind,
    String slaveKind,
    int mtu,
    OptionalInt link,
    OptionalInt master,
    OptionalInt linkNetnsId,
    OptionalLong gsoMaxSize,
    OptionalLong gsoMaxSegs,
    OptionalLong tsoMaxSize,
    OptionalLong tsoMaxSegs,
    OptionalLong groMaxSize,
    OptionalLong gsoIpv4MaxSize,
    OptionalLong groIpv4MaxSize,
    XdpAttachment xdp,
    String operstate,
    OptionalLong minMtu,
    OptionalLong maxMtu,
    OptionalLong txQueueLength,
    int flags,
    OptionalInt vxlanLink) {

  public static final int IFF_UP = 0x1;

  /** Administratively up (IFF_UP). */
  public boolean up() {
    return (flags & IFF_UP) != 0;
  }

  /** The device below or beside this one: IFLA_LINK, or a vxlan's IFLA_VXLAN_LINK. */
  public OptionalInt lower() {
    return link.isPresent() ? link : vxlanLink;
  }
}

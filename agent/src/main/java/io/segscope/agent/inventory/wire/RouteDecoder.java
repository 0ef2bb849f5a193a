package io.segscope.agent.inventory.wire;

import io.segscope.agent.inventory.model.Route;
import io.segscope.agent.inventory.model.Routing;
import io.segscope.agent.netlink.Attribute;
import io.segscope.agent.netlink.AttributeSet;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.agent.netlink.NetlinkException;
import io.segscope.agent.netlink.NetlinkMessage;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Decodes RTM_NEWROUTE (routes) and RTM_NEWNETCONF (per-device forwarding) messages. Bytes are
 * hostile: a message too short for its header, or with broken attribute framing, throws
 * {@link NetlinkException}; a field of the wrong size, a destination longer than its family allows,
 * or a malformed nexthop list is skipped with a counted warning.
 */
public final class RouteDecoder {
  private RouteDecoder() {}

  /**
   * The unicast route of one RTM_NEWROUTE message, or empty for every other kind (local,
   * broadcast, unreachable, ... and the local table), for IPv6 link-local and multicast prefixes,
   * and for a route that cannot be told (warned).
   */
  public static Optional<Route> decode(NetlinkMessage m, DecodeWarnings warnings) {
    if (m.type() != Rtnl.RTM_NEWROUTE && m.type() != Rtnl.RTM_DELROUTE) {
      throw new NetlinkException("decode route message: type " + m.type() + " is not RTM_NEWROUTE or RTM_DELROUTE");
    }
    ByteBuffer p = m.payloadView();
    if (p.remaining() < Rtnl.RTMSG_LENGTH) {
      throw new NetlinkException("decode route message: payload of " + p.remaining()
          + " bytes is shorter than rtmsg (" + Rtnl.RTMSG_LENGTH + ")");
    }
    int family = Byte.toUnsignedInt(p.get(0));
    int dstLen = Byte.toUnsignedInt(p.get(1));
    int table = Byte.toUnsignedInt(p.get(4));
    int type = Byte.toUnsignedInt(p.get(7));
    AttributeSet a = m.attributes(Rtnl.RTMSG_LENGTH, warnings);
    if (type != Rtnl.RTN_UNICAST || (family != Rtnl.AF_INET && family != Rtnl.AF_INET6)) {
      return Optional.empty();
    }
    OptionalLong t = a.u32(Rtnl.RTA_TABLE);
    if (t.isPresent()) {
      table = (int) t.getAsLong();
    }
    if (table == Rtnl.RT_TABLE_LOCAL) {
      return Optional.empty();
    }
    int addressBytes = family == Rtnl.AF_INET ? 4 : 16;
    if (dstLen > addressBytes * 8) {
      warnings.warn("decode route: prefix length " + dstLen + " is longer than family " + family + " allows; skipped");
      return Optional.empty();
    }
    byte[] dst = new byte[addressBytes];
    Optional<Attribute> dstAttr = a.get(Rtnl.RTA_DST);
    if (dstAttr.isPresent()) {
      byte[] b = dstAttr.get().bytes();
      if (b.length != addressBytes) {
        warnings.warn("decode route: RTA_DST has " + b.length + " bytes, expected " + addressBytes + "; skipped");
        return Optional.empty();
      }
      dst = b;
    }
    if (family == Rtnl.AF_INET6 && dstLen >= 10 && (dst[0] & 0xff) == 0xfe && (dst[1] & 0xc0) == 0x80) {
      return Optional.empty(); // fe80::/10: every IPv6 device has one; it is not forwarded
    }
    if (family == Rtnl.AF_INET6 && dstLen >= 8 && (dst[0] & 0xff) == 0xff) {
      return Optional.empty(); // multicast
    }
    List<Integer> oifs = outputs(a, warnings);
    boolean nhObject = a.has(Rtnl.RTA_NH_ID) && oifs.isEmpty();
    return Optional.of(new Route(family == Rtnl.AF_INET ? 4 : 6, prefix(dst, dstLen), table, oifs, mtu(a), nhObject));
  }

  /** The ifindexes a route leaves by: RTA_OIF, then every next hop of RTA_MULTIPATH. */
  private static List<Integer> outputs(AttributeSet a, DecodeWarnings warnings) {
    List<Integer> oifs = new ArrayList<>();
    OptionalLong oif = a.u32(Rtnl.RTA_OIF);
    if (oif.isPresent() && oif.getAsLong() > 0 && oif.getAsLong() <= Integer.MAX_VALUE) {
      oifs.add((int) oif.getAsLong());
    }
    a.get(Rtnl.RTA_MULTIPATH).ifPresent(mp -> nexthops(mp.bytes(), oifs, warnings));
    return oifs;
  }

  /** The route's MTU metric (RTAX_MTU in RTA_METRICS), empty when unset or 0. */
  private static OptionalLong mtu(AttributeSet a) {
    Optional<AttributeSet> metrics = a.nested(Rtnl.RTA_METRICS);
    if (metrics.isPresent()) {
      OptionalLong v = metrics.get().u32(Rtnl.RTAX_MTU);
      if (v.isPresent() && v.getAsLong() > 0) {
        return v;
      }
    }
    return OptionalLong.empty();
  }

  /** The ifindexes of a struct rtnexthop array; a record that does not fit ends it with a warning. */
  private static void nexthops(byte[] bytes, List<Integer> out, DecodeWarnings warnings) {
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
    int off = 0;
    while (off + Rtnl.RTNEXTHOP_LENGTH <= bytes.length) {
      int len = Short.toUnsignedInt(b.getShort(off));
      if (len < Rtnl.RTNEXTHOP_LENGTH || off + len > bytes.length) {
        warnings.warn("decode route: RTA_MULTIPATH nexthop of length " + len + " at offset " + off
            + " does not fit in " + bytes.length + " bytes; the rest is skipped");
        return;
      }
      int ifindex = b.getInt(off + 4);
      if (ifindex > 0 && !out.contains(ifindex)) {
        out.add(ifindex);
      }
      off += (len + 3) & ~3;
    }
    if (off < bytes.length) {
      warnings.warn("decode route: " + (bytes.length - off) + " bytes left after the last RTA_MULTIPATH nexthop");
    }
  }

  private static String prefix(byte[] dst, int len) {
    try {
      return InetAddress.getByAddress(dst).getHostAddress() + "/" + len;
    } catch (UnknownHostException e) {
      throw new IllegalStateException("an address of 4 or 16 bytes is always valid", e);
    }
  }

  /**
   * The routes of a dump, summarised ({@link Routing}): at most {@link Routing#MAX_ROUTES} kept,
   * every one counted and its devices taken as egress. A message that cannot be decoded is left out
   * and counted in {@code warnings}.
   */
  static RoutesRead decodeRoutes(List<NetlinkMessage> messages, DecodeWarnings warnings) {
    List<Route> kept = new ArrayList<>();
    Map<Integer, OptionalLong> egress = new HashMap<>();
    int count = 0;
    int nexthopObjects = 0;
    for (NetlinkMessage m : messages) {
      if (m.type() != Rtnl.RTM_NEWROUTE) {
        warnings.warn("dump routes: skipped a message of type " + m.type());
        continue;
      }
      Optional<Route> r;
      try {
        r = decode(m, warnings);
      } catch (NetlinkException e) {
        warnings.warn("dump routes: skipped an undecodable route: " + e.getMessage());
        continue;
      }
      if (r.isEmpty()) {
        continue;
      }
      Route route = r.get();
      count++;
      if (kept.size() < Routing.MAX_ROUTES) {
        kept.add(route);
      }
      if (route.nexthopObject()) {
        nexthopObjects++;
      }
      for (int oif : route.oifs()) {
        OptionalLong before = egress.getOrDefault(oif, OptionalLong.empty());
        OptionalLong mtu = route.mtu();
        egress.put(oif, mtu.isEmpty() ? before
            : before.isEmpty() ? mtu : OptionalLong.of(Math.min(before.getAsLong(), mtu.getAsLong())));
      }
    }
    return new RoutesRead(kept, count, egress, nexthopObjects);
  }

  /** What a route dump held. */
  record RoutesRead(List<Route> routes, int count, Map<Integer, OptionalLong> egress, int nexthopObjects) {}

  /**
   * The devices whose forwarding is on, from an RTM_GETNETCONF dump (one message per device, plus
   * "all" and "default", which are not devices). A message that cannot be decoded is skipped with a
   * warning.
   */
  static Set<Integer> decodeForwarding(List<NetlinkMessage> messages, DecodeWarnings warnings) {
    Set<Integer> on = new HashSet<>();
    for (NetlinkMessage m : messages) {
      if (m.type() != Rtnl.RTM_NEWNETCONF) {
        warnings.warn("dump netconf: skipped a message of type " + m.type());
        continue;
      }
      try {
        if (m.payloadLength() < Rtnl.NETCONFMSG_LENGTH) {
          throw new NetlinkException("decode netconf message: payload of " + m.payloadLength()
              + " bytes is shorter than netconfmsg (4)");
        }
        AttributeSet a = m.attributes(Rtnl.NETCONFMSG_LENGTH, warnings);
        var index = a.s32(Rtnl.NETCONFA_IFINDEX);
        var fwd = a.s32(Rtnl.NETCONFA_FORWARDING);
        if (index.isPresent() && index.getAsInt() > 0 && fwd.isPresent() && fwd.getAsInt() != 0) {
          on.add(index.getAsInt());
        }
      } catch (NetlinkException e) {
        warnings.warn("dump netconf: skipped an undecodable message: " + e.getMessage());
      }
    }
    return on;
  }
}

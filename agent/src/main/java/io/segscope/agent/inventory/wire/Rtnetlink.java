package io.segscope.agent.inventory.wire;

import io.segscope.agent.inventory.model.Link;
import io.segscope.agent.inventory.model.Qdisc;
import io.segscope.agent.inventory.model.Routing;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.agent.netlink.MessageBuilder;
import io.segscope.agent.netlink.Netlink;
import io.segscope.agent.netlink.NetlinkException;
import io.segscope.agent.netlink.NetlinkMessage;
import io.segscope.agent.netlink.NetlinkSocket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;

/**
 * rtnetlink requests the inventory makes: the RTM_GETLINK, RTM_GETROUTE, RTM_GETNETCONF and
 * RTM_GETQDISC dumps and RTM_GETNSID lookups.
 */
public final class Rtnetlink {
  private Rtnetlink() {}

  /** The RTM_GETLINK dump request (statistics left out). */
  static MessageBuilder linkDumpRequest() {
    return new MessageBuilder(Rtnl.RTM_GETLINK, Netlink.NLM_F_REQUEST | Netlink.NLM_F_DUMP)
        .header(new byte[Rtnl.IFINFOMSG_LENGTH])
        .u32(Rtnl.IFLA_EXT_MASK, Rtnl.RTEXT_FILTER_SKIP_STATS);
  }

  /** Dumps every link of the socket's namespace, as raw messages (for recording and decoding). */
  public static List<NetlinkMessage> dumpLinkMessages(NetlinkSocket rtnl) {
    return rtnl.dump(linkDumpRequest(), "dump links (RTM_GETLINK)");
  }

  /**
   * Dumps and decodes every link of the socket's namespace. A link whose message cannot be decoded
   * is left out and counted in {@code warnings} (the others are still returned).
   */
  public static List<Link> dumpLinks(NetlinkSocket rtnl, DecodeWarnings warnings) {
    return decodeLinks(dumpLinkMessages(rtnl), warnings);
  }

  public static List<Link> decodeLinks(List<NetlinkMessage> messages, DecodeWarnings warnings) {
    List<Link> links = new ArrayList<>(messages.size());
    for (NetlinkMessage m : messages) {
      if (m.type() != Rtnl.RTM_NEWLINK) {
        warnings.warn("dump links: skipped a message of type " + m.type());
        continue;
      }
      try {
        links.add(LinkDecoder.decode(m, warnings));
      } catch (NetlinkException e) {
        warnings.warn("dump links: skipped an undecodable link: " + e.getMessage());
      }
    }
    return links;
  }

  /** The RTM_GETROUTE dump request: every family (rtnetlink dumps IPv4 and IPv6 for AF_UNSPEC). */
  static MessageBuilder routeDumpRequest() {
    return new MessageBuilder(Rtnl.RTM_GETROUTE, Netlink.NLM_F_REQUEST | Netlink.NLM_F_DUMP)
        .header(new byte[Rtnl.RTMSG_LENGTH]);
  }

  /** The RTM_GETNETCONF dump request of one family (AF_INET or AF_INET6). */
  static MessageBuilder netconfDumpRequest(int family) {
    byte[] h = new byte[Rtnl.NETCONFMSG_LENGTH];
    h[0] = (byte) family;
    return new MessageBuilder(Rtnl.RTM_GETNETCONF, Netlink.NLM_F_REQUEST | Netlink.NLM_F_DUMP).header(h);
  }

  /** The RTM_GETQDISC dump request. */
  static MessageBuilder qdiscDumpRequest() {
    return new MessageBuilder(Rtnl.RTM_GETQDISC, Netlink.NLM_F_REQUEST | Netlink.NLM_F_DUMP)
        .header(new byte[Rtnl.TCMSG_LENGTH]);
  }

  /** Raw route dump messages (for recording and decoding). */
  public static List<NetlinkMessage> dumpRouteMessages(NetlinkSocket rtnl) {
    return rtnl.dump(routeDumpRequest(), "dump routes (RTM_GETROUTE)");
  }

  /** Raw netconf dump messages of one family. */
  public static List<NetlinkMessage> dumpNetconfMessages(NetlinkSocket rtnl, int family) {
    return rtnl.dump(netconfDumpRequest(family), "dump netconf (RTM_GETNETCONF, family " + family + ")");
  }

  /** Raw qdisc dump messages. */
  public static List<NetlinkMessage> dumpQdiscMessages(NetlinkSocket rtnl) {
    return rtnl.dump(qdiscDumpRequest(), "dump qdiscs (RTM_GETQDISC)");
  }

  /**
   * The namespace's routing: the route dump and both families' netconf. A failed route dump gives
   * {@link Routing#read()} false with the reason in the notes; a failed netconf dump (a kernel without
   * it) leaves forwarding unknown, also noted. Bad records are skipped and counted in {@code warnings}.
   */
  public static Routing dumpRouting(NetlinkSocket rtnl, DecodeWarnings warnings) {
    List<String> notes = new ArrayList<>();
    RouteDecoder.RoutesRead routes;
    try {
      routes = RouteDecoder.decodeRoutes(dumpRouteMessages(rtnl), warnings);
    } catch (NetlinkException e) {
      warnings.warn("read routes: " + e.getMessage());
      return new Routing(List.of(), 0, Map.of(), Set.of(), false, false,
          List.of("routes not read: " + e.getMessage()));
    }
    Set<Integer> forwarding = new HashSet<>();
    boolean known = true;
    for (int family : new int[] {Rtnl.AF_INET, Rtnl.AF_INET6}) {
      try {
        forwarding.addAll(RouteDecoder.decodeForwarding(dumpNetconfMessages(rtnl, family), warnings));
      } catch (NetlinkException e) {
        known = false;
        notes.add("forwarding of family " + (family == Rtnl.AF_INET ? "IPv4" : "IPv6") + " not read: "
            + e.getMessage());
      }
    }
    if (routes.count() > Routing.MAX_ROUTES) {
      notes
          .add(routes.count() + " unicast routes: the first " + Routing.MAX_ROUTES + " kept, every one's device taken");
    }
    if (routes.nexthopObjects() > 0) {
      notes.add(routes.nexthopObjects() + " routes use nexthop objects (RTA_NH_ID): their devices are not followed");
    }
    return new Routing(routes.routes(), routes.count(), routes.egress(), forwarding, known, true, notes);
  }

  /** Every qdisc of the namespace; a failed dump is warned and gives none. */
  public static List<Qdisc> dumpQdiscs(NetlinkSocket rtnl, DecodeWarnings warnings) {
    try {
      return QdiscDecoder.decodeAll(dumpQdiscMessages(rtnl), warnings);
    } catch (NetlinkException e) {
      warnings.warn("read qdiscs: " + e.getMessage());
      return List.of();
    }
  }

  /**
   * The nsid under which the socket's namespace knows the namespace open as {@code netnsFd}, or
   * empty when it has assigned none (NETNSA_NSID_NOT_ASSIGNED, -1). Does not allocate an id.
   */
  public static OptionalInt nsidOf(NetlinkSocket rtnl, int netnsFd, DecodeWarnings warnings) {
    MessageBuilder req = new MessageBuilder(Rtnl.RTM_GETNSID, Netlink.NLM_F_REQUEST)
        .header(new byte[Rtnl.RTGENMSG_LENGTH])
        .u32(Rtnl.NETNSA_FD, netnsFd);
    for (NetlinkMessage m : rtnl.request(req, "look up nsid (RTM_GETNSID)")) {
      if (m.type() == Rtnl.RTM_NEWNSID) {
        OptionalInt id = m.attributes(Rtnl.RTGENMSG_LENGTH, warnings).s32(Rtnl.NETNSA_NSID);
        if (id.isPresent() && id.getAsInt() >= 0) {
          return id;
        }
        return OptionalInt.empty();
      }
    }
    throw new NetlinkException("look up nsid (RTM_GETNSID): the reply carried no RTM_NEWNSID");
  }
}

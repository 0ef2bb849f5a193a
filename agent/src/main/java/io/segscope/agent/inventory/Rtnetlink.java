package io.segscope.agent.inventory;

import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.agent.netlink.MessageBuilder;
import io.segscope.agent.netlink.Netlink;
import io.segscope.agent.netlink.NetlinkException;
import io.segscope.agent.netlink.NetlinkMessage;
import io.segscope.agent.netlink.NetlinkSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/** rtnetlink requests the inventory makes: the RTM_GETLINK dump and RTM_GETNSID lookups. */
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

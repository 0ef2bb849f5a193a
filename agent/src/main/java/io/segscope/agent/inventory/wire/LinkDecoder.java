package io.segscope.agent.inventory.wire;

import io.segscope.agent.inventory.model.Link;
import io.segscope.agent.inventory.model.XdpAttachment;
import io.segscope.agent.inventory.model.XdpMode;
import io.segscope.agent.netlink.AttributeSet;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.agent.netlink.NetlinkException;
import io.segscope.agent.netlink.NetlinkMessage;
import io.segscope.host.names.NameCodec;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Decodes RTM_NEWLINK / RTM_DELLINK messages into {@link Link}s. A message without a positive
 * ifindex, IFLA_IFNAME or IFLA_MTU, or with broken attribute framing, is rejected with a
 * {@link NetlinkException}; an attribute of the wrong size is skipped (absent) with a counted
 * warning; unknown attributes are ignored.
 */
public final class LinkDecoder {
  private static final String[] OPERSTATES = {
      "UNKNOWN", "NOTPRESENT", "DOWN", "LOWERLAYERDOWN", "TESTING", "DORMANT", "UP"};

  private LinkDecoder() {}

  /** The ifindex of an RTM_NEWLINK/RTM_DELLINK message (from its ifinfomsg). */
  public static int ifindex(NetlinkMessage message) {
    ByteBuffer p = message.payloadView();
    if (p.remaining() < Rtnl.IFINFOMSG_LENGTH) {
      throw new NetlinkException("decode link message: payload of " + p.remaining()
          + " bytes is shorter than ifinfomsg (16)");
    }
    int index = p.getInt(4);
    if (index <= 0) {
      throw new NetlinkException("decode link message: ifindex " + index + " is not positive");
    }
    return index;
  }

  public static Link decode(NetlinkMessage message, DecodeWarnings warnings) {
    if (message.type() != Rtnl.RTM_NEWLINK && message.type() != Rtnl.RTM_DELLINK) {
      throw new NetlinkException("decode link message: type " + message.type()
          + " is not RTM_NEWLINK or RTM_DELLINK");
    }
    int index = ifindex(message);
    int flags = message.payloadView().getInt(8);
    AttributeSet a = message.attributes(Rtnl.IFINFOMSG_LENGTH, warnings);
    String what = "decode link ifindex " + index;
    String name = a.name(Rtnl.IFLA_IFNAME)
        .orElseThrow(() -> new NetlinkException(what + ": no IFLA_IFNAME"));
    long mtu = a.u32(Rtnl.IFLA_MTU)
        .orElseThrow(() -> new NetlinkException(what + " (" + NameCodec.display(name) + "): no usable IFLA_MTU"));

    String kind = "";
    String slaveKind = "";
    OptionalInt vxlanLink = OptionalInt.empty();
    Optional<AttributeSet> info = a.nested(Rtnl.IFLA_LINKINFO);
    if (info.isPresent()) {
      kind = info.get().string(Rtnl.IFLA_INFO_KIND).orElse("");
      slaveKind = info.get().string(Rtnl.IFLA_INFO_SLAVE_KIND).orElse("");
      if ("vxlan".equals(kind)) {
        Optional<AttributeSet> data = info.get().nested(Rtnl.IFLA_INFO_DATA);
        if (data.isPresent()) {
          vxlanLink = positiveIndex(data.get().u32(Rtnl.IFLA_VXLAN_LINK));
        }
      }
    }

    return new Link(index, name, kind, slaveKind, (int) Math.min(mtu, Integer.MAX_VALUE),
        positiveIndex(a.u32(Rtnl.IFLA_LINK)),
        positiveIndex(a.u32(Rtnl.IFLA_MASTER)),
        a.s32(Rtnl.IFLA_LINK_NETNSID),
        a.u32(Rtnl.IFLA_GSO_MAX_SIZE),
        a.u32(Rtnl.IFLA_GSO_MAX_SEGS),
        a.u32(Rtnl.IFLA_TSO_MAX_SIZE),
        a.u32(Rtnl.IFLA_TSO_MAX_SEGS),
        a.u32(Rtnl.IFLA_GRO_MAX_SIZE),
        a.u32(Rtnl.IFLA_GSO_IPV4_MAX_SIZE),
        a.u32(Rtnl.IFLA_GRO_IPV4_MAX_SIZE),
        xdp(a),
        operstate(a.u8(Rtnl.IFLA_OPERSTATE)),
        a.u32(Rtnl.IFLA_MIN_MTU),
        a.u32(Rtnl.IFLA_MAX_MTU),
        a.u32(Rtnl.IFLA_TXQLEN),
        flags,
        vxlanLink);
  }

  private static XdpAttachment xdp(AttributeSet a) {
    Optional<AttributeSet> x = a.nested(Rtnl.IFLA_XDP);
    if (x.isEmpty()) {
      return XdpAttachment.UNREPORTED;
    }
    OptionalInt attached = x.get().u8(Rtnl.IFLA_XDP_ATTACHED);
    XdpMode mode = attached.isPresent() ? XdpMode.fromAttached(attached.getAsInt()) : null;
    if (mode == null) {
      a.warnings().warn("decode IFLA_XDP: attach mode "
          + (attached.isPresent() ? String.valueOf(attached.getAsInt()) : "missing")
          + " is not one this agent knows; reported as unreported");
      mode = XdpMode.UNREPORTED;
    }
    return new XdpAttachment(mode,
        positiveIndex(x.get().u32(Rtnl.IFLA_XDP_PROG_ID)),
        positiveIndex(x.get().u32(Rtnl.IFLA_XDP_DRV_PROG_ID)),
        positiveIndex(x.get().u32(Rtnl.IFLA_XDP_SKB_PROG_ID)),
        positiveIndex(x.get().u32(Rtnl.IFLA_XDP_HW_PROG_ID)));
  }

  private static String operstate(OptionalInt value) {
    if (value.isEmpty()) {
      return "";
    }
    int v = value.getAsInt();
    return v < OPERSTATES.length ? OPERSTATES[v] : "UNKNOWN(" + v + ")";
  }

  /** A u32 index or id as an int; 0 and values above 2^31-1 are not valid indexes and read as absent. */
  private static OptionalInt positiveIndex(OptionalLong value) {
    if (value.isEmpty() || value.getAsLong() <= 0 || value.getAsLong() > Integer.MAX_VALUE) {
      return OptionalInt.empty();
    }
    return OptionalInt.of((int) value.getAsLong());
  }
}

package io.segscope.agent.netlink;

import io.segscope.host.sys.Errno;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.OptionalInt;

/**
 * Generic netlink (NETLINK_GENERIC) helpers: the 4-byte genlmsghdr and family-id resolution
 * through the "nlctrl" controller (CTRL_CMD_GETFAMILY).
 */
public final class GenericNetlink {
  public static final int GENL_HEADER_LENGTH = 4;
  public static final int GENL_ID_CTRL = 0x10;
  public static final int CTRL_CMD_GETFAMILY = 3;
  public static final int CTRL_ATTR_FAMILY_ID = 1;
  public static final int CTRL_ATTR_FAMILY_NAME = 2;
  public static final int CTRL_ATTR_VERSION = 3;
  /** Family names are at most 15 bytes plus NUL. */
  public static final int GENL_NAMSIZ = 16;

  private GenericNetlink() {}

  /** A request to family {@code familyId} for command {@code cmd}, with the genl header filled in. */
  public static MessageBuilder request(int familyId, int cmd, int version, int flags) {
    return new MessageBuilder(familyId, flags).header(new byte[] {(byte) cmd, (byte) version, 0, 0});
  }

  /**
   * The numeric id of a generic netlink family, or empty when the kernel does not have it
   * (ENOENT: e.g. "ethtool" before Linux 5.6 or with CONFIG_ETHTOOL_NETLINK=n).
   */
  public static OptionalInt resolveFamily(NetlinkSocket socket, String name, DecodeWarnings warnings) {
    if (name.isEmpty() || name.getBytes(StandardCharsets.UTF_8).length >= GENL_NAMSIZ) {
      throw new IllegalArgumentException("resolve generic netlink family \"" + name
          + "\": a family name has 1 to " + (GENL_NAMSIZ - 1) + " bytes");
    }
    MessageBuilder req = request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, Netlink.NLM_F_REQUEST)
        .string(CTRL_ATTR_FAMILY_NAME, name);
    List<NetlinkMessage> replies;
    try {
      replies = socket.request(req, "resolve generic netlink family " + name);
    } catch (NetlinkException e) {
      if (e.errno() == Errno.ENOENT) {
        return OptionalInt.empty();
      }
      throw e;
    }
    for (NetlinkMessage m : replies) {
      OptionalInt id = m.attributes(GENL_HEADER_LENGTH, warnings).u16(CTRL_ATTR_FAMILY_ID);
      if (id.isPresent()) {
        return id;
      }
    }
    throw new NetlinkException("resolve generic netlink family " + name
        + ": reply carried no CTRL_ATTR_FAMILY_ID");
  }
}

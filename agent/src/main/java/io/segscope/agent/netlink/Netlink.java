package io.segscope.agent.netlink;

/** Netlink protocol constants (include/uapi/linux/netlink.h), stable since 2.6. */
public final class Netlink {
  public static final int NETLINK_ROUTE = 0;
  public static final int NETLINK_GENERIC = 16;

  public static final int HEADER_LENGTH = 16;
  public static final int ATTRIBUTE_HEADER_LENGTH = 4;

  public static final int NLMSG_NOOP = 1;
  public static final int NLMSG_ERROR = 2;
  public static final int NLMSG_DONE = 3;
  public static final int NLMSG_OVERRUN = 4;
  /** Message types below this value are netlink control messages. */
  public static final int NLMSG_MIN_TYPE = 0x10;

  public static final int NLM_F_REQUEST = 0x1;
  public static final int NLM_F_MULTI = 0x2;
  public static final int NLM_F_ACK = 0x4;
  public static final int NLM_F_DUMP_INTR = 0x10;
  public static final int NLM_F_ROOT = 0x100;
  public static final int NLM_F_MATCH = 0x200;
  public static final int NLM_F_DUMP = NLM_F_ROOT | NLM_F_MATCH;
  /** On NLMSG_ERROR: the echoed request was cut to its header. */
  public static final int NLM_F_CAPPED = 0x100;
  /** On NLMSG_ERROR: extended-ack attributes follow. */
  public static final int NLM_F_ACK_TLVS = 0x200;

  public static final int NLA_F_NESTED = 0x8000;
  public static final int NLA_F_NET_BYTEORDER = 0x4000;
  public static final int NLA_TYPE_MASK = ~(NLA_F_NESTED | NLA_F_NET_BYTEORDER) & 0xffff;

  public static final int NLMSGERR_ATTR_MSG = 1;

  public static final int SOL_NETLINK = 270;
  public static final int NETLINK_ADD_MEMBERSHIP = 1;
  public static final int NETLINK_CAP_ACK = 10;
  public static final int NETLINK_EXT_ACK = 11;

  private Netlink() {}

  /** Rounds up to the 4-byte netlink alignment. */
  public static int align(int length) {
    return (length + 3) & ~3;
  }
}

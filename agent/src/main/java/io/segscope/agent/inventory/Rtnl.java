package io.segscope.agent.inventory;

/** rtnetlink constants (include/uapi/linux/rtnetlink.h, if_link.h, net_namespace.h; 6.18 values). */
final class Rtnl {
  static final int RTM_NEWLINK = 16;
  static final int RTM_DELLINK = 17;
  static final int RTM_GETLINK = 18;
  static final int RTM_NEWNSID = 88;
  static final int RTM_GETNSID = 90;

  static final int RTNLGRP_LINK = 1;

  static final int IFINFOMSG_LENGTH = 16;
  static final int RTGENMSG_LENGTH = 4;

  static final int IFLA_ADDRESS = 1;
  static final int IFLA_IFNAME = 3;
  static final int IFLA_MTU = 4;
  static final int IFLA_LINK = 5;
  static final int IFLA_MASTER = 10;
  static final int IFLA_TXQLEN = 13;
  static final int IFLA_OPERSTATE = 16;
  static final int IFLA_LINKINFO = 18;
  static final int IFLA_EXT_MASK = 29;
  static final int IFLA_LINK_NETNSID = 37;
  static final int IFLA_GSO_MAX_SEGS = 40;
  static final int IFLA_GSO_MAX_SIZE = 41;
  static final int IFLA_XDP = 43;
  static final int IFLA_MIN_MTU = 50;
  static final int IFLA_MAX_MTU = 51;
  static final int IFLA_GRO_MAX_SIZE = 58;
  static final int IFLA_TSO_MAX_SIZE = 59;
  static final int IFLA_TSO_MAX_SEGS = 60;
  static final int IFLA_GSO_IPV4_MAX_SIZE = 63;
  static final int IFLA_GRO_IPV4_MAX_SIZE = 64;

  static final int IFLA_INFO_KIND = 1;
  static final int IFLA_INFO_DATA = 2;
  static final int IFLA_INFO_SLAVE_KIND = 4;
  static final int IFLA_VXLAN_LINK = 3;

  static final int IFLA_XDP_ATTACHED = 2;
  static final int IFLA_XDP_PROG_ID = 4;
  static final int IFLA_XDP_DRV_PROG_ID = 5;
  static final int IFLA_XDP_SKB_PROG_ID = 6;
  static final int IFLA_XDP_HW_PROG_ID = 7;

  /** RTEXT_FILTER_SKIP_STATS: leave the (large) statistics out of dumps; ignored by older kernels. */
  static final int RTEXT_FILTER_SKIP_STATS = 1 << 3;

  static final int NETNSA_NSID = 1;
  static final int NETNSA_FD = 3;

  private Rtnl() {}
}

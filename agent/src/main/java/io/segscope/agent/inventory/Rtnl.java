package io.segscope.agent.inventory;

/** rtnetlink constants (include/uapi/linux/rtnetlink.h, if_link.h, net_namespace.h; 6.18 values). */
final class Rtnl {
  static final int RTM_NEWLINK = 16;
  static final int RTM_DELLINK = 17;
  static final int RTM_GETLINK = 18;
  static final int RTM_NEWROUTE = 24;
  static final int RTM_DELROUTE = 25;
  static final int RTM_GETROUTE = 26;
  static final int RTM_NEWQDISC = 36;
  static final int RTM_DELQDISC = 37;
  static final int RTM_GETQDISC = 38;
  static final int RTM_NEWNETCONF = 80;
  static final int RTM_DELNETCONF = 81;
  static final int RTM_GETNETCONF = 82;
  static final int RTM_NEWNSID = 88;
  static final int RTM_GETNSID = 90;

  static final int RTNLGRP_LINK = 1;
  static final int RTNLGRP_TC = 4;
  static final int RTNLGRP_IPV4_ROUTE = 7;
  static final int RTNLGRP_IPV6_ROUTE = 11;
  static final int RTNLGRP_IPV4_NETCONF = 24;
  static final int RTNLGRP_IPV6_NETCONF = 25;

  static final int AF_UNSPEC = 0;
  static final int AF_INET = 2;
  static final int AF_INET6 = 10;

  /** struct rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type (u8 each), flags (u32). */
  static final int RTMSG_LENGTH = 12;
  static final int RTN_UNICAST = 1;
  static final int RT_TABLE_LOCAL = 255;
  static final int RTA_DST = 1;
  static final int RTA_OIF = 4;
  static final int RTA_GATEWAY = 5;
  static final int RTA_METRICS = 8;
  static final int RTA_MULTIPATH = 9;
  static final int RTA_TABLE = 15;
  static final int RTA_NH_ID = 30;
  static final int RTAX_MTU = 2;
  /** struct rtnexthop: len (u16), flags (u8), hops (u8), ifindex (s32). */
  static final int RTNEXTHOP_LENGTH = 8;

  /** struct netconfmsg, padded to 4 bytes. */
  static final int NETCONFMSG_LENGTH = 4;
  static final int NETCONFA_IFINDEX = 1;
  static final int NETCONFA_FORWARDING = 2;
  static final int NETCONFA_IFINDEX_ALL = -1;
  static final int NETCONFA_IFINDEX_DEFAULT = -2;

  /** struct tcmsg: family, pad (u8, u16), ifindex (s32), handle, parent, info (u32). */
  static final int TCMSG_LENGTH = 20;
  static final int TCA_KIND = 1;
  static final int TCA_OPTIONS = 2;
  static final int TCA_TBF_PARMS = 1;
  static final int TCA_TBF_RATE64 = 4;
  static final int TCA_TBF_PRATE64 = 5;
  /** struct tc_tbf_qopt: rate and peakrate (struct tc_ratespec, 12 bytes each), limit, buffer, mtu (u32). */
  static final int TC_TBF_QOPT_LENGTH = 36;
  static final int TCA_CAKE_BASE_RATE64 = 2;
  static final int TCA_CAKE_SPLIT_GSO = 17;
  static final int TC_H_ROOT = 0xFFFFFFFF;
  static final int TC_H_INGRESS = 0xFFFFFFF1;

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

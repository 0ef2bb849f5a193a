package io.segscope.agent.inventory.wire;

import io.segscope.agent.inventory.model.Qdisc;

/** rtnetlink constants (include/uapi/linux/rtnetlink.h, if_link.h, net_namespace.h; 6.18 values). */
public final class Rtnl {
  public static final int RTM_NEWLINK = 16;
  public static final int RTM_DELLINK = 17;
  public static final int RTM_GETLINK = 18;
  public static final int RTM_NEWROUTE = 24;
  public static final int RTM_DELROUTE = 25;
  public static final int RTM_GETROUTE = 26;
  public static final int RTM_NEWQDISC = 36;
  public static final int RTM_DELQDISC = 37;
  public static final int RTM_GETQDISC = 38;
  public static final int RTM_NEWNETCONF = 80;
  public static final int RTM_DELNETCONF = 81;
  public static final int RTM_GETNETCONF = 82;
  public static final int RTM_NEWNSID = 88;
  public static final int RTM_GETNSID = 90;

  public static final int RTNLGRP_LINK = 1;
  public static final int RTNLGRP_TC = 4;
  public static final int RTNLGRP_IPV4_ROUTE = 7;
  public static final int RTNLGRP_IPV6_ROUTE = 11;
  public static final int RTNLGRP_IPV4_NETCONF = 24;
  public static final int RTNLGRP_IPV6_NETCONF = 25;

  public static final int AF_UNSPEC = 0;
  public static final int AF_INET = 2;
  public static final int AF_INET6 = 10;

  /** struct rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type (u8 each), flags (u32). */
  public static final int RTMSG_LENGTH = 12;
  public static final int RTN_UNICAST = 1;
  public static final int RT_TABLE_LOCAL = 255;
  public static final int RTA_DST = 1;
  public static final int RTA_OIF = 4;
  public static final int RTA_GATEWAY = 5;
  public static final int RTA_METRICS = 8;
  public static final int RTA_MULTIPATH = 9;
  public static final int RTA_TABLE = 15;
  public static final int RTA_NH_ID = 30;
  public static final int RTAX_MTU = 2;
  /** struct rtnexthop: len (u16), flags (u8), hops (u8), ifindex (s32). */
  public static final int RTNEXTHOP_LENGTH = 8;

  /** struct netconfmsg, padded to 4 bytes. */
  public static final int NETCONFMSG_LENGTH = 4;
  public static final int NETCONFA_IFINDEX = 1;
  public static final int NETCONFA_FORWARDING = 2;
  public static final int NETCONFA_IFINDEX_ALL = -1;
  public static final int NETCONFA_IFINDEX_DEFAULT = -2;

  /** struct tcmsg: family, pad (u8, u16), ifindex (s32), handle, parent, info (u32). */
  public static final int TCMSG_LENGTH = 20;
  public static final int TCA_KIND = 1;
  public static final int TCA_OPTIONS = 2;
  public static final int TCA_TBF_PARMS = 1;
  public static final int TCA_TBF_RATE64 = 4;
  public static final int TCA_TBF_PRATE64 = 5;
  /** struct tc_tbf_qopt: rate and peakrate (struct tc_ratespec, 12 bytes each), limit, buffer, mtu (u32). */
  public static final int TC_TBF_QOPT_LENGTH = 36;
  public static final int TCA_CAKE_BASE_RATE64 = 2;
  public static final int TCA_CAKE_SPLIT_GSO = 17;
  public static final int TC_H_ROOT = Qdisc.ROOT;
  public static final int TC_H_INGRESS = 0xFFFFFFF1;

  public static final int IFINFOMSG_LENGTH = 16;
  public static final int RTGENMSG_LENGTH = 4;

  public static final int IFLA_ADDRESS = 1;
  public static final int IFLA_IFNAME = 3;
  public static final int IFLA_MTU = 4;
  public static final int IFLA_LINK = 5;
  public static final int IFLA_MASTER = 10;
  public static final int IFLA_TXQLEN = 13;
  public static final int IFLA_OPERSTATE = 16;
  public static final int IFLA_LINKINFO = 18;
  public static final int IFLA_EXT_MASK = 29;
  public static final int IFLA_LINK_NETNSID = 37;
  public static final int IFLA_GSO_MAX_SEGS = 40;
  public static final int IFLA_GSO_MAX_SIZE = 41;
  public static final int IFLA_XDP = 43;
  public static final int IFLA_MIN_MTU = 50;
  public static final int IFLA_MAX_MTU = 51;
  public static final int IFLA_GRO_MAX_SIZE = 58;
  public static final int IFLA_TSO_MAX_SIZE = 59;
  public static final int IFLA_TSO_MAX_SEGS = 60;
  public static final int IFLA_GSO_IPV4_MAX_SIZE = 63;
  public static final int IFLA_GRO_IPV4_MAX_SIZE = 64;

  public static final int IFLA_INFO_KIND = 1;
  public static final int IFLA_INFO_DATA = 2;
  public static final int IFLA_INFO_SLAVE_KIND = 4;
  public static final int IFLA_VXLAN_LINK = 3;

  public static final int IFLA_XDP_ATTACHED = 2;
  public static final int IFLA_XDP_PROG_ID = 4;
  public static final int IFLA_XDP_DRV_PROG_ID = 5;
  public static final int IFLA_XDP_SKB_PROG_ID = 6;
  public static final int IFLA_XDP_HW_PROG_ID = 7;

  /** RTEXT_FILTER_SKIP_STATS: leave the (large) statistics out of dumps; ignored by older kernels. */
  public static final int RTEXT_FILTER_SKIP_STATS = 1 << 3;

  public static final int NETNSA_NSID = 1;
  public static final int NETNSA_FD = 3;

  private Rtnl() {}
}

package io.segscope.agent.inventory;

import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.inventory.wire.Rtnl;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.agent.netlink.MessageBuilder;
import io.segscope.agent.netlink.Netlink;
import io.segscope.agent.netlink.NetlinkSocket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Test helper: sets link attributes iproute2 6.1 cannot (IFLA_GSO_IPV4_MAX_SIZE, the
 * {@code gso_ipv4_max_size} keyword of iproute2 6.3+) with an RTM_NEWLINK request in a named
 * namespace, and waits for the kernel's ack (a refusal throws with the errno).
 */
public final class LinkSetter {
  private LinkSetter() {}

  public static void setGsoIpv4MaxSize(String netnsName, long inode, int ifindex, long size) {
    Netns ns = new Netns(inode, netnsName, Path.of("/run/netns", netnsName), false);
    try (NetnsThread thread = new NetnsThread("link-setter")) {
      thread.call(ns, () -> {
        try (NetlinkSocket rtnl = NetlinkSocket.open(Netlink.NETLINK_ROUTE, Duration.ofSeconds(5),
            new DecodeWarnings())) {
          byte[] ifinfo = ByteBuffer.allocate(Rtnl.IFINFOMSG_LENGTH).order(ByteOrder.nativeOrder())
              .putInt(4, ifindex).array();
          rtnl.request(new MessageBuilder(Rtnl.RTM_NEWLINK, Netlink.NLM_F_REQUEST).header(ifinfo)
              .u32(Rtnl.IFLA_GSO_IPV4_MAX_SIZE, (int) size), "set gso_ipv4_max_size (RTM_NEWLINK)");
        }
        return null;
      });
    }
  }
}

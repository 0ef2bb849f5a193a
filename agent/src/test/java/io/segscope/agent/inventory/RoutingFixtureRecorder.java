package io.segscope.agent.inventory;

import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.inventory.wire.Rtnetlink;
import io.segscope.agent.inventory.wire.Rtnl;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.agent.netlink.Netlink;
import io.segscope.agent.netlink.NetlinkMessage;
import io.segscope.agent.netlink.NetlinkSocket;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Records the routing fixtures under src/test/resources/netlink from the running kernel (run once,
 * as root; the output is committed): a router namespace with connected, multipath, MTU-metric,
 * unreachable and table-100 routes, IPv4 forwarding on two of its three devices, and tbf qdiscs
 * (root, under an htb class, with a peak rate). Stores the raw RTM_GETROUTE, RTM_GETNETCONF (IPv4,
 * IPv6) and RTM_GETQDISC dumps next to what ip, tc and sysctl printed at the same moment.
 *
 * <p>Usage: {@code java ... RoutingFixtureRecorder agent/src/test/resources/netlink}
 */
public final class RoutingFixtureRecorder {
  private RoutingFixtureRecorder() {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[0]);
    Files.createDirectories(out);
    DecodeWarnings warnings = new DecodeWarnings();
    try (Lab lab = new Lab(); NetnsThread thread = new NetnsThread("recorder")) {
      String r = lab.netns("rec-r");
      String s = lab.netns("rec-s");
      Lab.run("ip", "-n", r, "link", "add", "r0", "type", "veth", "peer", "name", "s0", "netns", s);
      Lab.run("ip", "-n", r, "link", "add", "r1", "type", "veth", "peer", "name", "r9");
      Lab.run("ip", "-n", r, "link", "add", "r2", "type", "veth", "peer", "name", "r8");
      for (String dev : List.of("r0", "r1", "r2", "r9", "r8")) {
        Lab.run("ip", "-n", r, "link", "set", dev, "up");
      }
      Lab.run("ip", "-n", r, "addr", "add", "198.18.30.1/24", "dev", "r0");
      Lab.run("ip", "-n", r, "addr", "add", "198.18.31.1/24", "dev", "r1");
      Lab.run("ip", "-n", r, "addr", "add", "198.18.32.1/24", "dev", "r2");
      Lab.run("ip", "-n", r, "route", "add", "198.18.40.0/24", "nexthop", "via", "198.18.31.2", "dev", "r1",
          "nexthop", "via", "198.18.30.2", "dev", "r0");
      Lab.run("ip", "-n", r, "route", "add", "198.18.41.0/24", "via", "198.18.31.2", "dev", "r1", "mtu", "1300");
      Lab.run("ip", "-n", r, "route", "add", "unreachable", "198.18.42.0/24");
      Lab.run("ip", "-n", r, "route", "add", "198.18.43.0/24", "dev", "r2", "table", "100");
      lab.inNetns(r, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1");
      lab.inNetns(r, "sysctl", "-q", "-w", "net.ipv4.conf.r2.forwarding=0");
      lab.inNetns(r, "tc", "qdisc", "add", "dev", "r1", "root", "tbf", "rate", "100mbit", "burst", "10000", "limit",
          "30000");
      lab.inNetns(r, "tc", "qdisc", "add", "dev", "r0", "root", "handle", "1:", "htb", "default", "10");
      lab.inNetns(r, "tc", "class", "add", "dev", "r0", "parent", "1:", "classid", "1:10", "htb", "rate", "100mbit");
      lab.inNetns(r, "tc", "qdisc", "add", "dev", "r0", "parent", "1:10", "handle", "20:", "tbf", "rate", "10mbit",
          "burst", "5000", "limit", "20000");
      lab.inNetns(r, "tc", "qdisc", "add", "dev", "r2", "root", "tbf", "rate", "50mbit", "burst", "20000", "limit",
          "40000", "peakrate", "60mbit", "mtu", "2000");
      Netns netns = new Netns(lab.inode(r), r, Path.of("/run/netns", r), false);
      thread.call(netns, () -> {
        try (NetlinkSocket rtnl = NetlinkSocket.open(Netlink.NETLINK_ROUTE, Duration.ofSeconds(5), warnings)) {
          write(out.resolve("routes-r.bin"), Rtnetlink.dumpRouteMessages(rtnl));
          write(out.resolve("netconf4-r.bin"), Rtnetlink.dumpNetconfMessages(rtnl, Rtnl.AF_INET));
          write(out.resolve("netconf6-r.bin"), Rtnetlink.dumpNetconfMessages(rtnl, Rtnl.AF_INET6));
          write(out.resolve("qdiscs-r.bin"), Rtnetlink.dumpQdiscMessages(rtnl));
          write(out.resolve("links-r.bin"), Rtnetlink.dumpLinkMessages(rtnl));
        } catch (IOException e) {
          throw new IllegalStateException(e);
        }
        return null;
      });
      Files.writeString(out.resolve("routes-r.ip.json"), Lab.run("ip", "-n", r, "-j", "route", "show", "table", "all"));
      Files.writeString(out.resolve("qdiscs-r.tc.json"), lab.inNetns(r, "tc", "-j", "qdisc", "show"));
      StringBuilder fwd = new StringBuilder("{");
      for (String dev : List.of("r0", "r1", "r2", "r9", "r8", "lo")) {
        fwd.append(dev.equals("r0") ? "" : ", ").append('"').append(dev).append("\": ")
            .append(lab.inNetns(r, "sysctl", "-n", "net.ipv4.conf." + dev + ".forwarding").trim());
      }
      Files.writeString(out.resolve("netconf4-r.sysctl.json"), fwd.append("}\n").toString());
      System.out.println("recorded into " + out + "; decode warnings: " + warnings.count());
    }
  }

  private static void write(Path file, List<NetlinkMessage> messages) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (NetlinkMessage m : messages) {
      bytes.write(m.toBytes());
    }
    Files.write(file, bytes.toByteArray());
  }
}

package io.segscope.agent.inventory;

import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.inventory.wire.EthtoolNetlinkFeatures;
import io.segscope.agent.inventory.wire.Rtnetlink;
import io.segscope.agent.inventory.wire.Rtnl;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.agent.netlink.MessageBuilder;
import io.segscope.agent.netlink.Netlink;
import io.segscope.agent.netlink.NetlinkMessage;
import io.segscope.agent.netlink.NetlinkSocket;
import io.segscope.host.sys.Libc;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Records the netlink fixtures under src/test/resources/netlink from the running kernel (run once,
 * as root; the output is committed): builds a two-namespace topology, then stores the raw
 * RTM_GETLINK dump, ETHTOOL_MSG_FEATURES_GET dump, ETH_SS_FEATURES string set and an RTM_GETNSID
 * reply of each namespace, next to what iproute2 and ethtool printed at the same moment.
 *
 * <p>Usage: {@code java ... NetlinkFixtureRecorder agent/src/test/resources/netlink}
 */
public final class NetlinkFixtureRecorder {
  private NetlinkFixtureRecorder() {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[0]);
    Files.createDirectories(out);
    DecodeWarnings warnings = new DecodeWarnings();
    try (Lab lab = new Lab(); NetnsThread thread = new NetnsThread("recorder")) {
      String a = lab.netns("rec-a");
      String b = lab.netns("rec-b");
      Path pin = Path.of("/sys/fs/bpf/" + lab.prefix + "xdp");
      lab.pinned(pin);
      XdpTestProgram.loadAndPin(pin);
      Lab.run("ip", "-n", a, "link", "add", "va", "mtu", "9000", "gso_max_size", "32000", "gso_max_segs", "100",
          "type", "veth", "peer", "name", "vb", "netns", b);
      Lab.run("ip", "-n", a, "link", "set", "va", "gro_max_size", "32768");
      Lab.run("ip", "-n", a, "link", "add", "link", "va", "name", "mv0", "type", "macvlan", "mode", "bridge");
      Lab.run("ip", "-n", a, "link", "add", "link", "va", "name", "mt0", "type", "macvtap", "mode", "bridge");
      Lab.run("nsenter", "--net=/run/netns/" + a, "ip", "link", "set", "mv0", "xdpgeneric", "pinned", pin.toString());
      Lab.run("ip", "-n", b, "link", "add", "br0", "type", "bridge");
      Lab.run("ip", "-n", b, "link", "set", "vb", "master", "br0");
      Lab.run("ip", "-n", b, "link", "add", "vc", "type", "veth", "peer", "name", "vd");
      Lab.run("ip", "-n", b, "link", "set", "vd", "master", "br0", "mtu", "1400");
      Lab.run("ip", "-n", b, "link", "add", "vx0", "type", "vxlan", "id", "42", "dev", "vc", "dstport", "4789");
      Lab.run("nsenter", "--net=/run/netns/" + b, "ip", "link", "set", "vc", "xdpdrv", "pinned", pin.toString());
      Lab.run("ip", "netns", "exec", b, "ethtool", "-K", "vd", "tso", "off");
      Lab.run("ip", "-n", a, "link", "set", "va", "up");
      Lab.run("ip", "-n", b, "link", "set", "vb", "up");
      Lab.run("ip", "-n", b, "link", "set", "br0", "up");

      record(thread, lab, a, "a", b, out, warnings);
      record(thread, lab, b, "b", a, out, warnings);
      System.out.println("recorded into " + out + "; decode warnings: " + warnings.count());
    }
  }

  private static void record(NetnsThread thread, Lab lab, String ns, String tag, String other, Path out,
      DecodeWarnings warnings) throws IOException {
    Netns netns = new Netns(lab.inode(ns), ns, Path.of("/run/netns", ns), false);
    Netns otherNs = new Netns(lab.inode(other), other, Path.of("/run/netns", other), false);
    thread.call(netns, () -> {
      try (NetlinkSocket rtnl = NetlinkSocket.open(Netlink.NETLINK_ROUTE, Duration.ofSeconds(5), warnings)) {
        write(out.resolve("links-" + tag + ".bin"), Rtnetlink.dumpLinkMessages(rtnl));
        // the RTM_GETNSID reply about the other namespace, with the request Rtnetlink.nsidOf sends
        int fd = Libc.INSTANCE.open(otherNs.path().toString(), Libc.O_RDONLY | Libc.O_CLOEXEC);
        try {
          MessageBuilder request = new MessageBuilder(Rtnl.RTM_GETNSID, Netlink.NLM_F_REQUEST)
              .header(new byte[Rtnl.RTGENMSG_LENGTH]).u32(Rtnl.NETNSA_FD, fd);
          write(out.resolve("nsid-" + tag + ".bin"), rtnl.request(request, "record nsid"));
        } finally {
          Libc.INSTANCE.close(fd);
        }
      }
      NetlinkSocket genl = NetlinkSocket.open(Netlink.NETLINK_GENERIC, Duration.ofSeconds(5), warnings);
      try (EthtoolNetlinkFeatures features = EthtoolNetlinkFeatures.open(genl, warnings).orElseThrow()) {
        write(out.resolve("features-" + tag + ".bin"), features.dumpFeatures());
        write(out.resolve("strset-" + tag + ".bin"), features.requestFeatureNames());
      }
      return null;
    });
    Files.writeString(out.resolve("links-" + tag + ".ip.json"), Lab.run("ip", "-n", ns, "-d", "-j", "link", "show"));
    Files.writeString(out.resolve("nsid-" + tag + ".ip.json"), Lab.run("ip", "-n", ns, "-j", "netns", "list-id"));
    StringBuilder ethtool = new StringBuilder("{");
    var links = Lab.JSON.readTree(Lab.run("ip", "-n", ns, "-j", "link", "show"));
    for (int i = 0; i < links.size(); i++) {
      String dev = links.get(i).get("ifname").asText();
      ethtool.append(i == 0 ? "" : ",\n").append('"').append(dev).append("\": ")
          .append(Lab.run("ip", "netns", "exec", ns, "ethtool", "--json", "-k", dev).trim());
    }
    Files.writeString(out.resolve("features-" + tag + ".ethtool.json"), ethtool.append("}\n").toString());
  }

  private static void write(Path file, List<NetlinkMessage> messages) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (NetlinkMessage m : messages) {
      bytes.write(m.toBytes());
    }
    Files.write(file, bytes.toByteArray());
  }
}

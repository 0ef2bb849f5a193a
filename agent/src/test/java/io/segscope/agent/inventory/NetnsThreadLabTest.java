package io.segscope.agent.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.segscope.agent.inventory.model.Link;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.inventory.wire.Rtnetlink;
import io.segscope.agent.inventory.wire.Rtnl;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.agent.netlink.Netlink;
import io.segscope.agent.netlink.NetlinkException;
import io.segscope.agent.netlink.NetlinkSocket;
import io.segscope.host.sys.Errno;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Entering namespaces on the dedicated thread, sockets bound to their namespace, overflow. */
@Tag("lab")
class NetnsThreadLabTest {
  private static final Path THREAD_NS = Path.of("/proc/thread-self/ns/net");

  private Lab lab;
  private NetnsThread thread;
  private final DecodeWarnings warnings = new DecodeWarnings();

  @BeforeEach
  void setUp() {
    Lab.requireLab();
    lab = new Lab();
    thread = new NetnsThread("test-netns");
  }

  @AfterEach
  void tearDown() {
    thread.close();
    lab.close();
  }

  private Netns netns(String name) {
    return new Netns(lab.inode(name), name, Path.of("/run/netns", name), false);
  }

  @Test
  void runsInsideTheNamespaceAndReturnsHome() {
    Netns x = netns(lab.netns("t"));
    long home = thread.homeInode();
    assertThat(thread.call(x, () -> NetnsDiscovery.inode(THREAD_NS))).isEqualTo(x.inode());
    Netns homeNs = new Netns(home, "", Path.of("/proc/self/ns/net"), true);
    assertThat(thread.call(homeNs, () -> NetnsDiscovery.inode(THREAD_NS))).isEqualTo(home);
    assertThat(NetnsDiscovery.inode(THREAD_NS)).as("the caller never moved").isEqualTo(home);
  }

  @Test
  void refusesAPathThatNowRefersToAnotherNamespace() {
    String name = lab.netns("u");
    Netns stale = new Netns(lab.inode(name) + 1_000_000, name, Path.of("/run/netns", name), false);
    assertThatThrownBy(() -> thread.call(stale, () -> "entered"))
        .isInstanceOf(NetlinkException.class).hasMessageContaining("now refers to namespace " + lab.inode(name));
    Netns gone = new Netns(1, "gone", Path.of("/run/netns/" + lab.prefix + "absent"), false);
    assertThatThrownBy(() -> thread.call(gone, () -> "entered"))
        .isInstanceOf(NetlinkException.class)
        .hasMessageContaining(
            "open namespace 1 at /run/netns/" + lab.prefix + "absent: No such file or directory (errno 2)");
    assertThat(thread.call(netns(name), () -> "still usable")).isEqualTo("still usable");
  }

  @Test
  void socketStaysInItsNamespaceAndReportsOverflow() throws Exception {
    String name = lab.netns("v");
    Lab.run("ip", "-n", name, "link", "add", "v0", "type", "veth", "peer", "name", "v1");
    try (NetlinkSocket events =
        thread.call(netns(name), () -> NetlinkSocket.open(Netlink.NETLINK_ROUTE, Duration.ofSeconds(5), warnings))) {
      // used from this (test) thread, the socket still reads the lab namespace
      assertThat(Rtnetlink.dumpLinks(events, warnings)).extracting(Link::name)
          .containsExactlyInAnyOrder("lo", "v0", "v1");
      events.subscribe(Rtnl.RTNLGRP_LINK, 1);  // the kernel rounds up to its minimum buffer
      StringBuilder batch = new StringBuilder();
      for (int i = 0; i < 100; i++) {
        batch.append("link add o").append(i).append(" type veth peer name p").append(i).append('\n');
      }
      Process p = new ProcessBuilder("ip", "-n", name, "-batch", "-").redirectErrorStream(true).start();
      try (OutputStream in = p.getOutputStream()) {
        in.write(batch.toString().getBytes(StandardCharsets.UTF_8));
      }
      p.getInputStream().readAllBytes();
      assertThat(p.waitFor()).isZero();
      assertThatThrownBy(() -> {
        for (int i = 0; i < 1000; i++) {
          events.drain();
        }
      }).isInstanceOf(NetlinkException.class)
          .satisfies(e -> assertThat(((NetlinkException) e).errno()).isEqualTo(Errno.ENOBUFS));
      List<Link> after = Rtnetlink.dumpLinks(events, warnings);
      assertThat(after).hasSize(203);
    }
  }
}

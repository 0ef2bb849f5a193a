package io.segscope.agent.advice;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.lab.Lab;
import io.segscope.lab.LabTest;
import io.segscope.testkit.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The namespace forms of the recommended commands with the real ip, ethtool and nsenter on the real
 * kernel: a /run/netns name (ip -n, ip netns exec), a path elsewhere (nsenter --net=PATH, here a
 * link named {@code $(touch${IFS}c)}), and /proc/PID/ns/net with the inode guard, which runs in the
 * namespace it was made for and refuses any other. The device is named {@code ;touch${IFS}c}.
 */
class NetnsCommandsLabTest {
  private static final String DEV = ";touch${IFS}c";

  private record Run(int exit, String output) {}

  private static Run sh(Command c, Path cwd) throws Exception {
    Process p = new ProcessBuilder("sh", "-c", c.shell()).directory(cwd.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return new Run(p.exitValue(), out);
  }

  private static int mtu(Lab lab, io.segscope.lab.Netns ns) throws Exception {
    String json = lab.exec(ns, "ip", "-j", "link", "show", "dev", DEV);
    return new ObjectMapper().readTree(json).get(0).path("mtu").asInt();
  }

  @Test
  @LabTest
  void everyNamespaceFormReachesTheRightDeviceAndTheGuardRefusesAnotherNamespace(Lab lab) throws Exception {
    io.segscope.lab.Netns a = lab.namespace("a");
    io.segscope.lab.Netns b = lab.namespace("b");
    lab.exec(a, "ip", "link", "add", "name", DEV, "type", "veth", "peer", "name", "p0");
    Path dir = Files.createTempDirectory("segscope-netns-forms");
    Path link = Files.createSymbolicLink(dir.resolve("$(touch${IFS}c)"), Path.of("/run/netns/" + a.name()));
    Path cwd = Files.createDirectory(dir.resolve("cwd"));
    Process holder = new ProcessBuilder("ip", "netns", "exec", a.name(), "sleep", "120").start();
    try {
      Path pidPath = Path.of("/proc/" + holder.pid() + "/ns/net");
      // ip netns exec enters the namespace, then execs sleep: wait until it has
      long[] inodeOf = {-1};
      Await.atMost(Duration.ofSeconds(10)).every(Duration.ofMillis(20)).andWhile(holder::isAlive).until(() -> {
        inodeOf[0] = ((Number) Files.getAttribute(pidPath, "unix:ino")).longValue();
        return inodeOf[0] == a.inode();
      });
      long inode = inodeOf[0];
      assertThat(inode).as("namespace of the holder process").isEqualTo(a.inode());

      Netns named = new Netns(a.inode(), a.name(), Path.of("/run/netns/" + a.name()), false);
      Netns elsewhere = new Netns(a.inode(), "$(touch${IFS}c)", link, false);
      Netns byPid = new Netns(a.inode(), "", pidPath, false);
      assertThat(NetnsCommands.entry(named)).isEqualTo(NetnsCommands.Entry.RUN_NETNS_NAME);
      assertThat(NetnsCommands.entry(elsewhere)).isEqualTo(NetnsCommands.Entry.PATH);
      assertThat(NetnsCommands.entry(byPid)).isEqualTo(NetnsCommands.Entry.PID_PATH);

      int mtu = 1400;
      for (Netns ns : List.of(named, elsewhere, byPid)) {
        Command c = NetnsCommands.ipLinkSet(ns, DEV, List.of("mtu", Integer.toString(mtu)));
        Run r = sh(c, cwd);
        assertThat(r.exit()).as("%s: %s", c.display(), r.output()).isZero();
        assertThat(mtu(lab, a)).as("mtu after %s", c.display()).isEqualTo(mtu);
        Run e = sh(NetnsCommands.ethtoolK(ns, DEV, List.of("tso", "off")), cwd);
        assertThat(e.exit()).as("ethtool in %s: %s", ns.path(), e.output()).isZero();
        mtu -= 10;
      }
      assertThat(lab.exec(a, "ethtool", "-k", DEV)).contains("tcp-segmentation-offload: off");

      // the PID now "belongs" to another namespace: the guard refuses and nothing changes
      Netns reused = new Netns(b.inode(), "", pidPath, false);
      Run refused = sh(NetnsCommands.ipLinkSet(reused, DEV, List.of("mtu", "1300")), cwd);
      assertThat(refused.exit()).isEqualTo(1);
      assertThat(refused.output()).contains("segscope: refusing to run: the network namespace entered is inode "
          + a.inode() + ", not " + b.inode());
      assertThat(mtu(lab, a)).isEqualTo(mtu + 10);
      try (var files = Files.list(cwd)) {
        assertThat(files.toList()).as("files the commands created").isEmpty();
      }
      assertThat(Files.exists(Path.of(System.getProperty("user.dir"), "c"))).isFalse();
    } finally {
      holder.destroy();
      holder.waitFor(10, TimeUnit.SECONDS);
      Files.deleteIfExists(link);
      Files.deleteIfExists(cwd);
      Files.deleteIfExists(dir);
    }
  }
}

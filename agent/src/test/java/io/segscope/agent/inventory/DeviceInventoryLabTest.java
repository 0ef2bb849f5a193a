package io.segscope.agent.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.testkit.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The live inventory follows device and namespace churn within 2 s: devices through RTNLGRP_LINK
 * notifications, named namespaces through the /run/netns watch, unnamed ones through the rescan.
 */
@Tag("lab")
class DeviceInventoryLabTest {
  private static final Duration LIMIT = Duration.ofSeconds(2);

  private Lab lab;
  private DeviceInventory inventory;
  private final AtomicInteger notifications = new AtomicInteger();

  @BeforeEach
  void setUp() {
    Lab.requireLab();
    lab = new Lab();
  }

  @AfterEach
  void tearDown() {
    if (inventory != null) {
      inventory.close();
    }
    lab.close();
  }

  /** Waits until {@code condition} holds on the current snapshot; returns the milliseconds it took. */
  private long await(String what, Predicate<Inventory> condition) {
    long start = System.nanoTime();
    if (Await.atMost(LIMIT).every(Duration.ofMillis(10)).until(() -> condition.test(inventory.current()))) {
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      System.out.println("followed: " + what + " in " + ms + " ms");
      return ms;
    }
    return fail("the inventory did not follow within " + LIMIT.toMillis() + " ms: " + what
        + " (decode warnings: " + inventory.warnings().count() + " " + inventory.warnings().last() + ")");
  }

  private Optional<Device> find(Inventory inv, String ns, String name) {
    return inv.device(lab.inode(ns), name);
  }

  @Test
  void followsDevicesAndNamedNamespaces() {
    inventory = DeviceInventory.start(InventoryConfig.defaults(), new DecodeWarnings());
    inventory.addListener((previous, current) -> notifications.incrementAndGet());

    String x = lab.netns("x");
    long xInode = lab.inode(x);
    await("namespace " + x + " appears", inv -> inv.namespaces().stream().anyMatch(n -> n.inode() == xInode
        && n.name().equals(x)) && inv.device(xInode, "lo").isPresent());

    Lab.run("ip", "-n", x, "link", "add", "x0", "type", "veth", "peer", "name", "x1");
    await("veth pair x0/x1 created", inv -> find(inv, x, "x0").isPresent() && find(inv, x, "x1").isPresent()
        && inv.linkTarget(find(inv, x, "x0").get()).map(Device::name).equals(Optional.of("x1")));

    Lab.run("ip", "-n", x, "link", "set", "x0", "mtu", "1300");
    await("mtu change (announced)", inv -> find(inv, x, "x0").map(d -> d.link().mtu() == 1300).orElse(false));

    // do_setlink changes gso/gro limits without a notification: found by the link refresh
    Lab.run("ip", "-n", x, "link", "set", "x0", "gso_max_size", "20000", "gro_max_size", "30000");
    await("gso_max_size/gro_max_size change (not announced)", inv -> find(inv, x, "x0")
        .map(d -> d.link().gsoMaxSize().orElse(0) == 20000 && d.link().groMaxSize().orElse(0) == 30000).orElse(false));

    Lab.run("ip", "netns", "exec", x, "ethtool", "-K", "x0", "tso", "off");
    await("tso off", inv -> find(inv, x, "x0").map(d -> d.features().available()
        && !d.features().isActive("tx-tcp-segmentation")).orElse(false));

    String y = lab.netns("y");
    long yInode = lab.inode(y);
    Lab.run("ip", "-n", y, "link", "add", "y0", "type", "veth", "peer", "name", "xy", "netns", x);
    await("cross-namespace pair y0/xy resolved", inv -> find(inv, y, "y0")
        .flatMap(inv::linkTarget).map(d -> d.netns() == xInode && d.name().equals("xy")).orElse(false));

    Lab.run("ip", "-n", x, "link", "del", "x0");
    await("veth pair x0/x1 deleted", inv -> find(inv, x, "x0").isEmpty() && find(inv, x, "x1").isEmpty());

    lab.deleteNetns(y);
    await("namespace " + y + " and its peer xy in " + x + " vanish",
        inv -> inv.namespaces().stream().noneMatch(n -> n.inode() == yInode)
            && inv.devices().stream().noneMatch(d -> d.netns() == yInode)
            && find(inv, x, "xy").isEmpty());

    assertThat(notifications.get()).isGreaterThanOrEqualTo(6);
    assertThat(inventory.current().device(xInode, "lo")).isPresent();
  }

  @Test
  void unnamedNamespaceOfAProcessIsFoundByTheRescan() throws Exception {
    inventory = DeviceInventory.start(InventoryConfig.defaults().withRescanInterval(Duration.ofSeconds(1)),
        new DecodeWarnings());
    Process p = new ProcessBuilder("unshare", "--net", "sleep", "60").start();
    try {
      long inode = Await.atMost(Duration.ofSeconds(2)).every(Duration.ofMillis(20)).poll(() -> {
        long ino = NetnsDiscovery.inode(Path.of("/proc/" + p.pid() + "/ns/net"));
        return ino >= 0 && ino != NetnsDiscovery.inode(Path.of("/proc/self/ns/net")) ? Optional.of(ino)
            : Optional.<Long>empty();
      }).orElse(-1L);
      assertThat(inode).as("unshare entered a new namespace").isPositive();
      long ns = inode;
      await("unnamed namespace of PID " + p.pid() + " appears", inv -> inv.device(ns, "lo").isPresent()
          && inv.namespaces().stream().anyMatch(n -> n.inode() == ns && n.name().isEmpty()));
      p.destroy();
      p.waitFor();
      await("unnamed namespace vanishes with its process", inv -> inv.namespaces().stream()
          .noneMatch(n -> n.inode() == ns));
    } finally {
      p.destroyForcibly();
    }
  }
}

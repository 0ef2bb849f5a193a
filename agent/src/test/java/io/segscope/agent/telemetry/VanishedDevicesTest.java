package io.segscope.agent.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.device.DeviceId;
import io.segscope.probes.wire.Counts;
import io.segscope.probes.wire.DeviceReading;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Which counted devices are forgotten, on readings as this host's probes key them: namespace inodes
 * as nsfs numbers them here (the root 4026531833, lab namespaces from 4026532xxx) and cookies as the
 * kernel hands them out (one counter for the whole host; init_net has 1).
 */
class VanishedDevicesTest {
  static final long ROOT = 4026531833L;
  static final long LAB = 4026532315L;
  static final Instant T0 = Instant.parse("2026-12-01T23:40:00Z");

  /** What the holders were asked, and which inodes they say are held. */
  static final class Holders implements VanishedDevices.NamespaceHolders {
    final Set<Long> held = new HashSet<>();
    final List<Set<Long>> asked = new ArrayList<>();

    @Override
    public Set<Long> held(Set<Long> inodes) {
      asked.add(inodes);
      Set<Long> out = new HashSet<>(inodes);
      out.retainAll(held);
      return out;
    }
  }

  final Holders holders = new Holders();
  final VanishedDevices vanished = new VanishedDevices(Duration.ofSeconds(15), Duration.ofMinutes(10),
      Duration.ofSeconds(30), holders);

  static DeviceReading reading(long cookie, long netns, int ifindex, String name, long swSkbs) {
    return new DeviceReading(new DeviceId(cookie, netns, ifindex), name,
        new Counts(swSkbs, swSkbs * 64000, 0, swSkbs, swSkbs * 45, swSkbs * 63000, 0, 0, 0, 0, 0), 0,
        Optional.empty(), Optional.empty());
  }

  static Netns ns(long inode, String name, long cookie) {
    return new Netns(inode, name, Path.of(inode == ROOT ? "/proc/1/ns/net" : "/run/netns/" + name), inode == ROOT,
        cookie);
  }

  static Inventory inventory(List<Netns> namespaces, Device... devices) {
    return new Inventory(namespaces, List.of(devices), Map.of(), T0);
  }

  static Device device(long netns, int ifindex, String name) {
    Device d = TelemetryPipelineTest.device(ifindex, name);
    return new Device(netns, "", d.link(), d.features());
  }

  static Instant at(long seconds) {
    return T0.plusSeconds(seconds);
  }

  @Test
  void aReusedInodeNeverCarriesTheDestroyedNamespacesCounters() {
    // namespace "a" (cookie 4117, inode LAB) counted 500 super-packets on a0; it was destroyed, and a new
    // namespace (cookie 4121) got the same inode and a device with the same ifindex: the map still holds
    // the old entry beside the new one until the agent drops it
    Inventory inv = inventory(List.of(ns(ROOT, "", 1), ns(LAB, "c", 4121)), device(LAB, 2, "a0"));
    List<DeviceReading> counted = List.of(reading(4117, LAB, 2, "a0", 500), reading(4121, LAB, 2, "a0", 3));
    assertThat(vanished.update(at(0), counted, inv)).as("hidden at once, forgotten once still").isEmpty();
    assertThat(vanished.superseded(new DeviceId(4117, LAB, 2))).isTrue();
    assertThat(vanished.superseded(new DeviceId(4121, LAB, 2))).isFalse();
    List<DeviceReading> later = List.of(reading(4117, LAB, 2, "a0", 500), reading(4121, LAB, 2, "a0", 90));
    assertThat(vanished.update(at(14), later, inv)).isEmpty();
    assertThat(vanished.update(at(15), later, inv)).containsExactly(new DeviceId(4117, LAB, 2));
    assertThat(holders.asked).as("no /proc scan needed to know that").isEmpty();
  }

  @Test
  void cookiesAreNotOrderedByAge() {
    // seen on 6.18: the kernel hands out namespace cookies from per-CPU batches, so the namespace made
    // later (on another CPU) got the SMALLER cookie; the destroyed one's bigger cookie must not win
    Inventory inv = inventory(List.of(ns(ROOT, "", 1), ns(LAB, "new", 0x6f89)), device(LAB, 2, "low0"));
    List<DeviceReading> counted = List.of(reading(0x812f, LAB, 3, "up0", 27251), reading(0x6f89, LAB, 2, "low0", 5));
    vanished.update(at(0), counted, inv);
    assertThat(vanished.superseded(new DeviceId(0x812f, LAB, 3))).as("the destroyed namespace's key").isTrue();
    assertThat(vanished.superseded(new DeviceId(0x6f89, LAB, 2))).as("the live namespace's key").isFalse();
  }

  @Test
  void withoutTheInventoryTheKeyThatStillCountsIsCurrent() {
    // neither namespace known to the inventory (not read yet, or held by an fd only): the old one's key
    // (bigger cookie, as cookies are not ordered) stopped counting, the new one's counts
    Inventory inv = inventory(List.of(ns(ROOT, "", 1)));
    assertThat(vanished.update(at(0), List.of(reading(4121, LAB, 2, "a0", 500), reading(4117, LAB, 3, "b0", 1)),
        inv)).isEmpty();
    assertThat(vanished.superseded(new DeviceId(4121, LAB, 2))).as("both first seen at once: undecided").isFalse();
    assertThat(vanished.superseded(new DeviceId(4117, LAB, 3))).isFalse();
    vanished.update(at(1), List.of(reading(4121, LAB, 2, "a0", 500), reading(4117, LAB, 3, "b0", 7)), inv);
    assertThat(vanished.superseded(new DeviceId(4121, LAB, 2))).isTrue();
    assertThat(vanished.superseded(new DeviceId(4117, LAB, 3))).isFalse();
  }

  @Test
  void aNamespaceTheInventoryHasNotReReadYetIsHiddenButNeverForgottenWhileItCounts() {
    // the inventory still shows the old namespace (cookie 4117) under the inode; the map has the new one
    Inventory stale = inventory(List.of(ns(ROOT, "", 1), ns(LAB, "a", 4117)), device(LAB, 5, "old5"));
    assertThat(vanished.update(at(0), List.of(reading(4121, LAB, 2, "a0", 3)), stale)).isEmpty();
    assertThat(vanished.superseded(new DeviceId(4121, LAB, 2))).as("not named from the old namespace").isTrue();
    for (long t = 1; t <= 20; t++) {
      assertThat(vanished.update(at(t), List.of(reading(4121, LAB, 2, "a0", 3 + t)), stale))
          .as("second %d: it counts, so it is kept", t).isEmpty();
    }
    Inventory read = inventory(List.of(ns(ROOT, "", 1), ns(LAB, "c", 4121)), device(LAB, 2, "a0"));
    assertThat(vanished.update(at(21), List.of(reading(4121, LAB, 2, "a0", 30)), read)).isEmpty();
    assertThat(vanished.superseded(new DeviceId(4121, LAB, 2))).as("exported once the inventory has it").isFalse();
  }

  @Test
  void aDeviceGoneFromAKnownNamespaceIsForgottenAfterTheGrace() {
    Inventory inv = inventory(List.of(ns(ROOT, "", 1), ns(LAB, "a", 4117)), device(LAB, 2, "a0"));
    List<DeviceReading> counted = List.of(reading(4117, LAB, 2, "a0", 5), reading(4117, LAB, 3, "gone0", 7));
    assertThat(vanished.update(at(0), counted, inv)).isEmpty();
    assertThat(vanished.update(at(14), counted, inv)).as("within the grace").isEmpty();
    assertThat(vanished.update(at(15), counted, inv)).containsExactly(new DeviceId(4117, LAB, 3));
    assertThat(holders.asked).isEmpty();
  }

  @Test
  void aNamespaceHeldOnlyByAFileDescriptorKeepsItsCounters() {
    // ip netns add a; exec 3</run/netns/a; ip netns delete a: the inventory loses it, an fd holds it
    Inventory before = inventory(List.of(ns(ROOT, "", 1), ns(LAB, "a", 4117)), device(LAB, 2, "a0"));
    Inventory after = inventory(List.of(ns(ROOT, "", 1)));
    holders.held.add(LAB);
    List<DeviceReading> counted = List.of(reading(4117, LAB, 2, "a0", 500));
    assertThat(vanished.update(at(0), counted, before)).isEmpty();
    for (long t = 1; t < 600; t++) {
      assertThat(vanished.update(at(t), counted, after)).as("second %d", t).isEmpty();
    }
    // asked once the counters had been still for the grace, then once per 30 s (this test's recheck),
    // never every read
    assertThat(holders.asked).hasSizeBetween(19, 21).allSatisfy(s -> assertThat(s).containsExactly(LAB));
    // moving counters keep it as long as they move; idle for 10 min it goes (the bound on devices deleted
    // inside a namespace the inventory cannot follow)
    assertThat(vanished.update(at(600), counted, after)).containsExactly(new DeviceId(4117, LAB, 2));
  }

  @Test
  void countersThatMoveAreNeverLookedFor() {
    Inventory inv = inventory(List.of(ns(ROOT, "", 1)));
    for (int t = 0; t < 120; t++) {
      assertThat(vanished.update(at(t), List.of(reading(4117, LAB, 2, "a0", 100 + t)), inv)).isEmpty();
    }
    assertThat(holders.asked).isEmpty();
  }

  @Test
  void aDestroyedNamespacesCountersGoOnceIdleForTheGrace() {
    Inventory before = inventory(List.of(ns(ROOT, "", 1), ns(LAB, "a", 4117)), device(LAB, 2, "a0"));
    Inventory after = inventory(List.of(ns(ROOT, "", 1)));
    List<DeviceReading> counted = List.of(reading(4117, LAB, 2, "a0", 500), reading(4117, LAB, 3, "a1", 2),
        reading(1, ROOT, 2, "eth0", 9));
    Inventory withEth0 = inventory(before.namespaces(), device(LAB, 2, "a0"), device(LAB, 3, "a1"),
        device(ROOT, 2, "eth0"));
    Inventory afterWithEth0 = inventory(after.namespaces(), device(ROOT, 2, "eth0"));
    assertThat(vanished.update(at(0), counted, withEth0)).isEmpty();
    assertThat(vanished.update(at(5), counted, afterWithEth0)).isEmpty();
    assertThat(vanished.update(at(14), counted, afterWithEth0)).isEmpty();
    assertThat(vanished.update(at(15), counted, afterWithEth0))
        .containsExactlyInAnyOrder(new DeviceId(4117, LAB, 2), new DeviceId(4117, LAB, 3));
    assertThat(holders.asked).containsExactly(Set.of(LAB));
  }

  @Test
  void beforeTheInventorysFirstReadNothingIsForgottenButWhatANewerNamespaceReplaced() {
    Inventory none = Inventory.empty();
    List<DeviceReading> counted = List.of(reading(4117, LAB, 2, "a0", 500), reading(4121, LAB, 2, "a0", 1),
        reading(1, ROOT, 9, "x", 1));
    assertThat(vanished.update(at(0), counted, none)).as("first seen together: undecided").isEmpty();
    List<DeviceReading> moved = List.of(reading(4117, LAB, 2, "a0", 500), reading(4121, LAB, 2, "a0", 2),
        reading(1, ROOT, 9, "x", 1));
    assertThat(vanished.update(at(1), moved, none)).isEmpty();
    assertThat(vanished.superseded(new DeviceId(4117, LAB, 2))).as("the one that stopped counting").isTrue();
    assertThat(vanished.update(at(15), moved, none)).containsExactly(new DeviceId(4117, LAB, 2));
    assertThat(vanished.update(at(100), moved.subList(1, 3), none)).isEmpty();
    assertThat(holders.asked).isEmpty();
  }

  @Test
  void kernelsWithoutCookiesFallBackToTheInventory() {
    // cookie 0 (no net_cookie in BTF): no reuse can be seen from the keys; a device the inventory lacks
    // in a known namespace still goes after the grace
    Inventory inv = inventory(List.of(ns(ROOT, "", 0), ns(LAB, "a", 0)), device(LAB, 2, "a0"));
    List<DeviceReading> counted = List.of(reading(0, LAB, 2, "a0", 5), reading(0, LAB, 4, "gone", 1));
    assertThat(vanished.update(at(0), counted, inv)).isEmpty();
    assertThat(vanished.update(at(15), counted, inv)).containsExactly(new DeviceId(0, LAB, 4));
  }
}

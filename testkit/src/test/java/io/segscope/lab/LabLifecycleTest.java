package io.segscope.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The lab's own contract: names, refusals, loud failures, and teardown that leaves nothing. */
@LabTest
class LabLifecycleTest {

  @Test
  void namespaceIsNamedByPrefixAndRoleWithItsInode(Lab lab) {
    Netns ns = lab.namespace("alpha");

    assertThat(lab.prefix()).matches("sg[0-9a-f]{4}");
    assertThat(ns.name()).isEqualTo(lab.prefix() + "-alpha");
    assertThat(run("ip", "netns", "list")).contains(ns.name());
    long statInode = Long.parseLong(run("stat", "-L", "-c", "%i", "/run/netns/" + ns.name()).strip());
    assertThat(ns.inode()).isEqualTo(statInode);
    assertThat(lab.exec(ns, "ip", "-br", "link", "show", "dev", "lo")).contains("UP");
  }

  @Test
  void vethEndsAreUpInTheirNamespacesAndNotInTheRootNamespace(Lab lab) {
    Netns a = lab.namespace("a");
    Netns b = lab.namespace("b");
    lab.veth(a, "va0", b, "vb0");

    assertThat(lab.exec(a, "ip", "-br", "link", "show", "dev", "va0")).startsWith("va0@").contains("UP");
    assertThat(lab.exec(b, "ip", "-br", "link", "show", "dev", "vb0")).startsWith("vb0@").contains("UP");
    assertThat(run("ip", "-j", "link", "show")).doesNotContain(lab.alias());
  }

  @Test
  void refusesAddressesOutsideTheBenchmarkBlockAndAddsNone(Lab lab) {
    Netns a = lab.namespace("a");
    Netns b = lab.namespace("b");
    lab.veth(a, "va0", b, "vb0");

    assertThatThrownBy(() -> lab.address(a, "va0", "10.1.2.3/24"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outside 198.18.0.0/15");
    assertThat(lab.exec(a, "ip", "-4", "-o", "addr", "show", "dev", "va0")).isEmpty();

    lab.address(a, "va0", "198.18.200.1/24");
    assertThat(lab.exec(a, "ip", "-4", "-o", "addr", "show", "dev", "va0")).contains("198.18.200.1/24");
    assertThat(lab.exec(a, "ip", "route", "show", "default")).isEmpty();
  }

  @Test
  void refusesNamespacesAndDevicesItDidNotMake(Lab lab) {
    Netns mine = lab.namespace("a");
    Netns foreign = new Netns("not-" + lab.prefix(), mine.inode());

    assertThatThrownBy(() -> lab.exec(foreign, "true"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not made by lab " + lab.prefix());
    assertThatThrownBy(() -> lab.set(mine, "lo", "mtu", "1400"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("device lo");
  }

  @Test
  void refusesToMoveADeviceOutOfTheLab(Lab lab) {
    Netns a = lab.namespace("a");
    Netns b = lab.namespace("b");
    lab.veth(a, "va0", b, "vb0");

    assertThatThrownBy(() -> lab.set(a, "va0", "netns", "1"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("`netns` not allowed");
  }

  @Test
  void failingCommandReportsCommandLineAndStderr(Lab lab) {
    Netns a = lab.namespace("a");
    Netns b = lab.namespace("b");
    lab.veth(a, "va0", b, "vb0");

    assertThatThrownBy(() -> lab.set(a, "va0", "gso_max_size", "not-a-number"))
        .isInstanceOf(LabException.class)
        .hasMessageContaining("link set dev va0 gso_max_size not-a-number")
        .hasMessageContaining("exit ")
        .hasMessageContaining("gso_max_size");
    assertThatThrownBy(() -> lab.exec(a, "ip", "link", "show", "dev", "nosuch0"))
        .isInstanceOf(LabException.class)
        .hasMessageContaining("ip link show dev nosuch0")
        .hasMessageContaining("does not exist");
  }

  @Test
  void closeRemovesEveryNamespaceAndDeviceAndIsIdempotent() {
    Lab lab = Lab.create("LabLifecycleTest#close");
    List<Netns> made;
    try {
      Scenarios.s1GsoMismatch(lab, false);
      Scenarios.s2OffloadLost(lab, false);
      made = lab.namespaces();
      assertThat(made).hasSize(6);
      // the check sees a live lab: its namespaces by name, its devices by alias
      assertThat(lab.leftovers()).contains("namespace " + lab.prefix() + "-s1snd",
          "device snd0 in namespace " + lab.prefix() + "-s1snd",
          "device mv0 in namespace " + lab.prefix() + "-s2snd");
    } finally {
      lab.close();
    }
    lab.close();

    assertNothingLeft(lab, made);
    assertThatThrownBy(() -> lab.namespace("late")).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aFailureMidwayStillLeavesNothing() {
    Lab lab = Lab.create("LabLifecycleTest#midway");
    List<Netns> made = List.of();
    try (lab) {
      Scenarios.s1GsoMismatch(lab, false);
      Netns snd = lab.namespace("m1");
      Netns low = lab.namespace("m2");
      lab.veth(low, "low0", snd, "x0");
      made = lab.namespaces();
      lab.macvlan(snd, "mv0", low, "low0", "no-such-mode"); // ip refuses: the build breaks half-way
      throw new AssertionError("macvlan with mode no-such-mode was accepted");
    } catch (LabException expected) {
      assertThat(expected).hasMessageContaining("type macvlan mode no-such-mode");
    }

    assertThat(made).hasSize(5);
    assertNothingLeft(lab, made);
  }

  /** Runs a host command (read-only here) by its absolute path. */
  private static String run(String tool, String... args) {
    List<String> argv = new ArrayList<>(List.of(Tools.require(tool)));
    argv.addAll(List.of(args));
    return Command.run(argv);
  }

  private static void assertNothingLeft(Lab lab, List<Netns> made) {
    String list = run("ip", "netns", "list");
    for (Netns ns : made) {
      assertThat(list).doesNotContain(ns.name());
      assertThat(Files.exists(Path.of("/run/netns", ns.name()))).isFalse();
    }
    assertThat(lab.leftovers()).isEmpty();
    assertThat(Files.exists(LabOwner.file(lab.prefix()))).as("owner file released").isFalse();
    assertThat(Files.exists(LabOwner.workDir(lab.prefix()))).isFalse();
  }
}

package io.segscope.lab;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.testkit.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link Lab#sweepStale()} deletes only namespaces of labs whose owner process is dead and which no
 * process is inside. The test fakes a crashed lab by hand (owner file naming a dead pid) and removes
 * everything it made itself in a finally block.
 */
@LabTest
class LabSweepTest {
  private final List<String> namespaces = new ArrayList<>();
  private final List<String> prefixes = new ArrayList<>();

  @Test
  void sweepDeletesOnlyIdleNamespacesOfDeadOwners() throws Exception {
    Process holder = null;
    try {
      String dead = claim("sweep-test-dead");
      String alive = claim("sweep-test-alive");
      String unowned = unownedPrefix();
      Files.writeString(LabOwner.file(dead), "pid=" + deadPid() + "\nstart=1\ntag=sweep-test-dead\n");
      addNamespace(unowned + "-a");
      addNamespace(dead + "-a");
      addNamespace(dead + "-b");
      addNamespace(dead + "-held");
      addNamespace(alive + "-a");
      holder = new ProcessBuilder(Tools.require("ip"), "netns", "exec", dead + "-held",
          Tools.require("sleep"), "60").start();
      awaitInside(dead + "-held");

      List<String> swept = Lab.sweepStale();

      // another lab of this machine (a second test run, a developer's) sweeps at its start too and may
      // take some of the dead lab's namespaces first: what is gone is asserted, and that this sweep took
      // nothing it must not
      assertThat(swept).doesNotContain(dead + "-held", alive + "-a", unowned + "-a");
      assertThat(Netnses.exists(dead + "-a")).isFalse();
      assertThat(Netnses.exists(dead + "-b")).isFalse();
      assertThat(Netnses.exists(dead + "-held")).isTrue();
      assertThat(Netnses.exists(alive + "-a")).isTrue();
      assertThat(Netnses.exists(unowned + "-a")).isTrue();
      assertThat(LabOwner.file(dead)).as("owner kept while a namespace is held").exists();

      holder.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      Lab.sweepStale();
      assertThat(Netnses.exists(dead + "-held")).isFalse();
      assertThat(LabOwner.file(dead)).as("owner released once all its namespaces are gone").doesNotExist();
      assertThat(LabOwner.file(alive)).exists();
    } finally {
      if (holder != null) {
        holder.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
      for (String ns : namespaces) {
        if (Netnses.exists(ns)) {
          Command.run(List.of(Tools.require("ip"), "netns", "del", ns));
        }
      }
      prefixes.forEach(LabOwner::release);
    }
  }

  private String claim(String tag) {
    String p = LabOwner.claim(tag);
    prefixes.add(p);
    return p;
  }

  private void addNamespace(String name) {
    Command.run(List.of(Tools.require("ip"), "netns", "add", name));
    namespaces.add(name);
  }

  /** A prefix with neither owner file nor namespaces (its namespace, once made, keeps labs off it). */
  private static String unownedPrefix() {
    while (true) {
      String p = "sg" + HexFormat.of().toHexDigits((short) ThreadLocalRandom.current().nextInt(1 << 16));
      if (!Files.exists(LabOwner.file(p)) && !Netnses.anyWithPrefix(p)) {
        return p;
      }
    }
  }

  private static long deadPid() throws Exception {
    Process p = new ProcessBuilder(Tools.require("true")).start();
    p.waitFor(5, TimeUnit.SECONDS);
    assertThat(p.isAlive()).isFalse();
    return p.pid();
  }

  private static void awaitInside(String ns) throws InterruptedException {
    long inode = Netnses.inode(ns);
    Await.atMost(Duration.ofSeconds(2)).every(Duration.ofMillis(20)).until(() -> !Netnses.processesIn(inode).isEmpty());
    assertThat(Netnses.processesIn(inode)).as("a process inside %s", ns).isNotEmpty();
  }
}

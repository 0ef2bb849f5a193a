package io.segscope.agent.e2e;

import static io.segscope.testkit.PromText.labels;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.lab.Lab;
import io.segscope.lab.LabTest;
import io.segscope.lab.Netns;
import io.segscope.lab.UdpGsoSender;
import io.segscope.testkit.Await;
import io.segscope.testkit.PromText;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * Issue 12 item 5 on the real agent and kernel: counters of devices in a namespace the inventory
 * cannot follow are kept, a destroyed namespace's go away, and a namespace that reuses a destroyed
 * one's inode starts at zero. Software segmentation comes from the lab's UDP_SEGMENT sender on a veth
 * with tx-udp-segmentation off: every super-packet it sends is segmented in software on that veth, so
 * segscope_gso_sw_skbs_total of it equals the sender's count exactly.
 */
class NamespaceLifecycleIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SW = "segscope_gso_sw_skbs_total";
  private static final int GRACE_S = 3;

  private static Map<String, String> dev(long inode, String device) {
    return labels("netns", Long.toString(inode), "device", device);
  }

  /** A veth {@code dev} in {@code ns} to {@code peer} in {@code sink}, addressed, GSO for UDP done in software. */
  private static void link(Lab lab, Netns ns, String dev, Netns sink, String peer, int subnet) {
    lab.veth(ns, dev, sink, peer);
    lab.address(ns, dev, "198.18." + subnet + ".1/24");
    lab.address(sink, peer, "198.18." + subnet + ".2/24");
    lab.ethtoolK(ns, dev, "tx-udp-segmentation", "off");
  }

  private static int ifindex(Lab lab, Netns ns, String dev) throws Exception {
    JsonNode j = JSON.readTree(lab.exec(ns, "ip", "-j", "link", "show", "dev", dev));
    return j.get(0).path("ifindex").asInt();
  }

  /** Scrapes until {@code done} holds for a scrape whose read began after {@code after}; returns it. */
  private static PromText awaitScrape(AgentProcess agent, Instant after, Duration limit,
      Predicate<PromText> done, String what) throws Exception {
    PromText[] m = {null};
    return Await.atMost(limit).every(Duration.ofMillis(100)).pollOrFail(() -> {
      m[0] = agent.scrapeOfAReadStartedAfter(after, limit);
      return done.test(m[0]) ? Optional.of(m[0]) : Optional.empty();
    }, () -> what + " within " + limit + "; last scrape's segscope_gso_sw_skbs_total: "
        + (m[0] == null ? "none" : m[0].samples(SW)) + "\nlog:\n" + agent.log());
  }

  /** The file's text, or "" while it does not exist. */
  private static String read(Path p) throws IOException {
    try {
      return Files.readString(p);
    } catch (NoSuchFileException e) {
      return "";
    }
  }

  private static void ip(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("ip"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("%s: %s", cmd, out).isZero();
  }

  /**
   * Creates namespaces until one gets {@code inode}, the inode of a namespace just deleted. The kernel hands out
   * the lowest free namespace inode (one number space for every namespace type), but frees a deleted network
   * namespace's only when its asynchronous cleanup has run. A new namespace below {@code inode} fills a hole and
   * is kept; one above it means the inode is not free yet, and is deleted again so the number space does not
   * grow while we wait. Empty if the inode is not handed out within {@code limit}; {@code role} prefixes the
   * roles of the namespaces it makes.
   */
  private static Optional<Netns> awaitInodeReuse(Lab lab, String role, long inode, Duration limit,
      List<Long> seen) throws Exception {
    long start = System.nanoTime();
    long deadline = start + limit.toNanos();
    for (int i = 0; System.nanoTime() < deadline; i++) {
      Netns n = lab.namespace(role + i);
      if (n.inode() == inode) {
        System.out.printf("inode %d handed out again after %.1f s and %d namespaces%n", inode,
            (System.nanoTime() - start) / 1e9, i + 1);
        return Optional.of(n);
      }
      seen.add(n.inode());
      if (n.inode() > inode) {
        ip("netns", "delete", n.name());
        Thread.sleep(100); // paces the namespaces it makes while the kernel's cleanup runs; no condition to poll
      }
    }
    return Optional.empty();
  }

  /** Deleted namespace d, what it counted, its a0's ifindex, and the new namespace with its inode. */
  private record Reuse(Netns deleted, long sentD, int ifindex, Netns reused) {
  }

  /**
   * A namespace d counts on its a0, is deleted, and a new namespace takes its inode. Any
   * process on the host that makes a namespace (of any type) in the moment the inode is free takes it instead;
   * then this is tried again with a fresh namespace, up to three times. An inode /proc shows no holder of is not
   * freed (a socket, or the cleanup, holds the namespace): that fails at once, as does a holder that is the agent.
   */
  private static Reuse deleteAndReuse(Lab lab, AgentProcess agent, UdpGsoSender udp, Netns sink) throws Exception {
    List<String> attempts = new ArrayList<>();
    for (int attempt = 0; attempt < 3; attempt++) {
      Netns d = lab.namespace("d" + attempt);
      link(lab, d, "a0", sink, "sd" + attempt, 72 + attempt);
      long sentD = udp.send(d, "198.18." + (72 + attempt) + ".2", 9000, 1400, 63000, Duration.ofSeconds(2)).sends();
      awaitScrape(agent, Instant.now(), Duration.ofSeconds(30), m -> m.sum(SW, dev(d.inode(), "a0")) == sentD,
          "a0 in namespace " + d.name() + " counted " + sentD);
      int ifindex = ifindex(lab, d, "a0");
      ip("netns", "delete", d.name());
      List<Long> seen = new ArrayList<>();
      Optional<Netns> reused = awaitInodeReuse(lab, "r" + attempt + "x", d.inode(), Duration.ofSeconds(20), seen);
      if (reused.isPresent()) {
        return new Reuse(d, sentD, ifindex, reused.get());
      }
      List<String> holders = NamespaceInodeHolders.of(d.inode());
      String what = "no new namespace got deleted namespace " + d.name() + "'s inode " + d.inode()
          + " within 20 s; the inodes handed out instead: " + seen.subList(Math.max(0, seen.size() - 20), seen.size())
          + "; holders of the inode in /proc: " + (holders.isEmpty() ? "none (not freed)" : holders);
      System.out.println(what);
      attempts.add(what);
      boolean agentHolds = holders.stream().anyMatch(h -> h.startsWith("pid " + agent.pid() + " "));
      if (holders.isEmpty() || agentHolds) {
        break;
      }
    }
    throw new AssertionError(String.join("\n", attempts) + "\nlog:\n" + agent.log());
  }

  @Test
  @LabTest
  void heldNamespacesKeepTheirCountersDestroyedOnesLoseThemAndAReusedInodeStartsAtZero(Lab lab) throws Exception {
    Netns a = lab.namespace("a");
    Netns sink = lab.namespace("sink");
    link(lab, a, "a0", sink, "sa0", 71);
    UdpGsoSender udp = UdpGsoSender.build(lab.workDir());
    // the vanished-device grace shortened from 15 s to 3 s (and the holder recheck to 3 s) through the
    // hidden flag: the test waits past it, and two rechecks, in real time
    try (AgentProcess agent = AgentProcess.start("--vanished-device-grace", GRACE_S + "s", "--interval", "1s")) {
      agent.awaitReady(Duration.ofSeconds(120));

      // --- namespace a counts, then is held only by a file descriptor (no name, no process inside)
      long sentA = udp.send(a, "198.18.71.2", 9000, 1400, 63000, Duration.ofSeconds(1)).sends();
      assertThat(sentA).isPositive();
      PromText counted = awaitScrape(agent, Instant.now(), Duration.ofSeconds(30),
          m -> m.sum(SW, dev(a.inode(), "a0")) == sentA, "a0 in namespace a counted " + sentA);
      assertThat(counted.sum("segscope_device_info", labels("netns", Long.toString(a.inode()), "netns_name", a.name(),
          "device", "a0"))).as("the inventory follows namespace a and names it").isEqualTo(1);
      Process holder = new ProcessBuilder("sh", "-c", "exec 3</run/netns/" + a.name() + "; exec sleep 600").start();
      try {
        Path proc = Path.of("/proc", Long.toString(holder.pid()));
        String ino = "ino:\t" + a.inode();
        // settled once the shell has exec'd sleep (with fd 3 kept): while it execs, its fd 3 can vanish from
        // /proc for a moment (seen in a CI-like run: NoSuchFileException right after the fd was seen)
        Await.atMost(Duration.ofSeconds(10)).every(Duration.ofMillis(20))
            .until(() -> read(proc.resolve("comm")).strip().equals("sleep")
                && read(proc.resolve("fdinfo/3")).contains(ino));
        assertThat(read(proc.resolve("comm")).strip()).as("the holder runs sleep").isEqualTo("sleep");
        assertThat(read(proc.resolve("fdinfo/3"))).as("the holder has namespace a open as fd 3").contains(ino);
        ip("netns", "delete", a.name()); // unmounts /run/netns/<a>: only the fd holds it now
        Instant unnamed = Instant.now();
        awaitScrape(agent, unnamed, Duration.ofSeconds(30),
            m -> m.sum("segscope_device_info", labels("netns", Long.toString(a.inode()))) == 0,
            "the inventory stops following namespace a");
        // kept past the grace and two holder checks, with what the probes know
        PromText kept;
        do {
          kept = agent.scrapeOfAReadStartedAfter(Instant.now(), Duration.ofSeconds(30));
          assertThat(kept.sum(SW, dev(a.inode(), "a0"))).as("held namespace a keeps its counter").isEqualTo(sentA);
        } while (kept.sum("segscope_snapshot_timestamp_seconds", Map.of()) < unnamed.getEpochSecond() + 3 * GRACE_S
            + 2);
        assertThat(kept.samples(SW)).as("exported under its inode and the kernel's (BPF-recorded) name")
            .filteredOn(x -> x.labels().get("netns").equals(Long.toString(a.inode())))
            .singleElement().satisfies(x -> assertThat(x.labels()).containsEntry("device", "a0"));
        assertThat(kept.sum("segscope_device_info", labels("netns", Long.toString(a.inode()))))
            .as("no inventory record: the inventory cannot enter namespace a").isZero();
      } finally {
        holder.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      // --- the last holder is gone: namespace a is destroyed, its series go
      Instant destroyed = Instant.now();
      PromText gone = awaitScrape(agent, destroyed, Duration.ofSeconds(30),
          m -> m.samples(SW).stream().noneMatch(s -> s.labels().get("netns").equals(Long.toString(a.inode()))),
          "namespace a's series go once it is destroyed");
      System.out.printf("namespace a's series gone %.1f s after its last holder exited%n",
          gone.sum("segscope_snapshot_timestamp_seconds", Map.of()) - destroyed.toEpochMilli() / 1000.0);

      // --- namespace d counts, is deleted, and a new namespace takes its inode at once
      Reuse r = deleteAndReuse(lab, agent, udp, sink);
      Netns d = r.deleted();
      long sentD = r.sentD();
      Netns reused = r.reused();
      Instant created = Instant.now();
      link(lab, reused, "a0", sink, "sr0", 75);
      assertThat(ifindex(lab, reused, "a0")).as("same inode, same ifindex, same name: the same labels")
          .isEqualTo(r.ifindex());
      // the destroyed namespace's total is never shown for the new one: gone within a few reads
      awaitScrape(agent, created, Duration.ofSeconds(10),
          m -> m.sum(SW, dev(d.inode(), "a0")) == 0, "the old total leaves the reused inode's labels");
      long sentR = udp.send(reused, "198.18.75.2", 9000, 1400, 63000, Duration.ofSeconds(1)).sends();
      assertThat(sentR).isNotEqualTo(sentD);
      Instant sent = Instant.now();
      PromText fresh = awaitScrape(agent, sent, Duration.ofSeconds(30), m -> m.sum(SW, dev(d.inode(), "a0")) > 0,
          "the new namespace's a0 counted");
      assertThat(fresh.sum(SW, dev(d.inode(), "a0"))).as("the new namespace starts at zero: its own %d, not %d + %d",
          sentR, sentD, sentR).isEqualTo(sentR);
      assertThat(agent.stop()).isZero();
    }
  }
}

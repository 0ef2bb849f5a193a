package io.segscope.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.lab.Lab;
import io.segscope.lab.LabTest;
import io.segscope.lab.Netns;
import io.segscope.lab.Tools;
import io.segscope.testkit.Await;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12 item 7: device churn with the agent confined as the DaemonSet runs it. Three bursts of
 * 1,000 veth pairs (20 per namespace in 50 lab namespaces, made and removed with {@code ip -batch})
 * while /metrics is scraped every 200 ms: no scrape fails; 5 s after each burst the agent's device set
 * of every lab namespace equals what {@code ip -j link} lists there; within 20 s of the deletion the lab
 * namespaces' series are back to their number before the burst; the agent's RSS grows less than
 * 20 MiB over the bursts, measured once the agent has collected after the last deletion settled and
 * trimmed its C heap ({@code HeapRelease}'s log lines). Each burst's batches run in all namespaces at
 * once. Asserts only about this lab's namespaces (other labs may run beside it). The issue keeps it
 * under 3 minutes: the test fails (interrupted) at 3 minutes, the agent's start included (a run takes
 * about 35 s).
 */
@Tag("soak")
class ChurnSoakIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int NAMESPACES = 50;
  private static final int PAIRS_PER_NAMESPACE = 20;
  private static final int BURSTS = 3;
  private static final Pattern NETNS_LABEL = Pattern.compile("[{,]netns=\"(\\d+)\"");

  @TempDir
  Path tmp;

  @Test
  @LabTest
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void theConfinedAgentFollowsThreeBurstsOfAThousandVethPairs(Lab lab) throws Exception {
    Tool.UNSHARE.require();
    Tool.SETPRIV.require();
    List<Netns> spaces = new ArrayList<>();
    for (int i = 0; i < NAMESPACES; i++) {
      spaces.add(lab.namespace("c" + i));
    }
    Set<String> inodes = spaces.stream().map(n -> Long.toString(n.inode())).collect(Collectors.toSet());
    Path add = Files.writeString(lab.workDir().resolve("add.batch"), batch("link add c%d type veth peer name c%dp"));
    Path del = Files.writeString(lab.workDir().resolve("del.batch"), batch("link del c%d"));

    try (ConfinedAgent agent = ConfinedAgent.start(jar(), tmp, "--interval", "1s", "--max-devices", "20000")) {
      agent.awaitReady(Duration.ofSeconds(120));
      AtomicInteger scrapes = new AtomicInteger();
      AtomicInteger scrapeErrors = new AtomicInteger();
      AtomicReference<String> lastError = new AtomicReference<>("");
      AtomicReference<String> lastScrape = new AtomicReference<>("");
      Thread scraper = new Thread(() -> {
        while (!Thread.currentThread().isInterrupted()) {
          long next = System.nanoTime() + 200_000_000L;
          try {
            HttpResponse<String> r = agent.get("/metrics");
            scrapes.incrementAndGet();
            if (r.statusCode() != 200) {
              scrapeErrors.incrementAndGet();
              lastError.set("HTTP " + r.statusCode() + ": " + r.body());
            } else {
              lastScrape.set(r.body());
            }
          } catch (InterruptedException e) {
            return;
          } catch (Exception e) {
            scrapeErrors.incrementAndGet();
            lastError.set(e.toString());
          }
          long wait = next - System.nanoTime();
          if (wait > 0) {
            try {
              // the scraper's schedule, not a wait for a condition
              Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            } catch (InterruptedException e) {
              return;
            }
          }
        }
      }, "churn-scraper");
      scraper.setDaemon(true);
      scraper.start();
      try {
        awaitDeviceSetsMatch(agent, spaces, Duration.ofSeconds(10)); // each namespace's lo
        int baseline = awaitLabSeries(lastScrape, inodes, n -> n > 0, Duration.ofSeconds(10), "lab series present");
        // the start's collection and the C-heap trim on the read after it (HeapRelease) are behind us
        awaitLog(agent, l -> l.contains("trimmed the C heap"), Duration.ofSeconds(30), "the start's trim");
        long rssBefore = rssKiB(agent);
        SoftAssertions soft = new SoftAssertions(); // every figure of the run, not only the first miss
        long bursts0 = System.nanoTime();
        for (int burst = 1; burst <= BURSTS; burst++) {
          long t0 = System.nanoTime();
          inEveryNamespace(spaces, add);
          System.out.printf("burst %d: %d veth pairs in %d namespaces made in %d ms%n", burst,
              NAMESPACES * PAIRS_PER_NAMESPACE, NAMESPACES, (System.nanoTime() - t0) / 1_000_000);
          // how long the agent takes is measured up to 60 s (for the report), then held to 5 s
          long caughtUp = awaitDeviceSetsMatch(agent, spaces, Duration.ofSeconds(60));
          System.out.printf("burst %d: every lab namespace's device set matches %d ms after the burst; %s%n", burst,
              caughtUp, resyncs(agent));
          soft.assertThat(caughtUp).as("burst %d: ms until the agent's device sets equal the kernel's", burst)
              .isLessThanOrEqualTo(5000);
          long t1 = System.nanoTime();
          inEveryNamespace(spaces, del);
          long t2 = System.nanoTime(); // the last device deleted: "within 20 s of the deletion" counts from here
          int b = burst;
          awaitLabSeries(lastScrape, inodes, n -> n == baseline, Duration.ofSeconds(60),
              "burst " + b + ": the lab namespaces' series back to " + baseline + " after the deletion");
          long back = (System.nanoTime() - t2) / 1_000_000;
          System.out.printf("burst %d: deletion took %d ms; series back to baseline %d ms after it ended; RSS %d KiB%n",
              burst, (t2 - t1) / 1_000_000, back, rssKiB(agent));
          soft.assertThat(back).as("burst %d: ms until the series are back to baseline after the deletion", burst)
              .isLessThanOrEqualTo(20_000);
          long gone = awaitDeviceSetsMatch(agent, spaces, Duration.ofSeconds(60));
          soft.assertThat(gone).as("burst %d: ms until the agent's device sets equal the kernel's after the deletion",
              burst).isLessThanOrEqualTo(5000);
        }
        System.out.printf("the %d bursts took %d ms%n", BURSTS, (System.nanoTime() - bursts0) / 1_000_000);
        // measured once the agent has taken back what the last deletion left: the collection when the
        // device count settled, and the trim of the C heap on the read after it
        awaitLog(agent, l -> l.contains("devices settled"), Duration.ofSeconds(30),
            "the collection after the last deletion settled");
        awaitLog(agent, l -> l.contains("trimmed the C heap"), Duration.ofSeconds(30), "the trim after it");
        long rssAfter = rssKiB(agent);
        System.out.printf("RSS %d KiB before the bursts, %d KiB after (%+d KiB); %d scrapes, %d failed%n", rssBefore,
            rssAfter, rssAfter - rssBefore, scrapes.get(), scrapeErrors.get());
        // what the agent did with the heap the bursts grew (HeapRelease) and how it saw the bursts
        agent.log().lines().filter(
            l -> l.contains("released the heap") || l.contains("trimmed the C heap") || l.contains("followed a burst"))
            .forEach(System.out::println);
        soft.assertThat(scrapeErrors.get()).as("failed scrapes of %d (last: %s)", scrapes.get(), lastError.get())
            .isZero();
        soft.assertThat(scrapes.get()).as("scrapes every 200 ms during the bursts").isGreaterThan(50);
        soft.assertThat(rssAfter - rssBefore).as("RSS growth over %d bursts (KiB)", BURSTS).isLessThan(20 * 1024);
        soft.assertAll();
      } finally {
        scraper.interrupt();
        scraper.join(15_000);
      }
    }
  }

  /**
   * Runs {@code ip -n NS -batch FILE} in every lab namespace at once. One namespace after the other, the
   * deletion took 18 s a burst: each veth deletion waits for an RCU grace period, and only concurrent
   * deleters share them.
   */
  private static void inEveryNamespace(List<Netns> spaces, Path batch) throws Exception {
    List<Process> running = new ArrayList<>();
    for (Netns ns : spaces) {
      running.add(
          new ProcessBuilder(Tools.require("ip"), "-n", ns.name(), "-batch", batch.toString()).redirectErrorStream(true)
              .start());
    }
    for (int i = 0; i < running.size(); i++) {
      Process p = running.get(i);
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("ip -batch %s in %s within 60 s", batch, spaces.get(i).name())
          .isTrue();
      assertThat(p.exitValue()).as("ip -batch %s in %s: %s", batch, spaces.get(i).name(), out).isZero();
    }
  }

  private static String batch(String format) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < PAIRS_PER_NAMESPACE; i++) {
      b.append(String.format(format, i, i)).append('\n');
    }
    return b.toString();
  }

  /**
   * Waits until, in every lab namespace, the agent's device names equal {@code ip -j link}'s; returns the
   * milliseconds from the call to the /api/v1/devices answer that matched. The kernel's sets are read first
   * (the lab's namespaces change only through this test, and not while it waits) and read again after the
   * match to confirm that they did not change: 50 {@code ip} runs take seconds on a busy machine, and the
   * time the agent took must not include them again at every poll. The figure still includes the first read.
   */
  private static long awaitDeviceSetsMatch(ConfinedAgent agent, List<Netns> spaces, Duration limit)
      throws Exception {
    long start = System.nanoTime();
    long deadline = start + limit.toNanos();
    Map<Long, Set<String>> kernel = kernelDeviceSets(spaces);
    System.out.printf("  (the kernel's device sets of %d namespaces read in %d ms)%n", spaces.size(),
        (System.nanoTime() - start) / 1_000_000);
    AtomicReference<Map<Long, Set<String>>> expected = new AtomicReference<>(kernel);
    String[] mismatch = {null};
    return Await.atMost(Duration.ofNanos(Math.max(0, deadline - System.nanoTime()))).every(Duration.ofMillis(100))
        .pollOrFail(() -> {
          mismatch[0] = deviceSetMismatch(agent, expected.get(), spaces);
          long answered = System.nanoTime();
          if (mismatch[0] != null) {
            return Optional.empty();
          }
          Map<Long, Set<String>> again = kernelDeviceSets(spaces);
          if (again.equals(expected.get())) {
            return Optional.of((answered - start) / 1_000_000);
          }
          expected.set(again); // not expected: the sets changed while waiting; compare with the new ones
          mismatch[0] = "the kernel's device sets changed while waiting";
          return Optional.empty();
        }, () -> "device sets within " + limit + ": " + mismatch[0] + "\nlog:\n" + tail(agent.log()));
  }

  /** Every lab namespace's device names as {@code ip -n NAME -j link show} lists them, read 4 at a time. */
  private static Map<Long, Set<String>> kernelDeviceSets(List<Netns> spaces) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      Map<Long, Future<Set<String>>> pending = new LinkedHashMap<>();
      for (Netns ns : spaces) {
        pending.put(ns.inode(), pool.submit(() -> {
          Process p = new ProcessBuilder(Tools.require("ip"), "-n", ns.name(), "-j", "link", "show")
              .redirectError(ProcessBuilder.Redirect.DISCARD).start();
          byte[] out = p.getInputStream().readAllBytes();
          if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new AssertionError("ip -n " + ns.name() + " -j link show failed");
          }
          Set<String> names = new TreeSet<>();
          for (JsonNode l : JSON.readTree(out)) {
            names.add(l.path("ifname").asText());
          }
          return names;
        }));
      }
      Map<Long, Set<String>> sets = new HashMap<>();
      for (Map.Entry<Long, Future<Set<String>>> e : pending.entrySet()) {
        sets.put(e.getKey(), e.getValue().get());
      }
      return sets;
    } finally {
      pool.shutdownNow();
    }
  }

  /** The first lab namespace whose devices in the agent's API differ from the kernel's, or null. */
  private static String deviceSetMismatch(ConfinedAgent agent, Map<Long, Set<String>> kernel, List<Netns> spaces)
      throws Exception {
    HttpResponse<String> r = agent.get("/api/v1/devices");
    if (r.statusCode() != 200) {
      return "/api/v1/devices: HTTP " + r.statusCode();
    }
    Map<Long, Set<String>> seen = new HashMap<>();
    for (JsonNode d : JSON.readTree(r.body()).path("devices")) {
      seen.computeIfAbsent(d.path("netns").asLong(), k -> new TreeSet<>()).add(d.path("name").asText());
    }
    for (Netns ns : spaces) {
      Set<String> inKernel = kernel.get(ns.inode());
      Set<String> agentSet = seen.getOrDefault(ns.inode(), Set.of());
      if (!inKernel.equals(agentSet)) {
        return ns.name() + ": kernel " + inKernel.size() + " devices, agent " + agentSet.size();
      }
    }
    return null;
  }

  /**
   * Waits until a line of the agent's log after its last "released the heap" line satisfies
   * {@code line}, or that line itself does.
   */
  private static void awaitLog(ConfinedAgent agent, java.util.function.Predicate<String> line, Duration limit,
      String what) throws Exception {
    Await.atMost(limit).every(Duration.ofMillis(100)).untilOrFail(() -> {
      List<String> lines = agent.log().lines().toList();
      int from = 0;
      for (int i = 0; i < lines.size(); i++) {
        if (lines.get(i).contains("released the heap (")) {
          from = i;
        }
      }
      return lines.subList(from, lines.size()).stream().anyMatch(line);
    }, () -> what + ": not in the agent's log within " + limit + "\n" + tail(agent.log()));
  }

  /** Waits until the number of samples labelled with a lab namespace in the latest scrape satisfies {@code ok}. */
  private static int awaitLabSeries(AtomicReference<String> lastScrape, Set<String> inodes,
      IntPredicate ok, Duration limit, String what) throws InterruptedException {
    long start = System.nanoTime();
    boolean[] told = {false};
    int[] n = {-1};
    return Await.atMost(limit).every(Duration.ofMillis(100)).pollOrFail(() -> {
      String scrape = lastScrape.get();
      n[0] = labSeries(scrape, inodes);
      if (ok.test(n[0])) {
        return Optional.of(n[0]);
      }
      if (!told[0] && System.nanoTime() - start > 20_000_000_000L) { // past the bound
        told[0] = true; // which families linger, for the report
        System.out.println(what + ": still there after 20 s: " + labFamilies(scrape, inodes));
      }
      return Optional.empty();
    }, () -> what + " within " + limit + ": " + n[0] + " series");
  }

  /** The number of lab samples per family (for a message). */
  static Map<String, Integer> labFamilies(String scrape, Set<String> inodes) {
    Map<String, Integer> out = new TreeMap<>();
    for (String line : scrape.split("\n")) {
      Matcher m = NETNS_LABEL.matcher(line);
      if (!line.startsWith("#") && m.find() && inodes.contains(m.group(1))) {
        out.merge(line.substring(0, line.indexOf('{')), 1, Integer::sum);
      }
    }
    return out;
  }

  static int labSeries(String scrape, Set<String> inodes) {
    int n = 0;
    for (String line : scrape.split("\n")) {
      if (line.startsWith("#")) {
        continue;
      }
      Matcher m = NETNS_LABEL.matcher(line);
      if (m.find() && inodes.contains(m.group(1))) {
        n++;
      }
    }
    return n;
  }

  /** The agent's segscope_inventory_resyncs_total samples, for the log. */
  private static String resyncs(ConfinedAgent agent) throws Exception {
    return agent.get("/metrics").body().lines().filter(l -> l.startsWith("segscope_inventory_resyncs_total"))
        .collect(Collectors.joining(", "));
  }

  private static long rssKiB(ConfinedAgent agent) throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/" + agent.pid() + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("\\D", ""));
      }
    }
    throw new AssertionError("read /proc/" + agent.pid() + "/status: no VmRSS line");
  }

  private static String tail(String log) {
    String[] lines = log.split("\n");
    return String.join("\n", Arrays.asList(lines).subList(Math.max(0, lines.length - 40), lines.length));
  }

  private static Path jar() {
    String p = System.getProperty("segscope.jar");
    assertThat(p != null && Files.isRegularFile(Path.of(p)))
        .as("the agent jar (system property segscope.jar=%s): run with 'mvn verify'", p).isTrue();
    return Path.of(p);
  }
}

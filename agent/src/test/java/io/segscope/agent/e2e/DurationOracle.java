package io.segscope.agent.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.lab.Prerequisites;
import io.segscope.lab.Tools;
import io.segscope.testkit.Await;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Every single duration of one kind of kernel event, measured by a bpftrace program that shares no
 * code, map or logic with segscope (written from the kernel's source: what the event is, where it
 * starts and ends), and kept exactly: one map entry per event (its start time in the key, its end
 * time as the value), not a histogram. The oracle of the duration-quantile tests.
 *
 * <ul>
 *   <li>{@link #segmentation}: a GSO super-packet segmented in software on transmit, on one device
 *       (netns inode + ifindex), from {@code net:net_dev_queue} of that skb on the device to the
 *       {@code skb:consume_skb} that frees the original at a {@code validate_xmit_skb*} call site (the
 *       kernel frees it right after {@code __skb_gso_segment} returned there); the skb still carries
 *       its {@code gso_size}. Needs the tracepoint's {@code location} (kernel 6.3+).
 *   <li>{@link #genericXdpCopy}: a received skb that generic XDP copied before running the program
 *       (kernel 5.15 to 6.8, where {@code do_xdp_generic} takes the skb itself), from the entry of
 *       {@code do_xdp_generic} with a program to the entry of {@code bpf_prog_run_generic_xdp} for the
 *       same skb on the same CPU; "copied" is observed, not predicted: the skb's data moved
 *       ({@code skb->head} differs), which {@code netif_receive_generic_xdp}'s
 *       {@code pskb_expand_head} always does when it copies and never otherwise.
 * </ul>
 *
 * <p>Both tools time the same event with their own programs on the same hooks, so each one's
 * program cost falls partly inside the other's interval; the order the kernel runs them in decides
 * which part. The scripts take their timestamps where that share is smallest, for the order the
 * tests set up:
 *
 * <ul>
 *   <li>segmentation (tracepoints): the oracle runs first at both ends ({@link
 *       #holdingPerfTracepoints}, held from before the agent attaches). Building the perf record of
 *       {@code net_dev_queue}, the costliest part, then lies before both intervals; what differs is
 *       segscope's program before its own timestamps and the oracle's work after its own. That work
 *       is one map update at each end, made alike: each end first makes its map entry, then takes its
 *       time and writes it into that entry (an update of a key just written, in cache). Written
 *       once, after the time, the costlier write (a new key in the large {@code @end}) lay inside
 *       segscope's interval at the end and the cheaper one outside it at the start: measured on the
 *       2-core VM with a second timestamp after the write, median 521 vs 381 ns, 99.9th percentile
 *       25 vs 2.7 µs; written twice, the second write costs 150 vs 140 ns. A step slow in 0.1 % of
 *       the events at one end only moves the p99 by µs where the tail is sparse;
 *   <li>generic XDP (guest kernel, kprobe or fentry mode; the oracle started after the agent): at the
 *       entry the oracle's fentry program runs after segscope's program (ftrace calls direct
 *       trampolines after kprobe handlers; fentry programs run in attach order) and takes its time
 *       first; at the end its kprobe runs before segscope's program (newer first in an aggregated
 *       kprobe, before the trampoline), reads everything first and takes its time last.
 * </ul>
 */
final class DurationOracle implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Distinct (key, duration) pairs the oracle can hold; the tests check it did not run out. */
  private static final int MAP_KEYS = 262_144;

  private final Process process;
  private final Path dir;

  private DurationOracle(Process process, Path dir) {
    this.process = process;
    this.dir = dir;
  }

  /** What the oracle measured: per key (see the factories), every duration in ns with its count. */
  record Durations(Map<String, TreeMap<Long, Long>> byKey) {
    /** The durations of {@code key}, value -> occurrences (empty when none). */
    TreeMap<Long, Long> of(String key) {
      return byKey.getOrDefault(key, new TreeMap<>());
    }
  }

  /**
   * Segmentation on the device with {@code ifindex} in the namespace with inode {@code netns}; keyed
   * by the consume call site's function name (only {@code validate_xmit_skb*} is segmentation).
   * Meant to run with {@link #holdingPerfTracepoints} held since before the agent attached.
   */
  static DurationOracle segmentation(long netns, int ifindex, Duration timeout) throws Exception {
    String onDevice = "$skb->dev->ifindex == " + ifindex + " && $skb->dev->nd_net.net->ns.inum == " + netns;
    return start(String.join("\n",
        "tracepoint:net:net_dev_queue",
        "{",
        "  $skb = (struct sk_buff *)args->skbaddr;",
        "  if (" + onDevice + ") {",
        "    @queued[args->skbaddr] = nsecs;",
        "    @queued[args->skbaddr] = nsecs;",
        "  }",
        "}",
        "tracepoint:skb:consume_skb",
        "/@queued[args->skbaddr]/",
        "{",
        "  $start = @queued[args->skbaddr];",
        "  $skb = (struct sk_buff *)args->skbaddr;",
        "  $sh = (struct skb_shared_info *)($skb->head + $skb->end);",
        "  if ($sh->gso_size > 0 && " + onDevice + ") {",
        "    $loc = args->location;",
        "    @end[ksym($loc), args->skbaddr, $start] = nsecs;",
        "    @end[ksym($loc), args->skbaddr, $start] = nsecs;",
        "  }",
        "}",
        "END { clear(@queued); }",
        ""), timeout);
  }

  /** Generic-XDP copies on every device, keyed by "netns inode,device name". */
  static DurationOracle genericXdpCopy(Duration timeout) throws Exception {
    return start(String.join("\n",
        "kfunc:do_xdp_generic",
        "/args->xdp_prog != 0/",
        "{",
        "  @entry[cpu] = (nsecs, (uint64)args->skb, (uint64)args->skb->head);",
        "}",
        "kprobe:bpf_prog_run_generic_xdp",
        "{",
        "  $skb = (struct sk_buff *)arg0;",
        "  $entry = @entry[cpu];",
        "  if ($entry.0 != 0 && $entry.1 == arg0 && (uint64)$skb->head != $entry.2) {",
        "    $dev = $skb->dev;",
        "    @end[$dev->nd_net.net->ns.inum, $dev->name, cpu, $entry.0] = nsecs;",
        "  }",
        "}",
        "END { clear(@entry); }",
        ""), timeout);
  }

  /**
   * Holds a perf event with an empty program on each tracepoint until closed. The kernel registers
   * a tracepoint's perf probe when the first perf event on it opens and keeps it in place while one
   * is open; probes of equal priority run in the order they were registered, and every bpftrace
   * program on that tracepoint runs from that one perf probe. Held from before the agent attaches,
   * the oracle's tracepoint programs run before segscope's.
   */
  static DurationOracle holdingPerfTracepoints(Duration timeout, String... tracepoints) throws Exception {
    StringBuilder script = new StringBuilder();
    for (String t : tracepoints) {
      script.append("tracepoint:").append(t).append(" {}\n");
    }
    return start(script.toString(), timeout);
  }

  /**
   * Runs bpftrace with {@code -c}: bpftrace starts that command only once every probe is attached
   * (its "attached_probes" message comes before the attaching, and BEGIN runs before it too). The
   * command marks the oracle ready and waits; ending it ends bpftrace, which then prints its maps.
   */
  private static DurationOracle start(String script, Duration timeout) throws Exception {
    Prerequisites.requireTool("bpftrace", "the independent duration oracle");
    Path dir = Files.createTempDirectory("segscope-duration-oracle");
    Path file = dir.resolve("durations.bt");
    Files.writeString(file, script);
    Path hold = dir.resolve("hold.sh");
    Files.writeString(hold, String.join("\n", "#!/bin/sh", ": > \"$(dirname \"$0\")/ready\"", "exec sleep 3600", ""));
    ProcessBuilder pb = new ProcessBuilder(Tools.require("bpftrace"), "-k", "-f", "json", "-c", "/bin/sh " + hold,
        file.toString()).redirectOutput(dir.resolve("out.json").toFile())
        .redirectError(dir.resolve("err.txt").toFile());
    pb.environment().put("BPFTRACE_MAP_KEYS_MAX", Integer.toString(MAP_KEYS));
    DurationOracle o = new DurationOracle(pb.start(), dir);
    boolean ready = Await.atMost(timeout).every(Duration.ofMillis(50)).until(() -> {
      if (Files.exists(dir.resolve("ready"))) {
        return true;
      }
      if (!o.process.isAlive()) {
        String err = o.stderr();
        o.close();
        throw new AssertionError("start the bpftrace duration oracle: exited " + o.process.exitValue() + ": " + err
            + "\nscript:\n" + script);
      }
      return false;
    });
    if (ready) {
      return o;
    }
    String err = o.stderr();
    o.close();
    throw new AssertionError("start the bpftrace duration oracle: not attached within " + timeout + ": " + err);
  }

  /** The bpftrace process's id (its programs' owner in {@code bpftool perf list}). */
  long pid() {
    return process.pid();
  }

  /**
   * Stops the oracle (ends its command: bpftrace then prints its maps) and returns what it measured;
   * fails if a map update failed (bpftrace -k reports it), e.g. the duration map ran out of room.
   */
  Durations stop() throws Exception {
    process.descendants().forEach(ProcessHandle::destroy);
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      close();
      throw new AssertionError("stop the bpftrace duration oracle: no exit within 60 s of its command's end");
    }
    Map<String, TreeMap<Long, Long>> byKey = new TreeMap<>();
    long helperErrors = 0;
    for (JsonNode n : records()) {
      if (n.path("type").asText().equals("helper_error")) {
        helperErrors++;
      }
      if (!n.path("type").asText().equals("map") || !n.path("data").has("@end")) {
        continue;
      }
      // key: the event's key fields, then (skb or cpu), then the start time; value: the end time
      n.path("data").path("@end").fields().forEachRemaining(e -> {
        String k = e.getKey();
        int startAt = k.lastIndexOf(',');
        int uniqueAt = k.lastIndexOf(',', startAt - 1);
        long duration = e.getValue().asLong() - Long.parseLong(k.substring(startAt + 1));
        byKey.computeIfAbsent(k.substring(0, uniqueAt), x -> new TreeMap<>()).merge(duration, 1L, Long::sum);
      });
    }
    if (helperErrors > 0) {
      throw new AssertionError("the duration oracle lost measurements: " + helperErrors + " failed map updates"
          + " (its maps hold " + MAP_KEYS + " keys)");
    }
    return new Durations(byKey);
  }

  private List<JsonNode> records() {
    List<JsonNode> out = new ArrayList<>();
    try {
      for (String l : Files.readAllLines(dir.resolve("out.json"), StandardCharsets.UTF_8)) {
        if (l.startsWith("{")) {
          try {
            out.add(JSON.readTree(l));
          } catch (IOException e) {
            // a line still being written
          }
        }
      }
    } catch (IOException e) {
      return List.of();
    }
    return out;
  }

  String stderr() {
    try {
      return Files.readString(dir.resolve("err.txt")).strip();
    } catch (IOException e) {
      return "(no stderr: " + e.getMessage() + ")";
    }
  }

  @Override
  public void close() throws IOException {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    if (process.isAlive()) {
      process.destroyForcibly();
    }
    try (var files = Files.list(dir)) {
      for (Path f : files.toList()) {
        Files.deleteIfExists(f);
      }
    }
    Files.deleteIfExists(dir);
  }
}

package io.segscope.agent.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.lab.DeviceAt;
import io.segscope.lab.Prerequisites;
import io.segscope.lab.Tools;
import io.segscope.testkit.Await;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * What the kernel did, counted by a bpftrace program that shares no code, map or logic with segscope
 * (written from the kernel source as docs/kernel.md describes it, not from segscope's programs):
 *
 * <ul>
 *   <li>software GSO, kernel 6.3+: every skb freed by {@code consume_skb} that still carries a GSO size
 *       is the original of a super-packet the kernel just segmented on the CPU, in the function that
 *       called {@code skb_gso_segment} (the tracepoint's {@code location}: {@code validate_xmit_skb*},
 *       {@code __ip_finish_output}, {@code tbf_enqueue}, {@code udp_queue_rcv_skb}, ...; kept per
 *       function, the test says which functions make its site); its {@code gso_segs} segments, or for
 *       skbs that carry none (virtio-net headers) its payload after the headers divided by
 *       {@code gso_size}, as {@code tcp_gso_segment} cuts it; its {@code len} bytes. tbf frees the
 *       original with {@code kfree_skb} instead when it dropped every segment: those are kept apart
 *       ({@link Counts#segmentedThenFreed});
 *   <li>software GSO, kernels without that field but with kprobes (the 6.1 guest): every call of
 *       {@code __skb_gso_segment} on a skb with a GSO size that returned a segment list, by the
 *       function it returns to;
 *   <li>optionally, every skb handed to a driver ({@code net:net_dev_start_xmit}), whole super-packets
 *       (GSO size set) apart: what "offloaded" must equal;
 *   <li>generic XDP: every skb at {@code net:netif_receive_skb} on a device with a generic XDP program
 *       ({@code dev->xdp_prog}), not redirected, classified by the kernel's copy predicate
 *       (netif_receive_generic_xdp): cloned with a shared data area, nonlinear, or less than
 *       XDP_PACKET_HEADROOM (256) bytes of headroom in front of the MAC header (6.9+; before 6.9 the
 *       headroom in front of {@code skb->data}) — copied, else passed; bytes as {@code len} (without
 *       the MAC header, as at the tracepoint) and as the frame ({@code len} + MAC header).
 * </ul>
 */
public final class KernelOracle implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** How the oracle sees software segmentation on this kernel. */
  enum GsoSource { CONSUME_SKB, KPROBE, NONE }

  /** Counts of software segmentation on one device. */
  public record Gso(long skbs, long segments, long bytes) {
    static final Gso NONE = new Gso(0, 0, 0);

    Gso plus(Gso o) {
      return new Gso(skbs + o.skbs, segments + o.segments, bytes + o.bytes);
    }
  }

  /** Generic-XDP skbs on one device by the copy predicate. */
  record Xdp(long copied, long passed, long copiedLenBytes, long copiedFrameBytes, long maxLen) {}

  /** skbs one device's driver was handed: all of them, and those that were GSO super-packets. */
  record Xmit(long skbs, long superPackets) {}

  /**
   * The oracle's maps after it stopped.
   *
   * @param gsoByFunction software segmentation per function (kallsyms name) and device key
   * @param segmentedThenFreed the originals freed with kfree_skb, per function and device key
   * @param recursionMisses events the kernel did not run the oracle's programs for (another BPF program
   *     was running on the CPU), -1 if unknown
   */
  public record Counts(Map<String, Map<String, Gso>> gsoByFunction, Map<String, Map<String, Gso>> segmentedThenFreed,
      Map<String, Xdp> xdp, Map<String, Xmit> xmit, GsoSource source, long recursionMisses) {
    boolean gsoCounted() {
      return source != GsoSource.NONE;
    }

    /** Segmentation on {@code d} at {@code validate_xmit_skb} (or its clones). */
    public Gso gso(DeviceAt d) {
      return gso(d, Sites.XMIT);
    }

    /** Segmentation on {@code d} in the functions {@code inSite} accepts (tbf's kfree'd originals included). */
    Gso gso(DeviceAt d, Predicate<String> inSite) {
      String k = key(d.ns().inode(), d.name());
      Gso total = Gso.NONE;
      for (Map.Entry<String, Map<String, Gso>> f : gsoByFunction.entrySet()) {
        if (inSite.test(f.getKey())) {
          total = total.plus(f.getValue().getOrDefault(k, Gso.NONE));
        }
      }
      for (Map.Entry<String, Map<String, Gso>> f : segmentedThenFreed.entrySet()) {
        if (inSite.test(f.getKey()) && Sites.FREES_AFTER_SEGMENTING.test(f.getKey())) {
          total = total.plus(f.getValue().getOrDefault(k, Gso.NONE));
        }
      }
      return total;
    }

    /** The functions the oracle saw {@code d}'s super-packets freed in, with their counts (for messages). */
    Map<String, Gso> functions(DeviceAt d) {
      String k = key(d.ns().inode(), d.name());
      Map<String, Gso> out = new TreeMap<>();
      gsoByFunction.forEach((f, m) -> {
        if (m.containsKey(k)) {
          out.put(f, m.get(k));
        }
      });
      segmentedThenFreed.forEach((f, m) -> {
        if (m.containsKey(k) && Sites.FREES_AFTER_SEGMENTING.test(f)) {
          out.put(f + " (kfree_skb)", m.get(k));
        }
      });
      return out;
    }

    Xdp xdp(DeviceAt d) {
      return xdp.getOrDefault(key(d.ns().inode(), d.name()), new Xdp(0, 0, 0, 0, 0));
    }

    Xmit xmit(DeviceAt d) {
      return xmit.getOrDefault(key(d.ns().inode(), d.name()), new Xmit(0, 0));
    }
  }

  /**
   * Which kernel functions make each site, from the kernel source (the functions that call
   * skb_gso_segment and free the original, and those the compiler inlines them into on 6.1/6.18).
   */
  static final class Sites {
    private Sites() {}

    static final Predicate<String> XMIT =
        f -> f.startsWith("validate_xmit_skb") && !f.startsWith("validate_xmit_skb_list");
    static final Predicate<String> IP_OUTPUT_MTU = in("ip_finish_output_gso", "__ip_finish_output", "ip_finish_output",
        "ip6_finish_output_gso_slowpath_drop", "__ip6_finish_output", "ip6_finish_output");
    static final Predicate<String> QDISC = in("tbf_segment", "tbf_enqueue", "netem_segment", "netem_enqueue",
        "cake_enqueue", "taprio_enqueue_segmented", "taprio_enqueue");
    static final Predicate<String> UDP_RX = in("udp_rcv_segment", "udp_queue_rcv_skb", "udpv6_queue_rcv_skb");
    static final Predicate<String> WIREGUARD = in("wg_xmit");
    /** tbf_segment frees the original with kfree_skb when it dropped every segment (6.1, 6.18). */
    static final Predicate<String> FREES_AFTER_SEGMENTING = in("tbf_segment", "tbf_enqueue");

    private static Predicate<String> in(String... names) {
      Set<String> s = Set.of(names);
      return f -> s.contains(f) || s.stream().anyMatch(n -> f.startsWith(n + "."));
    }
  }

  private final Process process;
  private final Path dir;
  private final GsoSource source;

  private KernelOracle(Process process, Path dir, GsoSource source) {
    this.process = process;
    this.dir = dir;
    this.source = source;
  }

  public static KernelOracle start(Duration timeout) throws Exception {
    return start(timeout, false);
  }

  /**
   * Starts the oracle and waits until its probes are attached (skips, or fails on CI, without bpftrace);
   * {@code countXmit}: also count what every device's driver is handed (one event per packet: only for
   * the tests that need it).
   */
  static KernelOracle start(Duration timeout, boolean countXmit) throws Exception {
    Prerequisites.requireTool("bpftrace", "the independent kernel oracle");
    int[] version = kernelVersion();
    GsoSource source = atLeast(version, 6, 3) ? GsoSource.CONSUME_SKB
        : Files.isDirectory(Path.of("/sys/bus/event_source/devices/kprobe")) ? GsoSource.KPROBE : GsoSource.NONE;
    Path dir = Files.createTempDirectory("segscope-oracle");
    Path script = dir.resolve("oracle.bt");
    Files.writeString(script, script(source, atLeast(version, 6, 9), countXmit));
    Process p = new ProcessBuilder(Tools.require("bpftrace"), "-f", "json", script.toString())
        .redirectOutput(dir.resolve("out.json").toFile()).redirectError(dir.resolve("err.txt").toFile()).start();
    KernelOracle o = new KernelOracle(p, dir, source);
    boolean attached = Await.atMost(timeout).every(Duration.ofMillis(50)).until(() -> {
      for (JsonNode n : o.records()) {
        if (n.path("type").asText().equals("attached_probes")) {
          return true;
        }
      }
      if (!p.isAlive()) {
        String err = o.stderr();
        o.close();
        throw new AssertionError("start the bpftrace oracle: exited " + p.exitValue() + ": " + err);
      }
      return false;
    });
    if (attached) {
      return o;
    }
    String err = o.stderr();
    o.close();
    throw new AssertionError("start the bpftrace oracle: not attached within " + timeout + ": " + err);
  }

  /**
   * Segments of a super-packet whose skb carries no gso_segs (SKB_GSO_DODGY: virtio-net headers):
   * tcp_gso_segment / __udp_gso_segment cut what follows the TCP (doff words) or UDP (8 bytes) header
   * into gso_size pieces; skb->data is at the MAC header when the original is freed or segmented.
   */
  private static final String SEGMENTS = """
      $segs = (uint64)$sh->gso_segs;
      if ($segs == 0) {
        $th = (uint64)$skb->transport_header;
        $hl = (uint64)0;
        if ($sh->gso_type & (SKB_GSO_TCPV4 | SKB_GSO_TCPV6)) {
          $hl = $th - $skb->mac_header + ((*(uint8 *)($skb->head + $th + 12)) >> 4) * 4;
        } else if ($sh->gso_type & SKB_GSO_UDP_L4) {
          $hl = $th - $skb->mac_header + 8;
        }
        $segs = ($skb->len - $hl + $sh->gso_size - 1) / $sh->gso_size;
      }
      """;

  static String script(GsoSource source, boolean headroomFromMacHeader, boolean countXmit) {
    String headroom = headroomFromMacHeader ? "$skb->mac_header"
        : "((uint64)$skb->data - (uint64)$skb->head)";
    StringBuilder s = new StringBuilder();
    if (source == GsoSource.CONSUME_SKB) {
      for (String[] tp : new String[][] {{"consume_skb", "@gso"}, {"kfree_skb", "@freed"}}) {
        s.append("""
            tracepoint:skb:TP
            {
              $skb = (struct sk_buff *)args->skbaddr;
              $sh = (struct skb_shared_info *)($skb->head + $skb->end);
              if ($sh->gso_size > 0 && $skb->dev != 0) {
                $dev = $skb->dev;
                $ns = $dev->nd_net.net->ns.inum;
            SEGMENTS
                MAP_skbs[ksym(args->location), $ns, $dev->name] = count();
                MAP_segs[ksym(args->location), $ns, $dev->name] = sum($segs);
                MAP_bytes[ksym(args->location), $ns, $dev->name] = sum($skb->len);
              }
            }
            """.replace("TP", tp[0]).replace("MAP", tp[1]).replace("SEGMENTS", SEGMENTS));
      }
    } else if (source == GsoSource.KPROBE) {
      s.append("""
          kprobe:__skb_gso_segment
          {
            $skb = (struct sk_buff *)arg0;
            $sh = (struct skb_shared_info *)($skb->head + $skb->end);
            if ($sh->gso_size > 0 && $skb->dev != 0) {
          SEGMENTS
              @in_ret[tid] = *(uint64 *)reg("sp");
              @in_dev[tid] = (uint64)$skb->dev;
              @in_len[tid] = (uint64)$skb->len;
              @in_segs[tid] = $segs;
            }
          }
          kretprobe:__skb_gso_segment
          /@in_dev[tid] != 0/
          {
            if ((int64)retval < -4095) {
              $dev = (struct net_device *)@in_dev[tid];
              $ns = $dev->nd_net.net->ns.inum;
              @gso_skbs[ksym(@in_ret[tid]), $ns, $dev->name] = count();
              @gso_segs[ksym(@in_ret[tid]), $ns, $dev->name] = sum(@in_segs[tid]);
              @gso_bytes[ksym(@in_ret[tid]), $ns, $dev->name] = sum(@in_len[tid]);
            }
            delete(@in_ret[tid]);
            delete(@in_dev[tid]);
            delete(@in_len[tid]);
            delete(@in_segs[tid]);
          }
          """.replace("SEGMENTS", SEGMENTS));
    }
    if (countXmit) {
      s.append("""
          tracepoint:net:net_dev_start_xmit
          {
            $skb = (struct sk_buff *)args->skbaddr;
            $sh = (struct skb_shared_info *)($skb->head + $skb->end);
            $dev = $skb->dev;
            $ns = $dev->nd_net.net->ns.inum;
            @xmit_skbs[$ns, $dev->name] = count();
            if ($sh->gso_size > 0) {
              @xmit_super[$ns, $dev->name] = count();
            }
          }
          """);
    }
    s.append("""
        tracepoint:net:netif_receive_skb
        {
          $skb = (struct sk_buff *)args->skbaddr;
          $dev = $skb->dev;
          if ($dev->xdp_prog != 0 && $skb->redirected == 0) {
            $sh = (struct skb_shared_info *)($skb->head + $skb->end);
            $ns = $dev->nd_net.net->ns.inum;
            $mac = (uint64)$skb->data - (uint64)$skb->head - $skb->mac_header;
            if (($skb->cloned && ($sh->dataref.counter & 0xffff) != 1) || $skb->data_len != 0
                || HEADROOM < 256) {
              @xdp_copied[$ns, $dev->name] = count();
              @xdp_copied_len[$ns, $dev->name] = sum($skb->len);
              @xdp_copied_frame[$ns, $dev->name] = sum($skb->len + $mac);
              @xdp_max_len[$ns, $dev->name] = max($skb->len);
            } else {
              @xdp_passed[$ns, $dev->name] = count();
            }
          }
        }
        """.replace("HEADROOM", headroom));
    return s.toString();
  }

  static final int STOP_LIMIT_SECONDS = 120;

  /** Stops the oracle (SIGTERM: bpftrace prints its maps) and returns its counts. */
  public Counts stop() throws Exception {
    long missed = recursionMisses();
    process.destroy();
    // detaching and printing takes bpftrace seconds under emulation (two guests on two cores, a
    // per-packet probe): a bound for a hung oracle, not a measurement. One CI-like run of 2026-12-04 saw
    // bpftrace not exit within 120 s of SIGTERM on the host: it is then asked once more with SIGINT (its
    // Ctrl-C) before it is given up, with where its threads wait
    if (!process.waitFor(STOP_LIMIT_SECONDS / 2, TimeUnit.SECONDS)) {
      String stuck = threadsOf(process.pid());
      System.out.printf("bpftrace oracle (pid %d) still running %d s after SIGTERM; its threads: %s; sending SIGINT%n",
          process.pid(), STOP_LIMIT_SECONDS / 2, stuck);
      new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).inheritIO().start().waitFor(10,
          TimeUnit.SECONDS);
      if (!process.waitFor(STOP_LIMIT_SECONDS / 2, TimeUnit.SECONDS)) {
        String still = threadsOf(process.pid());
        process.destroyForcibly();
        throw new AssertionError("stop the bpftrace oracle: no exit within " + STOP_LIMIT_SECONDS
            + " s of SIGTERM and SIGINT; its threads after SIGTERM: " + stuck + "; after SIGINT: " + still
            + "; stderr: " + stderr());
      }
    }
    Map<String, Map<String, Long>> maps = new HashMap<>();
    for (JsonNode n : records()) {
      if (!n.path("type").asText().equals("map")) {
        continue;
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = n.path("data").fields(); it.hasNext();) {
        Map.Entry<String, JsonNode> m = it.next();
        Map<String, Long> values = new HashMap<>();
        m.getValue().fields().forEachRemaining(e -> values.put(e.getKey(), e.getValue().asLong()));
        maps.put(m.getKey(), values);
      }
    }
    Map<String, Xdp> xdp = new HashMap<>();
    Set<String> devices = new HashSet<>();
    devices.addAll(maps.getOrDefault("@xdp_copied", Map.of()).keySet());
    devices.addAll(maps.getOrDefault("@xdp_passed", Map.of()).keySet());
    for (String d : devices) {
      xdp.put(d, new Xdp(value(maps, "@xdp_copied", d), value(maps, "@xdp_passed", d),
          value(maps, "@xdp_copied_len", d), value(maps, "@xdp_copied_frame", d), value(maps, "@xdp_max_len", d)));
    }
    Map<String, Xmit> xmit = new HashMap<>();
    for (String d : maps.getOrDefault("@xmit_skbs", Map.of()).keySet()) {
      xmit.put(d, new Xmit(value(maps, "@xmit_skbs", d), value(maps, "@xmit_super", d)));
    }
    return new Counts(byFunction(maps, "@gso"), byFunction(maps, "@freed"), xdp, xmit, source, missed);
  }

  /**
   * How often the kernel skipped one of the oracle's programs because another BPF program was running on
   * the CPU (bpftool's {@code recursion_misses} of the programs this bpftrace loaded); -1 when bpftool
   * cannot tell.
   */
  private long recursionMisses() {
    Optional<Path> bpftool = Tools.find("bpftool");
    if (bpftool.isEmpty()) {
      return -1;
    }
    try {
      Process p = new ProcessBuilder(bpftool.get().toString(), "-j", "prog", "show").redirectErrorStream(false).start();
      byte[] out = p.getInputStream().readAllBytes();
      p.waitFor(10, TimeUnit.SECONDS);
      long missed = 0;
      for (JsonNode prog : JSON.readTree(out)) {
        for (JsonNode pid : prog.path("pids")) {
          if (pid.path("pid").asLong() == process.pid()) {
            missed += prog.path("recursion_misses").asLong(0);
          }
        }
      }
      return missed;
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** {@code <prefix>_skbs/_segs/_bytes[function, netns, device]} as function -> "netns,device" -> counts. */
  private static Map<String, Map<String, Gso>> byFunction(Map<String, Map<String, Long>> maps, String prefix) {
    Map<String, Map<String, Gso>> out = new HashMap<>();
    maps.getOrDefault(prefix + "_skbs", Map.of()).forEach((k, v) -> {
      int comma = k.indexOf(',');
      if (comma > 0) {
        out.computeIfAbsent(k.substring(0, comma), f -> new HashMap<>()).put(k.substring(comma + 1),
            new Gso(v, value(maps, prefix + "_segs", k), value(maps, prefix + "_bytes", k)));
      }
    });
    return out;
  }

  private static long value(Map<String, Map<String, Long>> maps, String map, String key) {
    return maps.getOrDefault(map, Map.of()).getOrDefault(key, 0L);
  }

  /** bpftrace's form of a (netns, device) map key. */
  static String key(long netns, String device) {
    return netns + "," + device;
  }

  private List<JsonNode> records() {
    try {
      return Files.readAllLines(dir.resolve("out.json"), StandardCharsets.UTF_8).stream()
          .filter(l -> l.startsWith("{")).map(l -> {
            try {
              return JSON.readTree(l);
            } catch (IOException e) {
              return JSON.createObjectNode(); // a line still being written
            }
          }).toList();
    } catch (IOException e) {
      return List.of();
    }
  }

  /** Each thread of {@code pid}: its state and where it waits in the kernel (/proc/PID/task/TID/stack). */
  private static String threadsOf(long pid) {
    List<String> out = new ArrayList<>();
    try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path t : tasks.toList()) {
        String state = "?";
        String stack = "?";
        try {
          state = Files.readAllLines(t.resolve("status")).stream().filter(l -> l.startsWith("State:"))
              .findFirst().orElse("State: ?").substring(6).strip();
          stack = String.join(" < ", Files.readAllLines(t.resolve("stack")).stream()
              .map(l -> l.replaceFirst("^\\[<[0-9a-f]+>\\] ", "")).limit(8).toList());
        } catch (IOException e) {
          // gone meanwhile, or not readable
        }
        out.add(t.getFileName() + " " + state + " [" + stack + "]");
      }
    } catch (IOException e) {
      return "(none: " + e.getMessage() + ")";
    }
    return out.toString();
  }

  private String stderr() {
    try {
      return Files.readString(dir.resolve("err.txt")).strip();
    } catch (IOException e) {
      return "(no stderr: " + e.getMessage() + ")";
    }
  }

  /**
   * Whether this kernel lets the oracle count software GSO at consume_skb (its location field, 6.3+).
   * Older kernels need the kprobe source, which the seed scenarios do not start for cost (the guest).
   */
  public static boolean countsGso() {
    return atLeast(kernelVersion(), 6, 3);
  }

  /** What a scenario that did not ask for the oracle gets: nothing counted, GSO not countable. */
  static Counts none() {
    return new Counts(Map.of(), Map.of(), Map.of(), Map.of(), GsoSource.NONE, 0);
  }

  static int[] kernelVersion() {
    String[] parts = System.getProperty("os.version").split("[.-]");
    return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
  }

  private static boolean atLeast(int[] version, int major, int minor) {
    return version[0] > major || (version[0] == major && version[1] >= minor);
  }

  /** All counts of a collection of oracle results summed (for messages). */
  static Gso sum(Collection<Gso> all) {
    return all.stream().reduce(Gso.NONE, Gso::plus);
  }

  @Override
  public void close() throws IOException {
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

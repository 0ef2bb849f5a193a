package io.segscope.agent.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.lab.DeviceAt;
import io.segscope.lab.Prerequisites;
import io.segscope.lab.Tools;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What the kernel did, counted by a bpftrace program that shares no code, map or logic with segscope
 * (written from the kernel source as docs/kernel.md describes it, not from segscope's programs):
 *
 * <ul>
 *   <li>software GSO: every skb freed by {@code consume_skb} at a {@code validate_xmit_skb*} call site
 *       that still carries a GSO size is a super-packet the kernel segmented on the CPU (its skbs, its
 *       {@code gso_segs}, its {@code len}); needs the tracepoint's {@code location} field (kernel 6.3+);
 *   <li>generic XDP: every skb at {@code net:netif_receive_skb} on a device with a generic XDP program
 *       ({@code dev->xdp_prog}), not redirected, classified by the kernel's copy predicate
 *       (netif_receive_generic_xdp): cloned with a shared data area, nonlinear, or less than
 *       XDP_PACKET_HEADROOM (256) bytes of headroom in front of the MAC header (6.9+; before 6.9 the
 *       headroom in front of {@code skb->data}) — copied, else passed; bytes as {@code len} (without
 *       the MAC header, as at the tracepoint) and as the frame ({@code len} + MAC header).
 * </ul>
 */
final class KernelOracle implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Counts of software segmentation on one device. */
  record Gso(long skbs, long segments, long bytes) {}

  /** Generic-XDP skbs on one device by the copy predicate. */
  record Xdp(long copied, long passed, long copiedLenBytes, long copiedFrameBytes, long maxLen) {}

  /** The oracle's maps after it stopped. */
  record Counts(Map<String, Gso> gso, Map<String, Xdp> xdp, boolean gsoCounted) {
    Gso gso(DeviceAt d) {
      return gso.getOrDefault(key(d.ns().inode(), d.name()), new Gso(0, 0, 0));
    }

    Xdp xdp(DeviceAt d) {
      return xdp.getOrDefault(key(d.ns().inode(), d.name()), new Xdp(0, 0, 0, 0, 0));
    }
  }

  private final Process process;
  private final Path dir;
  private final boolean gsoCounted;

  private KernelOracle(Process process, Path dir, boolean gsoCounted) {
    this.process = process;
    this.dir = dir;
    this.gsoCounted = gsoCounted;
  }

  /** Starts the oracle and waits until its probes are attached (skips, or fails on CI, without bpftrace). */
  static KernelOracle start(Duration timeout) throws Exception {
    Prerequisites.requireTool("bpftrace", "the independent kernel oracle");
    int[] version = kernelVersion();
    boolean gso = atLeast(version, 6, 3);
    Path dir = Files.createTempDirectory("segscope-oracle");
    Path script = dir.resolve("oracle.bt");
    Files.writeString(script, script(gso, atLeast(version, 6, 9)));
    Process p = new ProcessBuilder(Tools.require("bpftrace"), "-f", "json", script.toString())
        .redirectOutput(dir.resolve("out.json").toFile()).redirectError(dir.resolve("err.txt").toFile()).start();
    KernelOracle o = new KernelOracle(p, dir, gso);
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      for (JsonNode n : o.records()) {
        if (n.path("type").asText().equals("attached_probes")) {
          return o;
        }
      }
      if (!p.isAlive()) {
        String err = o.stderr();
        o.close();
        throw new AssertionError("start the bpftrace oracle: exited " + p.exitValue() + ": " + err);
      }
      Thread.sleep(50);
    }
    String err = o.stderr();
    o.close();
    throw new AssertionError("start the bpftrace oracle: not attached within " + timeout + ": " + err);
  }

  static String script(boolean gso, boolean headroomFromMacHeader) {
    String headroom = headroomFromMacHeader ? "$skb->mac_header"
        : "((uint64)$skb->data - (uint64)$skb->head)";
    StringBuilder s = new StringBuilder();
    if (gso) {
      s.append("""
          tracepoint:skb:consume_skb
          {
            $skb = (struct sk_buff *)args->skbaddr;
            $sh = (struct skb_shared_info *)($skb->head + $skb->end);
            if ($sh->gso_size > 0 && $skb->dev != 0) {
              $dev = $skb->dev;
              $ns = $dev->nd_net.net->ns.inum;
              @gso_skbs[ksym(args->location), $ns, $dev->name] = count();
              @gso_segs[ksym(args->location), $ns, $dev->name] = sum($sh->gso_segs);
              @gso_bytes[ksym(args->location), $ns, $dev->name] = sum($skb->len);
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

  /** Stops the oracle (SIGTERM: bpftrace prints its maps) and returns its counts. */
  Counts stop() throws Exception {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("stop the bpftrace oracle: no exit within 30 s of SIGTERM");
    }
    Map<String, Map<String, Long>> maps = new HashMap<>();
    for (JsonNode n : records()) {
      if (!n.path("type").asText().equals("map")) {
        continue;
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = n.path("data").fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> m = it.next();
        Map<String, Long> values = new HashMap<>();
        m.getValue().fields().forEachRemaining(e -> values.put(e.getKey(), e.getValue().asLong()));
        maps.put(m.getKey(), values);
      }
    }
    Map<String, Gso> gso = new HashMap<>();
    maps.getOrDefault("@gso_skbs", Map.of()).forEach((k, v) -> {
      // location,netns,device: only the frees after software segmentation
      int comma = k.indexOf(',');
      if (comma > 0 && k.substring(0, comma).startsWith("validate_xmit_skb")) {
        String dev = k.substring(comma + 1);
        Gso prior = gso.getOrDefault(dev, new Gso(0, 0, 0));
        gso.put(dev, new Gso(prior.skbs() + v, prior.segments() + maps.get("@gso_segs").get(k),
            prior.bytes() + maps.get("@gso_bytes").get(k)));
      }
    });
    Map<String, Xdp> xdp = new HashMap<>();
    java.util.Set<String> devices = new java.util.HashSet<>();
    devices.addAll(maps.getOrDefault("@xdp_copied", Map.of()).keySet());
    devices.addAll(maps.getOrDefault("@xdp_passed", Map.of()).keySet());
    for (String d : devices) {
      xdp.put(d, new Xdp(value(maps, "@xdp_copied", d), value(maps, "@xdp_passed", d),
          value(maps, "@xdp_copied_len", d), value(maps, "@xdp_copied_frame", d), value(maps, "@xdp_max_len", d)));
    }
    return new Counts(gso, xdp, gsoCounted);
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

  private String stderr() {
    try {
      return Files.readString(dir.resolve("err.txt")).strip();
    } catch (IOException e) {
      return "(no stderr: " + e.getMessage() + ")";
    }
  }

  /** Whether this kernel lets the oracle count software GSO (consume_skb's location field, 6.3+). */
  static boolean countsGso() {
    return atLeast(kernelVersion(), 6, 3);
  }

  /** What a scenario that did not ask for the oracle gets: nothing counted, GSO not countable. */
  static Counts none() {
    return new Counts(Map.of(), Map.of(), false);
  }

  static int[] kernelVersion() {
    String[] parts = System.getProperty("os.version").split("[.-]");
    return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
  }

  private static boolean atLeast(int[] version, int major, int minor) {
    return version[0] > major || (version[0] == major && version[1] >= minor);
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

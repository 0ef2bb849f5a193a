package io.segscope.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The lab's virtual machine stand-in ({@code tap_vnet_inject.c} in the test resources, built with clang):
 * attaches to a lab tap device made with {@link Lab#tap} and writes TCP super-packets behind virtio-net
 * headers into it, as qemu/vhost hand a guest's TSO packets to the host. The kernel marks them
 * SKB_GSO_DODGY with gso_segs 0; where the host cannot take them whole it segments them in software.
 */
public final class TapInjector {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What one run wrote: frames, the segments they make ({@code ceil(payload / mss)} each), frame bytes. */
  public record Sent(long sends, long segments, long bytes, long errors) {}

  private final Path binary;
  private final String ip;

  private TapInjector(Path binary) {
    this.binary = binary;
    this.ip = Tools.require("ip");
  }

  /** Compiles {@code tap_vnet_inject.c} into {@code dir/tap_vnet_inject}. */
  public static TapInjector build(Path dir) {
    return new TapInjector(LabProgram.build(dir, "tap_vnet_inject.c", "tap_vnet_inject"));
  }

  /**
   * Writes frames into tap {@code tap} (a lab device of {@code ns}) for {@code duration}: from
   * {@code srcMac}/{@code src} (the "guest") to {@code dstMac}/{@code dst}, {@code payload} bytes of TCP
   * data each, gso_size {@code mss}.
   */
  public Sent send(Netns ns, String tap, String srcMac, String dstMac, String src, String dst, int payload, int mss,
      Duration duration) {
    LabAddress.requireLab(src + "/32");
    LabAddress.requireLab(dst + "/32");
    long seconds = Math.max(1, (duration.toMillis() + 999) / 1000);
    List<String> argv = List.of(ip, "netns", "exec", ns.name(), binary.toString(), "--dev", tap, "--src-mac", srcMac,
        "--dst-mac", dstMac, "--src", src, "--dst", dst, "--payload", Integer.toString(payload), "--mss",
        Integer.toString(mss), "--seconds", Long.toString(seconds));
    String out = Command.run(argv, Duration.ofSeconds(seconds + 30));
    try {
      JsonNode j = JSON.readTree(out.strip());
      return new Sent(j.path("sends").asLong(-1), j.path("segments").asLong(-1), j.path("bytes").asLong(-1),
          j.path("errors").asLong(-1));
    } catch (IOException e) {
      throw new LabException("parse output of `" + Command.line(argv) + "`: " + e.getMessage() + ": " + out, e);
    }
  }
}

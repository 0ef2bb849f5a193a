package io.segscope.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The lab's vhost stand-in ({@code tap_forward.c} in the resources, built with clang): moves frames with
 * their virtio-net headers, GSO metadata intact, between a tap of one lab namespace and a tap of another,
 * both ways, as vhost-net or a hypervisor moves a guest's frames. Both taps negotiate checksum and TSO
 * offloads, so the kernel hands them super-packets whole up to their limit (a tap takes 64 KiB).
 */
public final class TapForwarder {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What one run moved from tap a to tap b (and back), and the CPU the forwarder itself used. */
  public record Moved(long aToBFrames, long aToBBytes, long aToBGsoFrames, long bToAFrames, long errors,
      long cpuUserNanos, long cpuSystemNanos) {
    public long cpuNanos() {
      return cpuUserNanos + cpuSystemNanos;
    }
  }

  private final Path binary;
  private final String ip;

  private TapForwarder(Path binary) {
    this.binary = binary;
    this.ip = Tools.require("ip");
  }

  /** Compiles {@code tap_forward.c} into {@code dir/tap_forward}. */
  public static TapForwarder build(Path dir) {
    return new TapForwarder(LabProgram.build(dir, "tap_forward.c", "tap_forward"));
  }

  /** A running forwarder: {@link #stop()} ends it and says what it moved; the lab kills it at close too. */
  public final class Running implements AutoCloseable {
    private final Process process;
    private final Path out;
    private Moved moved;

    private Running(Process process, Path out) {
      this.process = process;
      this.out = out;
    }

    /** Stops the forwarder (SIGTERM) and returns what it moved since it started. */
    public synchronized Moved stop() {
      if (moved != null) {
        return moved;
      }
      process.destroy();
      try {
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          process.destroyForcibly();
          throw new LabException("tap_forward did not stop within 10 s of SIGTERM");
        }
        JsonNode j = JSON.readTree(Files.readString(out, StandardCharsets.UTF_8).strip());
        moved = new Moved(j.path("a_to_b_frames").asLong(-1), j.path("a_to_b_bytes").asLong(-1),
            j.path("a_to_b_gso_frames").asLong(-1), j.path("b_to_a_frames").asLong(-1), j.path("errors").asLong(-1),
            j.path("cpu_user_ns").asLong(-1), j.path("cpu_system_ns").asLong(-1));
        return moved;
      } catch (IOException e) {
        throw new LabException("read tap_forward's output: " + e.getMessage(), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new LabException("interrupted stopping tap_forward", e);
      }
    }

    @Override
    public void close() {
      if (process.isAlive()) {
        stop();
      }
    }
  }

  /**
   * Starts forwarding between tap {@code a} of {@code aNs} and tap {@code b} of {@code bNs} (both lab taps,
   * made with {@link Lab#tap}); returns once both are attached.
   */
  public Running start(Lab lab, Netns aNs, String a, Netns bNs, String b) {
    List<String> argv = List.of(ip, "netns", "exec", aNs.name(), binary.toString(), "--a", a, "--b-netns",
        "/run/netns/" + bNs.name(), "--b", b);
    Process p;
    Path out;
    try {
      out = Files.createTempFile(lab.workDir(), "tap_forward", ".json");
      p = new ProcessBuilder(argv).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
          .redirectOutput(out.toFile()).start();
    } catch (IOException e) {
      throw new LabException("start `" + Command.line(argv) + "`: " + e.getMessage(), e);
    }
    Running r = new Running(p, out);
    lab.record("stop tap_forward (pid " + p.pid() + ")", r::close);
    try {
      BufferedReader err = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8));
      String line = err.readLine();
      if (!"ready".equals(line)) {
        p.destroyForcibly();
        throw new LabException("`" + Command.line(argv) + "` did not start: " + line);
      }
    } catch (IOException e) {
      p.destroyForcibly();
      throw new LabException("start `" + Command.line(argv) + "`: " + e.getMessage(), e);
    }
    return r;
  }
}

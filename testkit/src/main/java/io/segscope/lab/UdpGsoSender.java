package io.segscope.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The lab's UDP GSO sender ({@code udp_gso_send.c} in the test resources, built with clang): sends
 * {@code UDP_SEGMENT} super-packets from one namespace and reports its own CPU time, so a test or the
 * benchmark can measure CPU nanoseconds per segment; and a sink that receives them in another.
 */
public final class UdpGsoSender {
  private static final String SOURCE = "udp_gso_send.c";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What one send run did: super-packets sent, datagrams they were cut into, this process's CPU time. */
  public record Sent(long sends, long segments, long bytes, long errors, long cpuNanos, long wallNanos) {
    /** CPU nanoseconds of the sending process per segment sent. */
    public double cpuNanosPerSegment() {
      return segments == 0 ? Double.NaN : (double) cpuNanos / segments;
    }
  }

  /** What a sink received. */
  public record Received(long datagrams, long bytes) {}

  private final Path binary;
  private final String ip;

  private UdpGsoSender(Path binary) {
    this.binary = binary;
    this.ip = Tools.require("ip");
  }

  /** Compiles {@code udp_gso_send.c} into {@code dir/udp_gso_send}. */
  public static UdpGsoSender build(Path dir) {
    String clang = Tools.clang().map(Path::toString).orElseThrow(() -> new LabException(
        "build UDP GSO sender " + SOURCE + ": no clang installed (apt-get install clang)"));
    Path src = dir.resolve(SOURCE);
    Path bin = dir.resolve("udp_gso_send");
    try (InputStream in = UdpGsoSender.class.getResourceAsStream(SOURCE)) {
      if (in == null) {
        throw new LabException("build UDP GSO sender: resource io/segscope/lab/" + SOURCE + " missing");
      }
      Files.copy(in, src, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new LabException("copy " + SOURCE + " to " + dir + ": " + e.getMessage(), e);
    }
    Command.run(List.of(clang, "-O2", "-Wall", "-Werror", src.toString(), "-o", bin.toString()));
    return new UdpGsoSender(bin);
  }

  /** The built program. */
  public Path binary() {
    return binary;
  }

  /**
   * Sends from {@code from} to {@code dst}:{@code port} for {@code duration}, super-packets of
   * {@code size} payload bytes cut at {@code gso} bytes.
   */
  public Sent send(Netns from, String dst, int port, int gso, int size, Duration duration) {
    long seconds = Math.max(1, (duration.toMillis() + 999) / 1000);
    List<String> argv = List.of(ip, "netns", "exec", from.name(), binary.toString(), "send", "--dst", dst,
        "--port", Integer.toString(port), "--gso", Integer.toString(gso), "--size", Integer.toString(size),
        "--seconds", Long.toString(seconds));
    JsonNode j = json(argv, Command.run(argv, Duration.ofSeconds(seconds + 30)));
    return new Sent(field(j, "sends", argv), field(j, "segments", argv), field(j, "bytes", argv),
        field(j, "errors", argv), field(j, "cpu_ns", argv), field(j, "wall_ns", argv));
  }

  /** A running sink; {@link #stop()} ends it and returns what it received. */
  public final class Sink implements AutoCloseable {
    private final Process process;
    private final List<String> argv;
    private final Path output;
    private Received received;

    private Sink(Process process, List<String> argv, Path output) {
      this.process = process;
      this.argv = argv;
      this.output = output;
    }

    /** Stops the sink (SIGTERM) and returns what it received. */
    public Received stop() {
      if (received != null) {
        return received;
      }
      process.destroy();
      try {
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
          process.destroyForcibly();
          throw new LabException("stop `" + Command.line(argv) + "`: did not exit on SIGTERM");
        }
        String out = Files.readString(output, StandardCharsets.UTF_8);
        if (process.exitValue() != 0) {
          throw new LabException("run `" + Command.line(argv) + "`: exit " + process.exitValue() + ": "
              + new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).strip());
        }
        JsonNode j = json(argv, out);
        received = new Received(field(j, "datagrams", argv), field(j, "bytes", argv));
        return received;
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
        throw new LabException("stop `" + Command.line(argv) + "`: interrupted", e);
      } catch (IOException e) {
        throw new LabException("stop `" + Command.line(argv) + "`: read output: " + e, e);
      }
    }

    @Override
    public void close() {
      if (received == null && process.isAlive()) {
        process.destroyForcibly();
      }
    }
  }

  /**
   * Starts a sink in {@code in} bound to {@code addr}:{@code port}, its report written to
   * {@code dir}; returns once it is bound.
   */
  public Sink sink(Netns in, String addr, int port, Path dir) {
    return sink(in, addr, port, dir, false);
  }

  /**
   * The same; {@code gro}: the sink asks for GRO'd datagrams (UDP_GRO), so super-packets that arrive
   * whole are handed over whole instead of being cut again on receive.
   */
  public Sink sink(Netns in, String addr, int port, Path dir, boolean gro) {
    List<String> argv = new ArrayList<>(List.of(ip, "netns", "exec", in.name(), binary.toString(), "sink",
        "--bind", addr, "--port", Integer.toString(port), "--gro", gro ? "1" : "0"));
    Path output = dir.resolve("udp-sink-" + port + ".json");
    Process p;
    try {
      // to a file: reading a pipe while the process exits can lose its last bytes
      p = new ProcessBuilder(argv).redirectOutput(output.toFile()).start();
    } catch (IOException e) {
      throw new LabException("run `" + Command.line(argv) + "`: cannot start: " + e.getMessage(), e);
    }
    Sink sink = new Sink(p, argv, output);
    // the sink says "listening" on stderr once bound; anything else there is its error
    CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> {
      try {
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8));
        String line = r.readLine();
        return line == null ? "(no output)" : line;
      } catch (IOException e) {
        return "(unreadable stderr: " + e.getMessage() + ")";
      }
    });
    try {
      String line = first.get(10, TimeUnit.SECONDS);
      if (!line.equals("listening")) {
        sink.close();
        throw new LabException("run `" + Command.line(argv) + "`: " + line);
      }
    } catch (InterruptedException e) {
      sink.close();
      Thread.currentThread().interrupt();
      throw new LabException("run `" + Command.line(argv) + "`: interrupted", e);
    } catch (ExecutionException | TimeoutException e) {
      sink.close();
      throw new LabException("run `" + Command.line(argv) + "`: not bound within 10 s", e);
    }
    return sink;
  }

  private static JsonNode json(List<String> argv, String out) {
    try {
      JsonNode j = JSON.readTree(out.strip());
      if (j == null || !j.isObject()) {
        throw new LabException("parse output of `" + Command.line(argv) + "`: not a JSON object: " + out);
      }
      return j;
    } catch (IOException e) {
      throw new LabException("parse output of `" + Command.line(argv) + "`: " + e.getMessage() + ": " + out, e);
    }
  }

  private static long field(JsonNode j, String name, List<String> argv) {
    JsonNode v = j.get(name);
    if (v == null || !v.canConvertToLong()) {
      throw new LabException("parse output of `" + Command.line(argv) + "`: field " + name + " missing: " + j);
    }
    return v.asLong();
  }
}

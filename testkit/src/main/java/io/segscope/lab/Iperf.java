package io.segscope.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.testkit.Await;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** One iperf3 client/server run between two lab namespaces. */
final class Iperf {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration LISTEN_DEADLINE = Duration.ofSeconds(10);

  private final String ip;
  private final String iperf3;
  private final String ss;

  Iperf(String ip, String iperf3, String ss) {
    this.ip = ip;
    this.iperf3 = iperf3;
    this.ss = ss;
  }

  IperfResult run(Netns client, Netns server, String addr, int port, Duration d, Path logDir) {
    return run(client, server, addr, port, d, logDir, List.of());
  }

  /** As {@link #run(Netns, Netns, String, int, Duration, Path)}, with {@code clientArgs} added to the client's. */
  IperfResult run(Netns client, Netns server, String addr, int port, Duration d, Path logDir, List<String> clientArgs) {
    long seconds = Math.max(1, (d.toMillis() + 999) / 1000);
    Path serverLog = logDir.resolve("iperf3-server-" + port + ".log");
    List<String> serverArgv = List.of(ip, "netns", "exec", server.name(), iperf3, "-s", "-1",
        "-B", addr, "-p", Integer.toString(port));
    Process srv = startServer(serverArgv, serverLog);
    try {
      awaitListening(server, addr, port, srv, serverArgv, serverLog);
      List<String> clientArgv = new java.util.ArrayList<>(List.of(ip, "netns", "exec", client.name(), iperf3, "-c",
          addr, "-p", Integer.toString(port), "-t", Long.toString(seconds), "-J", "--connect-timeout", "5000"));
      clientArgv.addAll(clientArgs);
      Command.Result r = Command.attempt(clientArgv, Duration.ofSeconds(seconds + 30));
      if (!r.ok()) {
        throw new LabException("run `" + Command.line(clientArgv) + "`: exit " + r.exitCode() + ": "
            + errorOf(r) + "; server log: " + read(serverLog));
      }
      return parse(r.stdout());
    } finally {
      kill(srv);
    }
  }

  /** Reads {@code end.sum_sent} from iperf3 {@code -J} output; throws naming what is missing. */
  static IperfResult parse(String json) {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (IOException e) {
      throw new LabException("parse iperf3 JSON: " + e.getMessage(), e);
    }
    if (root == null || !root.isObject()) {
      throw new LabException("parse iperf3 JSON: not a JSON object");
    }
    if (root.hasNonNull("error")) {
      throw new LabException("run iperf3: " + root.get("error").asText());
    }
    JsonNode sum = root.path("end").path("sum_sent");
    JsonNode bytes = sum.path("bytes");
    JsonNode bps = sum.path("bits_per_second");
    if (!bytes.isNumber() || !bps.isNumber()) {
      throw new LabException("parse iperf3 JSON: end.sum_sent.bytes or end.sum_sent.bits_per_second missing");
    }
    return new IperfResult(bytes.asLong(), bps.asDouble(), json);
  }

  private static Process startServer(List<String> argv, Path log) {
    ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().put("LC_ALL", "C");
    try {
      return pb.start();
    } catch (IOException e) {
      throw new LabException("run `" + Command.line(argv) + "`: cannot start: " + e.getMessage(), e);
    }
  }

  private void awaitListening(Netns server, String addr, int port, Process srv, List<String> argv, Path log) {
    List<String> probe = List.of(ip, "netns", "exec", server.name(), ss, "-Hltn", "sport = :" + port);
    String listening = LabAddress.isIpv6(addr) ? "[" + addr + "]:" + port : addr + ":" + port;
    boolean up = Await.atMost(LISTEN_DEADLINE).every(Duration.ofMillis(50)).until(() -> {
      if (!srv.isAlive()) {
        throw new LabException("run `" + Command.line(argv) + "`: exited " + srv.exitValue()
            + " before listening: " + read(log));
      }
      return Command.run(probe).contains(listening);
    });
    if (up) {
      return;
    }
    throw new LabException("run `" + Command.line(argv) + "`: not listening on " + addr + ":" + port
        + " after " + LISTEN_DEADLINE.toSeconds() + " s: " + read(log));
  }

  private static String errorOf(Command.Result r) {
    try {
      JsonNode root = JSON.readTree(r.stdout());
      if (root != null && root.hasNonNull("error")) {
        return root.get("error").asText();
      }
    } catch (IOException e) {
      // not JSON: fall through to stderr
    }
    String s = r.stderr().strip();
    return s.isEmpty() ? "(no stderr)" : s;
  }

  private static void kill(Process srv) {
    srv.destroy();
    try {
      if (!srv.waitFor(2, TimeUnit.SECONDS)) {
        srv.destroyForcibly();
        srv.waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      srv.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  private static String read(Path log) {
    try {
      String s = Files.readString(log, StandardCharsets.UTF_8).strip();
      return s.isEmpty() ? "(empty)" : s;
    } catch (IOException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
  }
}

package io.segscope.agent.e2e;

import static io.segscope.testkit.PromText.labels;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.host.names.NameCodec;
import io.segscope.lab.DeviceAt;
import io.segscope.lab.Lab;
import io.segscope.lab.LabTest;
import io.segscope.lab.Netns;
import io.segscope.lab.Scenarios;
import io.segscope.lab.Topology;
import io.segscope.testkit.Await;
import io.segscope.testkit.PromText;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 12, items 1 and 2, on the real kernel with the real agent: devices named the way a tenant
 * may name them. S1 with the segmenting uplink (the device segscope's command raises) literally named
 * {@code $(touch${IFS}c)}, the sender veth named 0x1c (a name Java calls blank, which used to freeze every
 * series) and the receiver
 * named 0xff 0xfe (not UTF-8); more devices named U+2028, U+3000, ESC[31m, {@code a\b}, {@code -c}
 * and 0x1f in a namespace of their own. The agent exports every name exactly, keeps reading,
 * recommends the fix with a command that, run through {@code sh -c}, changes the right device and
 * creates no file, and its log carries no raw control byte.
 */
class HostileNamesEndToEndIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  /**
   * Short advice windows, and timing always: the checks count the super-packets handed intact to the
   * sender and, after the fix, to the uplink, a figure of the timing windows (docs/metrics.md); with the
   * default windows (1 s in every 10 s) a 3 s run after the fix mostly falls between two windows.
   */
  private static final String[] FAST_ADVICE = {"--interval", "1s", "--advice-window", "3s",
      "--advice-open-after", "3s", "--advice-close-after", "5s", "--timing-window", "always"};
  private static final byte[] SENDER = {0x1c};
  private static final byte[] UPLINK = utf8("$(touch${IFS}c)");
  private static final byte[] RECEIVER = {(byte) 0xff, (byte) 0xfe};
  /** Name forms (docs/api.md) of the extra devices, each with its bytes. */
  private static final Map<String, byte[]> EXTRA = new LinkedHashMap<>();

  static {
    EXTRA.put("u\u2028", utf8("u\u2028"));
    EXTRA.put("w\u3000", utf8("w\u3000"));
    EXTRA.put("e\u001b[31m", utf8("e\u001b[31m"));
    EXTRA.put("a\\\\b", utf8("a\\b"));
    EXTRA.put("-c", utf8("-c"));
    EXTRA.put("\u001f", new byte[] {0x1f});
    EXTRA.put("\\xfe\\xff", new byte[] {(byte) 0xfe, (byte) 0xff});
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Every byte as \ooo for printf: written here, independently of segscope's quoting. */
  private static String octal(byte[] b) {
    StringBuilder s = new StringBuilder();
    for (byte x : b) {
      s.append(String.format("\\%03o", x & 0xff));
    }
    return s.toString();
  }

  /** Runs a shell script with the given positional parameters; fails with its output. */
  private static String sh(String script, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("/bin/sh", "-c", script, "sh"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("sh -c %s: %s", script, out).isZero();
    return out;
  }

  /** Renames a lab device to exact bytes (the namespace is the lab's, so its devices go with it). */
  private static void rename(DeviceAt d, byte[] name) throws Exception {
    sh("ip -n \"$1\" link set dev \"$2\" down && ip -n \"$1\" link set dev \"$2\" name \"$(printf '" + octal(name)
        + "')\" && ip -n \"$1\" link set dev \"$(printf '" + octal(name) + "')\" up", d.ns().name(), d.name());
  }

  @Test
  @LabTest
  void hostileDeviceNamesAreDataEndToEnd(Lab lab) throws Exception {
    Topology s1 = Scenarios.s1GsoMismatch(lab, false);
    DeviceAt sender = s1.device("sender");
    DeviceAt uplink = s1.device("uplink");
    DeviceAt receiver = s1.device("receiver");
    rename(sender, SENDER);
    rename(uplink, UPLINK);
    rename(receiver, RECEIVER);
    Netns extra = lab.namespace("names");
    int peer = 0;
    for (byte[] name : EXTRA.values()) {
      sh("ip -n \"$1\" link add name \"$(printf '" + octal(name) + "')\" type veth peer name \"$2\"", extra.name(),
          "peer" + peer++);
    }
    Path cwd = Files.createTempDirectory("segscope-hostile-names");
    List<Path> watched = List.of(cwd, Path.of(System.getProperty("user.dir")), Path.of("/"), Path.of("/tmp"),
        Path.of(System.getProperty("user.home")), lab.workDir());
    Map<Path, Boolean> hadC = new LinkedHashMap<>();
    watched.forEach(d -> hadC.put(d, Files.exists(d.resolve("c"))));

    try (AgentProcess agent = AgentProcess.start(FAST_ADVICE)) {
      agent.awaitReady(Duration.ofSeconds(90));
      JsonNode rec = awaitRecommendation(agent, lab, s1, uplink, Duration.ofSeconds(12));

      // 1. the command: the name is one argument, quoted; argv holds it exactly
      String expectedCommand = "ip -n " + uplink.ns().name() + " link set dev '$(touch${IFS}c)' gso_max_size 65536";
      assertThat(texts(rec.path("commands"))).containsExactly(expectedCommand);
      assertThat(rec.path("argv")).hasSize(1);
      assertThat(texts(rec.path("argv").get(0))).containsExactly("ip", "-n", uplink.ns().name(), "link", "set", "dev",
          "$(touch${IFS}c)", "gso_max_size", "65536");
      assertThat(rec.path("subject").path("device").asText()).isEqualTo("$(touch${IFS}c)");

      // 2. every name exported exactly, in its namespace; the reads go on
      PromText m = agent.scrape();
      String uplinkNs = Long.toString(uplink.ns().inode());
      assertThat(m.sum("segscope_gso_sw_skbs_total", labels("netns", uplinkNs, "device", "$(touch${IFS}c)")))
          .as("software GSO counted on the uplink named $(touch${IFS}c)").isPositive();
      assertThat(m.sum("segscope_gso_offloaded_skbs_total", labels("netns", Long.toString(sender.ns().inode()),
          "device", "\u001c"))).as("super-packets counted on the sender named 0x1c").isPositive();
      Map<String, String> named = new LinkedHashMap<>();
      named.put("$(touch${IFS}c)", uplinkNs);
      named.put("\u001c", Long.toString(sender.ns().inode()));
      named.put("\\xff\\xfe", Long.toString(receiver.ns().inode()));
      EXTRA.keySet().forEach(n -> named.put(n, Long.toString(extra.inode())));
      for (Map.Entry<String, String> e : named.entrySet()) {
        assertThat(m.sum("segscope_device_info", labels("netns", e.getValue(), "device", e.getKey())))
            .as("segscope_device_info of %s", e.getKey()).isEqualTo(1.0);
      }
      JsonNode devices = JSON.readTree(agent.get("/api/v1/devices?netns=" + extra.inode()).body()).path("devices");
      List<String> apiNames = new ArrayList<>();
      devices.forEach(d -> apiNames.add(d.path("name").asText()));
      assertThat(apiNames).containsAll(EXTRA.keySet());
      double t0 = m.sum("segscope_snapshot_timestamp_seconds", Map.of());
      awaitTrue(() -> agent.scrape().sum("segscope_snapshot_timestamp_seconds", Map.of()) > t0, Duration.ofSeconds(10),
          "the snapshot timestamp advances: telemetry is not frozen");
      assertThat(agent.scrape().sum("segscope_exporter_errors_total", Map.of())).as("records skipped").isZero();

      // 3. segscope's own command, through sh -c: the fix takes effect and nothing else happens
      Process p = new ProcessBuilder("sh", "-c", texts(rec.path("commands")).get(0)).directory(cwd.toFile())
          .redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as("segscope's command: %s", out).isZero();
      JsonNode link = JSON.readTree(lab.exec(uplink.ns(), "ip", "-d", "-j", "link", "show", "dev", "$(touch${IFS}c)"));
      assertThat(link.get(0).path("gso_max_size").asLong()).as("gso_max_size of the uplink after the fix")
          .isEqualTo(65536);
      for (Map.Entry<Path, Boolean> e : hadC.entrySet()) {
        assertThat(Files.exists(e.getKey().resolve("c"))).as("a file c in %s", e.getKey()).isEqualTo(e.getValue());
      }
      try (var files = Files.list(cwd)) {
        assertThat(files.toList()).as("files the command created in its directory").isEmpty();
      }
      Map<String, String> dev = labels("netns", uplinkNs, "device", "$(touch${IFS}c)");
      PromText before = agent.scrape();
      lab.iperf(s1.sender(), s1.receiver(), s1.receiverAddr(), Duration.ofSeconds(3));
      awaitTrue(() -> agent.scrape().sum("segscope_gso_offloaded_skbs_total", dev)
          - before.sum("segscope_gso_offloaded_skbs_total", dev) > 100, Duration.ofSeconds(10),
          "super-packets handed intact to the uplink after the fix");
      PromText after = agent.scrape();
      assertThat(after.sum("segscope_gso_sw_skbs_total", dev) - before.sum("segscope_gso_sw_skbs_total", dev))
          .as("software segmentation on the uplink after the fix")
          .isLessThanOrEqualTo(0.01 * (after.sum("segscope_gso_offloaded_skbs_total", dev)
              - before.sum("segscope_gso_offloaded_skbs_total", dev)));
      String id = rec.path("id").asText();
      awaitTrue(() -> recommendations(agent).stream().noneMatch(r -> r.path("id").asText().equals(id)),
          Duration.ofSeconds(20), "the recommendation closes after the fix");

      // 4. the log names the devices in display form: no raw control byte or line separator
      String log = agent.log();
      assertThat(log).contains("recommendation opened: " + id).contains("dev '$(touch${IFS}c)'")
          .contains(uplink.ns().name() + "/$(touch${IFS}c) segments");
      assertThat(log.codePoints().filter(c -> c != '\n' && c != '\t'
          && !NameCodec.isPrintable(c)).count()).as("raw control characters in the log")
          .isZero();
    } finally {
      try (var files = Files.list(cwd)) {
        files.forEach(f -> f.toFile().delete());
      }
      Files.deleteIfExists(cwd);
    }
  }

  // ---- helpers

  private static JsonNode awaitRecommendation(AgentProcess agent, Lab lab, Topology t, DeviceAt subject,
      Duration traffic) throws Exception {
    CompletableFuture<?> running = CompletableFuture.runAsync(
        () -> lab.iperf(t.sender(), t.receiver(), t.receiverAddr(), traffic));
    try {
      Optional<JsonNode> found = Await.whileTrue(() -> !running.isDone()).every(Duration.ofMillis(300))
          .poll(() -> recommendations(agent).stream().filter(r -> r.path("rule").asText().equals("gso_size_mismatch")
              && r.path("subject").path("netns").asLong() == subject.ns().inode()
              && r.path("subject").path("netns_name").asText().equals(subject.ns().name())).findFirst());
      if (found.isPresent()) {
        return found.get();
      }
      running.get();
      throw new AssertionError("no gso_size_mismatch recommendation for the uplink during " + traffic
          + "; open: " + recommendations(agent) + "\nagent log:\n" + agent.log());
    } finally {
      running.get(60, TimeUnit.SECONDS);
    }
  }

  private static List<JsonNode> recommendations(AgentProcess agent) throws Exception {
    var r = agent.get("/api/v1/recommendations");
    assertThat(r.statusCode()).isEqualTo(200);
    List<JsonNode> out = new ArrayList<>();
    JSON.readTree(r.body()).path("recommendations").forEach(out::add);
    return out;
  }

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(c -> out.add(c.asText()));
    return out;
  }

  private static void awaitTrue(Await.Condition<Exception> c, Duration timeout, String what) throws Exception {
    Await.atMost(timeout).untilOrFail(c, () -> what + ": not within " + timeout);
  }
}

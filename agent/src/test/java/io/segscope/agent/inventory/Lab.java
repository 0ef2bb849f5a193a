package io.segscope.agent.inventory;

import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.testkit.Await;
import io.segscope.testkit.Requirement;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A namespace lab for tests: creates namespaces with a unique "sginv-XXXX-" prefix, runs
 * iproute2/ethtool commands, and deletes every namespace it created on close. Only 198.18.0.0/15
 * addresses are ever used.
 */
final class Lab implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();

  final String prefix = "sginv-" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0xffff)) + "-";
  private final List<String> namespaces = new ArrayList<>();
  private final List<Path> pins = new ArrayList<>();

  /** A missing prerequisite: skipped with the reason, failed under CI=true ({@link Requirement}). */
  static void require(boolean ok, String reason) {
    Requirement.require(ok, reason);
  }

  /** Checks root, iproute2, ethtool and namespace creation. */
  static void requireLab() {
    require("root".equals(System.getProperty("user.name")), "lab tests need root (namespaces, devices)");
    require(Files.isExecutable(Path.of("/usr/sbin/ip")) || Files.isExecutable(Path.of("/sbin/ip"))
        || Files.isExecutable(Path.of("/usr/bin/ip")), "iproute2 (ip) is not installed");
    require(Files.isExecutable(Path.of("/usr/sbin/ethtool")) || Files.isExecutable(Path.of("/sbin/ethtool")),
        "ethtool is not installed");
    require(Files.isReadable(Path.of("/proc/self/ns/net")), "/proc/self/ns/net is not readable");
  }

  /** Creates namespace prefix+suffix and returns its full name. */
  String netns(String suffix) {
    String name = prefix + suffix;
    run("ip", "netns", "add", name);
    namespaces.add(name);
    run("ip", "-n", name, "link", "set", "lo", "up");
    return name;
  }

  /** Deletes a namespace this lab created (before close). */
  void deleteNetns(String name) {
    run("ip", "netns", "del", name);
    namespaces.remove(name);
  }

  long inode(String netns) {
    long ino = NetnsDiscovery.inode(Path.of("/run/netns", netns));
    if (ino < 0) {
      throw new IllegalStateException("stat /run/netns/" + netns + " failed");
    }
    return ino;
  }

  /** Runs a command in namespace {@code netns} ("ip netns exec"). */
  String inNetns(String netns, String... cmd) {
    List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", netns));
    full.addAll(List.of(cmd));
    return run(full.toArray(new String[0]));
  }

  JsonNode json(String... cmd) {
    try {
      return JSON.readTree(run(cmd));
    } catch (IOException e) {
      throw new IllegalStateException("parse JSON of " + String.join(" ", cmd) + ": " + e.getMessage(), e);
    }
  }

  /** Runs a command; returns stdout, throws with stderr when it exits non-zero. */
  static String run(String... cmd) {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
      byte[] out = p.getInputStream().readAllBytes();
      byte[] err = p.getErrorStream().readAllBytes();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("run " + String.join(" ", cmd) + ": timed out");
      }
      if (p.exitValue() != 0) {
        throw new IllegalStateException("run " + String.join(" ", cmd) + ": exit " + p.exitValue() + ": "
            + new String(err, StandardCharsets.UTF_8).trim());
      }
      return new String(out, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("run " + String.join(" ", cmd) + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("run " + String.join(" ", cmd) + ": interrupted", e);
    }
  }

  /** Waits (up to 5 s) until iproute2 reports {@code state} as the device's operstate. */
  void awaitOperstate(String netns, String dev, String state) {
    String[] last = {""};
    Await.atMost(Duration.ofSeconds(5)).every(Duration.ofMillis(50)).untilOrFail(() -> {
      last[0] = json("ip", "-n", netns, "-j", "link", "show", "dev", dev).get(0).path("operstate").asText();
      return last[0].equals(state);
    }, () -> netns + "/" + dev + " operstate stayed " + last[0] + ", expected " + state);
  }

  void pinned(Path pin) {
    pins.add(pin);
  }

  @Override
  public void close() {
    for (int i = namespaces.size() - 1; i >= 0; i--) {
      try {
        run("ip", "netns", "del", namespaces.get(i));
      } catch (IllegalStateException e) {
        System.err.println("lab cleanup: " + e.getMessage());
      }
    }
    namespaces.clear();
    for (Path pin : pins) {
      try {
        Files.deleteIfExists(pin);
      } catch (IOException e) {
        System.err.println("lab cleanup: delete " + pin + ": " + e.getMessage());
      }
    }
  }
}

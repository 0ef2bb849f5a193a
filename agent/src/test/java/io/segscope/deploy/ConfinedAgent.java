package io.segscope.deploy;

import io.segscope.testing.Readiness;
import java.io.IOException;
import java.math.BigInteger;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * The agent jar run the way the DaemonSet confines it, approximated on the host: a private mount
 * namespace (host mounts still propagate in, like HostToContainer) with a read-only root, tracefs
 * read-only, debugfs and bpffs unmounted, fresh tmpfs on /tmp and /var/tmp, the jar alone (read-only)
 * at the image's path {@value #IMAGE_JAR}, the working directory /, and a capability bounding set of
 * exactly the DaemonSet's capabilities (root, no new privileges).
 *
 * <p>The jar is bound to {@value #IMAGE_JAR} before the tmpfs mounts cover /tmp and /var/tmp, so a
 * checkout anywhere (also under /tmp, where people try things) works, and the agent sees nothing of
 * the checkout but the jar, as in the image.
 */
final class ConfinedAgent implements AutoCloseable {
  /** Where the image (deploy/container/Containerfile) has the jar. */
  static final String IMAGE_JAR = "/opt/segscope/segscope.jar";

  /** The image's ENTRYPOINT and ENV, read from deploy/container/Containerfile. */
  private static final ContainerImage IMAGE = ContainerImage.read();

  /** Capability numbers (linux/capability.h) of the names the manifests use. */
  private static final Map<String, Integer> CAP_BITS = Map.of("SYS_ADMIN", 21, "SYSLOG", 34, "PERFMON", 38,
      "BPF", 39, "NET_ADMIN", 12, "SYS_PTRACE", 19);

  /** Runs as {@code sh -c SETUP segscope-confined JAR COMMAND...} inside the new mount namespace. */
  private static final String SETUP = String.join("\n",
      "set -e",
      "jar=$1; shift",
      // a small read-only tmpfs over /opt holding only the jar (the host's /opt stays untouched)
      "mount -t tmpfs -o size=1m,mode=0755 tmpfs /opt",
      "mkdir /opt/segscope",
      ": > " + IMAGE_JAR,
      "mount --bind \"$jar\" " + IMAGE_JAR,
      "mount -o remount,bind,ro " + IMAGE_JAR,
      "mount -o remount,ro /opt",
      "umount -l /sys/kernel/debug 2>/dev/null || true",
      "umount -l /sys/fs/bpf 2>/dev/null || true",
      "mount -o remount,bind,ro /sys/kernel/tracing",
      "mount -t tmpfs -o size=256m,mode=1777 tmpfs /tmp",
      "mount -t tmpfs -o size=64m,mode=1777 tmpfs /var/tmp",
      "mount -o remount,bind,ro /",
      "cd /",
      "exec \"$@\"");

  private final Process process;
  private final Path log;
  private final int port;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private ConfinedAgent(Process process, Path log, int port) {
    this.process = process;
    this.log = log;
    this.port = port;
  }

  static ConfinedAgent start(Path jar, Path logDir, String... agentArgs) throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    StringBuilder caps = new StringBuilder("-all");
    new TreeSet<>(KubernetesManifestsTest.CAPABILITIES)
        .forEach(c -> caps.append(",+").append(c.toLowerCase(Locale.ROOT)));
    List<String> cmd = new ArrayList<>(List.of(Tool.UNSHARE.executable().toString(), "--mount", "--propagation",
        "slave", "/bin/sh", "-c", SETUP, "segscope-confined", jar.toAbsolutePath().toString(),
        Tool.SETPRIV.executable().toString(), "--bounding-set=" + caps, "--inh-caps=-all", "--no-new-privs",
        Tool.ENV.executable().toString()));
    // the image's environment and ENTRYPOINT (JVM flags and jar path), not a copy of them
    IMAGE.env().forEach((k, v) -> cmd.add(k + "=" + v));
    cmd.addAll(IMAGE.entrypoint());
    cmd.addAll(List.of("run", "--listen", "127.0.0.1:" + port));
    cmd.addAll(List.of(agentArgs));
    Path log = logDir.resolve("agent.log");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    return new ConfinedAgent(p, log, port);
  }

  int port() {
    return port;
  }

  /** The agent's PID (the shell and setpriv exec into the JVM). */
  long pid() {
    return process.pid();
  }

  void awaitReady(Duration timeout) throws Exception {
    Readiness.await("the confined agent", process, () -> get("/readyz").statusCode(), timeout, this::log);
  }

  /** The capability names in the agent process' effective set (from /proc/PID/status). */
  TreeSet<String> effectiveCapabilities() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + process.pid() + "/status"))) {
      if (line.startsWith("CapEff:")) {
        BigInteger eff = new BigInteger(line.substring(7).trim(), 16);
        TreeSet<String> names = new TreeSet<>();
        for (int bit = 0; bit < eff.bitLength(); bit++) {
          if (eff.testBit(bit)) {
            int b = bit;
            names.add(CAP_BITS.entrySet().stream().filter(e -> e.getValue() == b).map(Map.Entry::getKey)
                .findFirst().orElse("bit" + b));
          }
        }
        return names;
      }
    }
    throw new AssertionError("read /proc/" + process.pid() + "/status: no CapEff line");
  }

  /** Whether {@code path} exists in the agent's view of the file system (its mount namespace). */
  boolean sees(Path path) {
    return Files
        .exists(Path.of("/proc/" + process.pid() + "/root").resolve(path.toAbsolutePath().toString().substring(1)));
  }

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10)).build();
    return http.send(req, HttpResponse.BodyHandlers.ofString());
  }

  String log() throws IOException {
    return Files.exists(log) ? Files.readString(log) : "";
  }

  @Override
  public void close() throws Exception {
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    }
  }
}

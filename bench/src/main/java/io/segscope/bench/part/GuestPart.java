package io.segscope.bench.part;

import io.segscope.bench.common.Results;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Part 4, the host's half: boots Debian's 6.1 kernel with {@code scripts/guest-run} with one online CPU
 * and {@link BenchConfig#guestMaxCpus()} possible ones (a JVM crashes under multi-vCPU emulation
 * here, see docs/guest-kernel.md) and runs {@code segscope-bench guest-memory} inside; reads back what it
 * wrote to the shared output directory.
 */
public final class GuestPart {
  private static final Logger LOG = Logger.getLogger(GuestPart.class.getName());
  static final int TIMEOUT_SECONDS = 1500;

  private final BenchConfig config;
  private final Results results;

  public GuestPart(BenchConfig config, Results results) {
    this.config = config;
    this.results = results;
  }

  public GuestResult run() throws Exception {
    Path dir = results.dir().resolve("guest").toAbsolutePath();
    Files.createDirectories(dir);
    String smp = "1,maxcpus=" + config.guestMaxCpus();
    List<String> cmd = new ArrayList<>(List.of(config.root().resolve("scripts/guest-run").toString(),
        "--cpus", "1", "--maxcpus", Integer.toString(config.guestMaxCpus()), "--mem", "2G",
        "--timeout", Integer.toString(TIMEOUT_SECONDS), "--out", dir.toString(), "--quiet", "--",
        java(), "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-jar", config.benchJar().toString(), "guest-memory",
        "--agent-jar", config.agentJar().toString(), "--launcher", config.launcherScript().toString(),
        "--out", dir.resolve("result").toString(), "--devices", Integer.toString(config.guestDevices()),
        "--smp", smp));
    LOG.info("guest: booting Debian's 6.1 kernel with -smp " + smp + " (" + config.guestDevices() + " devices)");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("guest-run.log").toFile())
        .start();
    GuestResult r;
    if (!p.waitFor(TIMEOUT_SECONDS + 60, TimeUnit.SECONDS)) {
      p.destroy();
      p.waitFor(20, TimeUnit.SECONDS);
      r = GuestResult.failed(smp, "scripts/guest-run did not end within " + (TIMEOUT_SECONDS + 60) + " s");
    } else {
      GuestResult inside = new Results(dir.resolve("result")).read("guest", GuestResult.class);
      if (inside != null) {
        r = inside;
      } else {
        r = GuestResult.failed(smp, "scripts/guest-run exited " + p.exitValue() + " without a result; its last lines: "
            + tail(dir.resolve("stdout"), 12) + " " + tail(dir.resolve("guest-run.log"), 6));
      }
    }
    results.write("guest", r);
    return r;
  }

  static String tail(Path file, int lines) {
    try {
      List<String> all = Files.readAllLines(file);
      return String.join(" / ", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no " + file.getFileName() + ")";
    }
  }

  /** This JVM's java binary: the guest sees the host's filesystem, so the same path works inside. */
  private static String java() {
    return ProcessHandle.current().info().command().orElse("java");
  }
}

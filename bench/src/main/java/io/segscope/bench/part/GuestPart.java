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
 * Part 4, the host's half: boots Debian's 6.1 kernel with {@code scripts/guest-run} twice, with one online CPU
 * (a JVM crashes under multi-vCPU emulation here, see docs/guest-kernel.md): once with one possible CPU for
 * {@code segscope-bench guest-cost} (kprobe and fentry mode's cost, {@link GuestCost}), once with
 * {@link BenchConfig#guestMaxCpus()} possible ones for {@code segscope-bench guest-memory}; reads back what each
 * wrote to the shared output directory. A boot that fails is recorded and the other still runs.
 */
public final class GuestPart {
  private static final Logger LOG = Logger.getLogger(GuestPart.class.getName());
  static final int TIMEOUT_SECONDS = 1500;
  /** Four agent starts (about 1.5 min each under emulation), a bpftrace start, and the traffic. */
  static final int COST_TIMEOUT_SECONDS = 2400;

  private final BenchConfig config;
  private final Results results;

  public GuestPart(BenchConfig config, Results results) {
    this.config = config;
    this.results = results;
  }

  public GuestResult run() throws Exception {
    try {
      cost();
    } catch (Exception e) {
      LOG.severe("guest cost: " + e.getMessage());
      results.write("guest-cost", GuestCostResult.failed(e.getClass().getSimpleName() + ": " + e.getMessage()));
    }
    return memory();
  }

  /** The cost boot: kprobe and fentry mode over S1, S0 and 64-byte UDP ({@link GuestCost}). */
  GuestCostResult cost() throws Exception {
    Path dir = results.dir().resolve("guest-cost").toAbsolutePath();
    Files.createDirectories(dir);
    List<String> cmd = new ArrayList<>(List.of(config.root().resolve("scripts/guest-run").toString(),
        "--cpus", "1", "--mem", "2G", "--timeout", Integer.toString(COST_TIMEOUT_SECONDS), "--out", dir.toString(),
        "--quiet", "--", java(), "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-jar", config.benchJar().toString(), "guest-cost",
        "--agent-jar", config.agentJar().toString(), "--launcher", config.launcherScript().toString(),
        "--out", dir.resolve("result").toString(), "--pairs", Integer.toString(config.guestPairs())));
    LOG.info("guest: booting Debian's 6.1 kernel with one vCPU for kprobe and fentry mode's cost ("
        + config.guestPairs() + " pairs of 64-byte UDP rounds per mode)");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("guest-run.log").toFile())
        .start();
    GuestCostResult r;
    if (!p.waitFor(COST_TIMEOUT_SECONDS + 60, TimeUnit.SECONDS)) {
      p.destroy();
      p.waitFor(20, TimeUnit.SECONDS);
      r = GuestCostResult.failed("scripts/guest-run did not end within " + (COST_TIMEOUT_SECONDS + 60) + " s");
    } else {
      GuestCostResult inside = new Results(dir.resolve("result")).read("guest-cost", GuestCostResult.class);
      if (inside != null && p.exitValue() == 0) {
        r = inside;
      } else if (inside != null) {
        r = new GuestCostResult(inside.kernel(), inside.segmentation(), inside.modes(), "scripts/guest-run exited "
            + p.exitValue() + " after " + inside.modes().size() + " of the modes; its last lines: "
            + tail(dir.resolve("stdout"), 6));
      } else {
        r = GuestCostResult.failed("scripts/guest-run exited " + p.exitValue() + " without a result; its last lines: "
            + tail(dir.resolve("stdout"), 12) + " " + tail(dir.resolve("guest-run.log"), 6));
      }
    }
    results.write("guest-cost", r);
    return r;
  }

  /** The memory boot. */
  GuestResult memory() throws Exception {
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

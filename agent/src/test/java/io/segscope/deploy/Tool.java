package io.segscope.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.testkit.Requirement;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An external program a test runs (promtool, systemd-analyze, bash). A missing program skips the
 * test with the reason, except under {@code CI=true}, where it fails it.
 */
record Tool(Path executable, String installHint) {

  static final Tool PROMTOOL = new Tool(Path.of("/usr/bin/promtool"), "apt-get install prometheus");
  static final Tool PROMETHEUS = new Tool(Path.of("/usr/bin/prometheus"), "apt-get install prometheus");
  static final Tool SYSTEMD_ANALYZE = new Tool(Path.of("/usr/bin/systemd-analyze"), "apt-get install systemd");
  static final Tool BASH = new Tool(Path.of("/bin/bash"), "apt-get install bash");
  static final Tool UNSHARE = new Tool(Path.of("/usr/bin/unshare"), "apt-get install util-linux");
  static final Tool SETPRIV = new Tool(Path.of("/usr/bin/setpriv"), "apt-get install util-linux");
  static final Tool ENV = new Tool(Path.of("/usr/bin/env"), "apt-get install coreutils");

  /** Skips (or, under CI=true, fails) the calling test when the program is not installed. */
  Tool require() {
    Requirement.require(Files.isExecutable(executable), executable + " not installed (" + installHint + ")");
    return this;
  }

  /** What one run printed (stdout and stderr together) and its exit status. */
  record Result(int exitCode, String output) {}

  Result run(Path workDir, String... args) {
    return runWithInput(workDir, null, args);
  }

  /** Runs with standard input read from a file (null: no input). */
  Result runWithInput(Path workDir, Path input, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(executable.toString());
    cmd.addAll(List.of(args));
    try {
      Path out = Files.createTempFile("segscope-tool", ".out");
      try {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(workDir.toFile()).redirectErrorStream(true)
            .redirectOutput(out.toFile());
        if (input != null) {
          pb.redirectInput(input.toFile());
        }
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          throw new AssertionError("run " + String.join(" ", cmd) + ": no exit within 120 s");
        }
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
      } finally {
        Files.deleteIfExists(out);
      }
    } catch (IOException e) {
      throw new AssertionError("run " + String.join(" ", cmd) + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("run " + String.join(" ", cmd) + ": interrupted", e);
    }
  }
}

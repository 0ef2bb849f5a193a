package io.segscope.probes.bcc;

import io.segscope.testkit.Requirement;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Prerequisites of lab tests ({@link Requirement}: skipped with a reason, failing under CI=true). */
final class Lab {
  private Lab() {}

  static void require(boolean present, String reason) {
    Requirement.require(present, reason);
  }

  /** Root, a usable libbcc 0.26 and the syscalls tracepoints the tests attach to. */
  static void requireBccLab() {
    require(isRoot(), "needs root (CAP_BPF, CAP_PERFMON, tracefs)");
    String problem = "";
    try {
      Bcc.requireCompatible();
    } catch (BccException e) {
      problem = e.getMessage();
    }
    require(problem.isEmpty(), "libbcc 0.26 unusable: " + problem);
    require(Files.isDirectory(Path.of("/sys/kernel/tracing/events/syscalls/sys_enter_getppid")),
        "tracepoint syscalls:sys_enter_getppid missing (CONFIG_FTRACE_SYSCALLS)");
  }

  static boolean isRoot() {
    try {
      return Files.readAllLines(Path.of("/proc/self/status")).stream()
          .filter(line -> line.startsWith("Uid:"))
          .anyMatch(line -> line.split("\\s+")[2].equals("0"));
    } catch (IOException e) {
      return false;
    }
  }
}

package io.segscope.probes.bcc;

import io.segscope.testkit.Await;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Independent views of the kernel for lab tests: fdinfo, bpftool, sysctl. */
final class LabKernel {
  private LabKernel() {}

  /** A field such as "prog_id" or "map_id" from /proc/self/fdinfo/&lt;fd&gt;. */
  static long fdinfo(int fd, String field) throws IOException {
    return Files.readAllLines(Path.of("/proc/self/fdinfo/" + fd)).stream()
        .filter(line -> line.startsWith(field + ":"))
        .mapToLong(line -> Long.parseLong(line.substring(field.length() + 1).strip()))
        .findFirst()
        .orElseThrow(() -> new IOException("fd " + fd + " has no " + field + " in its fdinfo"));
  }

  /** Whether bpftool still finds a BPF object, e.g. exists("prog", 42). */
  static boolean exists(String kind, long id) throws IOException, InterruptedException {
    Process bpftool = new ProcessBuilder("bpftool", kind, "show", "id", Long.toString(id))
        .redirectErrorStream(true).start();
    bpftool.getInputStream().readAllBytes();
    if (!bpftool.waitFor(10, TimeUnit.SECONDS)) {
      bpftool.destroyForcibly();
      throw new IOException("bpftool " + kind + " show id " + id + " did not finish");
    }
    return bpftool.exitValue() == 0;
  }

  /** Waits up to 3 s for the kernel to drop a BPF object (freeing may trail the last close). */
  static boolean gone(String kind, long id) throws Exception {
    return Await.atMost(Duration.ofSeconds(3)).every(Duration.ofMillis(100)).until(() -> !exists(kind, id));
  }

  static boolean hasBpftool() {
    try {
      Process p = new ProcessBuilder("bpftool", "version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  static String readSysctl(String path) throws IOException {
    return Files.readString(Path.of(path), StandardCharsets.US_ASCII).strip();
  }

  static void writeSysctl(String path, String value) throws IOException {
    Files.writeString(Path.of(path), value + "\n", StandardCharsets.US_ASCII);
  }

  /** How many of this process's fds point at an anon inode of the given kind, e.g. "[perf_event]". */
  static long openAnonInodes(String kind) throws IOException {
    try (var fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.map(LabKernel::linkTarget).filter(("anon_inode:" + kind)::equals).count();
    }
  }

  /** What /proc/self/fd/&lt;fd&gt; points at, "" when the fd is not open. */
  static String fdTarget(int fd) {
    return linkTarget(Path.of("/proc/self/fd/" + fd));
  }

  private static String linkTarget(Path link) {
    try {
      return Files.readSymbolicLink(link).toString();
    } catch (IOException e) {
      return "";
    }
  }
}

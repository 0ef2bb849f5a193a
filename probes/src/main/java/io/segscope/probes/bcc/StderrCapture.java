package io.segscope.probes.bcc;

import io.segscope.host.sys.Libc;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * Runs a native call with file descriptor 2 pointed at a temporary file, so what libbcc and clang
 * print while compiling (clang's diagnostics, warnings) becomes data: it travels in the exception of
 * a failed compile, or is logged at debug level after a successful one ({@link BpfModule}). It is not
 * written back to fd 2: raw library output on a person's screen reads as a failure.
 *
 * <p>Calls are serialised by one lock. While a call runs (a compile takes ~0.4 s), whatever other
 * threads write to fd 2 lands in the file as well; the agent's log handler therefore writes to its
 * own duplicate of fd 2, so log records never do. The file never has a name ({@code O_TMPFILE}): an
 * exit during the call leaves nothing in the temporary directory. When the redirect cannot be set up
 * (no temp dir, fd 2 closed) the call simply runs uncaptured and {@link Captured#captured()} is false.
 */
final class StderrCapture {
  private static final Object LOCK = new Object();
  private static final int MAX_KEPT_BYTES = 64 * 1024;

  /** The call's value, what it printed (possibly trimmed) and whether printing was captured. */
  record Captured<T>(T value, String stderr, boolean captured) {}

  private StderrCapture() {}

  static <T> Captured<T> around(Supplier<T> call) {
    synchronized (LOCK) {
      int fileFd = namelessFile();
      if (fileFd < 0) {
        return new Captured<>(call.get(), "", false);
      }
      try {
        return redirected(call, fileFd);
      } finally {
        Libc.INSTANCE.close(fileFd);
      }
    }
  }

  /**
   * A file with no name in the temporary directory, open for writing: it goes with its descriptor, so
   * a process that exits in the middle of a compile (SIGTERM while clang runs) leaves nothing behind.
   * Where the file system has no {@code O_TMPFILE}, a named file is unlinked right after it is opened.
   * -1 when neither works.
   */
  private static int namelessFile() {
    Libc libc = Libc.INSTANCE;
    String dir = System.getProperty("java.io.tmpdir", "/tmp");
    int fd = libc.open(dir, Libc.O_TMPFILE | Libc.O_WRONLY | Libc.O_CLOEXEC, 0600);
    if (fd >= 0) {
      return fd;
    }
    try {
      Path file = Files.createTempFile("segscope-bcc-", ".stderr");
      try {
        return libc.open(file.toString(), Libc.O_WRONLY | Libc.O_CLOEXEC, 0600);
      } finally {
        Files.deleteIfExists(file);
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  private static <T> Captured<T> redirected(Supplier<T> call, int fileFd) {
    Libc libc = Libc.INSTANCE;
    System.err.flush();
    int saved = libc.fcntl(Libc.STDERR, Libc.F_DUPFD_CLOEXEC, 3);
    if (saved < 0 || libc.dup2(fileFd, Libc.STDERR) < 0) {
      if (saved >= 0) {
        libc.close(saved);
      }
      return new Captured<>(call.get(), "", false);
    }
    T value;
    try {
      value = call.get();
    } finally {
      libc.dup2(saved, Libc.STDERR);
      libc.close(saved);
    }
    return new Captured<>(value, read(Path.of("/proc/self/fd/" + fileFd)), true);
  }

  /** (The start of) the captured bytes as text. */
  private static String read(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      return new String(in.readNBytes(MAX_KEPT_BYTES), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "[reading captured stderr failed: " + e.getMessage() + "]";
    }
  }
}

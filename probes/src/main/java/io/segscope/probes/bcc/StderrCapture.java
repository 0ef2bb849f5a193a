package io.segscope.probes.bcc;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * Runs a native call with file descriptor 2 pointed at a temporary file, so what libbcc and clang
 * print (compile diagnostics, attach complaints, load hints) can travel in the exception.
 *
 * <p>Nothing is lost: after fd 2 is restored the captured bytes are written back to it. Calls are
 * serialised by one lock. Caveat: while a call runs (a compile takes ~0.4 s), output that other
 * threads write to fd 2 also lands in the file — it is echoed late, and may show up in that call's
 * diagnostics. When the redirect cannot be set up (no temp dir, fd 2 closed) the call simply runs
 * uncaptured and {@link Captured#captured()} is false.
 */
final class StderrCapture {
  private static final Object LOCK = new Object();
  private static final int MAX_KEPT_CHARS = 64 * 1024;

  /** The call's value, what it printed (possibly trimmed) and whether printing was captured. */
  record Captured<T>(T value, String stderr, boolean captured) {}

  /** An int-returning native call's result, errno read right after it only when it failed. */
  record IntResult(int value, int errno) {
    static IntResult of(int ret) {
      return new IntResult(ret, ret < 0 ? Errno.ofFailure(ret) : 0);
    }

    boolean failed() {
      return value < 0;
    }
  }

  private StderrCapture() {}

  static <T> Captured<T> around(Supplier<T> call) {
    synchronized (LOCK) {
      Path file;
      try {
        file = Files.createTempFile("segscope-bcc-", ".stderr");
      } catch (IOException | RuntimeException e) {
        return new Captured<>(call.get(), "", false);
      }
      try {
        return redirected(call, file);
      } finally {
        try {
          Files.deleteIfExists(file);
        } catch (IOException ignored) {
          // a leftover empty temp file is harmless
        }
      }
    }
  }

  private static <T> Captured<T> redirected(Supplier<T> call, Path file) {
    Libc libc = Libc.INSTANCE;
    int fileFd = libc.open(file.toString(), Libc.O_WRONLY | Libc.O_CLOEXEC, 0600);
    if (fileFd < 0) {
      return new Captured<>(call.get(), "", false);
    }
    System.err.flush();
    int saved = libc.fcntl(Libc.STDERR, Libc.F_DUPFD_CLOEXEC, 3);
    if (saved < 0 || libc.dup2(fileFd, Libc.STDERR) < 0) {
      if (saved >= 0) {
        libc.close(saved);
      }
      libc.close(fileFd);
      return new Captured<>(call.get(), "", false);
    }
    T value;
    try {
      value = call.get();
    } finally {
      libc.dup2(saved, Libc.STDERR);
      libc.close(saved);
      libc.close(fileFd);
    }
    return new Captured<>(value, echo(file), true);
  }

  /** Writes the captured bytes back to fd 2 and returns (the start of) them as text. */
  private static String echo(Path file) {
    StringBuilder kept = new StringBuilder();
    FileOutputStream stderr = new FileOutputStream(FileDescriptor.err);
    try (InputStream in = Files.newInputStream(file)) {
      byte[] buffer = new byte[8192];
      for (int n; (n = in.read(buffer)) > 0; ) {
        stderr.write(buffer, 0, n);
        if (kept.length() < MAX_KEPT_CHARS) {
          kept.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
        }
      }
      stderr.flush();
    } catch (IOException e) {
      kept.append("[reading captured stderr failed: ").append(e.getMessage()).append(']');
    }
    return kept.length() > MAX_KEPT_CHARS ? kept.substring(0, MAX_KEPT_CHARS) : kept.toString();
  }
}

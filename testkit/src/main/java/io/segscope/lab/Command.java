package io.segscope.lab;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Runs one external command with a deadline; fails loudly with the command line and its stderr. */
final class Command {
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  /** What a finished command left behind. */
  record Result(List<String> argv, int exitCode, String stdout, String stderr) {
    boolean ok() {
      return exitCode == 0;
    }
  }

  private Command() {
  }

  /** Runs {@code argv}; returns its stdout; throws {@link LabException} on a non-zero exit or timeout. */
  static String run(List<String> argv) {
    return run(argv, DEFAULT_TIMEOUT);
  }

  static String run(List<String> argv, Duration timeout) {
    Result r = attempt(argv, timeout);
    if (!r.ok()) {
      throw new LabException("run `" + line(argv) + "`: exit " + r.exitCode() + ": " + describe(r.stderr()));
    }
    return r.stdout();
  }

  /** Runs {@code argv} and returns whatever happened; throws only if it cannot start or times out. */
  static Result attempt(List<String> argv, Duration timeout) {
    return attempt(argv, null, timeout);
  }

  /**
   * Runs {@code argv} with {@code stdin} (UTF-8) as its standard input, {@code /dev/null} when null, and returns
   * whatever happened; throws only if it cannot start or times out.
   */
  static Result attempt(List<String> argv, String stdin, Duration timeout) {
    ProcessBuilder pb = new ProcessBuilder(argv);
    pb.environment().put("LC_ALL", "C");
    if (stdin == null) {
      pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    }
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new LabException("run `" + line(argv) + "`: cannot start: " + e.getMessage(), e);
    }
    CompletableFuture<String> out = drain(p.getInputStream());
    CompletableFuture<String> err = drain(p.getErrorStream());
    if (stdin != null) {
      try (OutputStream in = p.getOutputStream()) {
        in.write(stdin.getBytes(StandardCharsets.UTF_8));
      } catch (IOException e) {
        p.destroyForcibly();
        throw new LabException("run `" + line(argv) + "`: write its input: " + e.getMessage(), e);
      }
    }
    try {
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        p.waitFor(5, TimeUnit.SECONDS);
        throw new LabException("run `" + line(argv) + "`: timed out after " + timeout.toMillis()
            + " ms: " + describe(err.getNow("")));
      }
      return new Result(List.copyOf(argv), p.exitValue(), out.get(), err.get());
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new LabException("run `" + line(argv) + "`: interrupted", e);
    } catch (ExecutionException e) {
      throw new LabException("run `" + line(argv) + "`: read output: " + e.getCause().getMessage(), e);
    }
  }

  static String line(List<String> argv) {
    return String.join(" ", argv);
  }

  private static String describe(String stderr) {
    String s = stderr.strip();
    return s.isEmpty() ? "(no stderr)" : s;
  }

  private static CompletableFuture<String> drain(InputStream in) {
    CompletableFuture<String> f = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try (in) {
        f.complete(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      } catch (IOException e) {
        f.completeExceptionally(new UncheckedIOException(e));
      }
    }, "lab-command-drain");
    t.setDaemon(true);
    t.start();
    return f;
  }
}

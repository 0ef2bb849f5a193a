package io.segscope.probes.compile;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Compiles in a short-lived child JVM ({@link CompilerMain}, the same jar) so libbcc and LLVM — about
 * 200 MiB of RSS after one compile, most of which glibc never returns — are never loaded into the
 * long-running agent. The child gets the request on stdin and answers with a {@link CompiledObject}
 * on stdout; its stderr (clang's diagnostics) is kept for the error message. It is killed (SIGKILL)
 * when it overruns {@code timeout}, at once when the calling thread is interrupted (a SIGTERM to the
 * agent during a start does that), and by the kernel if this process dies (PR_SET_PDEATHSIG, which
 * the kernel sends when the THREAD that started the child ends: {@link #compile} waits for the child on
 * that thread, so the thread never ends first).
 */
public final class CompilerProcess {
  private final List<String> command;
  private final Duration timeout;

  /**
   * @param command the child's command line up to (not including) its arguments, e.g. {@link #sameJvm()}
   */
  public CompilerProcess(List<String> command, Duration timeout) {
    this.command = List.copyOf(command);
    this.timeout = Objects.requireNonNull(timeout, "timeout");
  }

  /**
   * This JVM's java binary and class path, with a small heap: the child only drives libbcc. It leaves
   * nothing behind when killed: no hsperfdata file (-XX:-UsePerfData), its temporary files where this
   * JVM keeps its own ({@code java.io.tmpdir}, {@code jna.tmpdir} passed on), and it ends at once on an
   * OutOfMemoryError instead of hanging half-alive.
   */
  public static List<String> sameJvm() {
    String java = ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> cmd = new ArrayList<>(List.of(java, "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-Xshare:auto", "-XX:-UsePerfData", "-XX:+ExitOnOutOfMemoryError"));
    for (String p : List.of("java.io.tmpdir", "jna.tmpdir")) {
      String v = System.getProperty(p);
      if (v != null && !v.isEmpty()) {
        cmd.add("-D" + p + "=" + v);
      }
    }
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), CompilerMain.class.getName()));
    return List.copyOf(cmd);
  }

  /** Compiles in a child of this JVM with a 5-minute limit (a compile under software emulation takes ~10 s). */
  public static CompilerProcess ofThisJvm() {
    return new CompilerProcess(sameJvm(), Duration.ofMinutes(5));
  }

  /**
   * Compiles {@code text} with {@code cflags}.
   *
   * @throws CompileException naming what failed: the child could not start, was killed or timed out,
   *     or the compile failed (then with clang's last diagnostics lines)
   */
  public CompiledObject compile(String name, String text, List<String> cflags) throws CompileException,
      InterruptedException {
    List<String> cmd = new ArrayList<>(command);
    cmd.add(Long.toString(ProcessHandle.current().pid()));
    Process child;
    try {
      child = new ProcessBuilder(cmd).start();
    } catch (IOException e) {
      throw new CompileException("start the compiler process " + cmd.get(0) + ": " + e.getMessage(), "");
    }
    try {
      CompletableFuture<byte[]> stdout = drain(child.getInputStream());
      CompletableFuture<byte[]> stderr = drain(child.getErrorStream());
      try (DataOutputStream req = new DataOutputStream(child.getOutputStream())) {
        req.writeUTF(name);
        byte[] t = text.getBytes(StandardCharsets.UTF_8);
        req.writeInt(t.length);
        req.write(t);
        req.writeInt(cflags.size());
        for (String f : cflags) {
          req.writeUTF(f);
        }
      } catch (IOException e) {
        // the child died before reading: its exit status and stderr say why, below
      }
      if (!child.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        child.destroyForcibly();
        throw new CompileException("compile " + name + ": the compiler process did not finish within " + timeout,
            text(stderr));
      }
      String diagnostics = text(stderr);
      if (child.exitValue() != 0) {
        throw new CompileException("compile " + name + ": " + lastLines(diagnostics, 1)
            .replaceFirst("^segscope compiler: ", ""), diagnostics);
      }
      try {
        return CompiledObject.readFrom(new DataInputStream(new ByteArrayInputStream(stdout.join())));
      } catch (IOException e) {
        throw new CompileException("compile " + name + ": unreadable answer from the compiler process: "
            + e.getMessage(), diagnostics);
      }
    } finally {
      if (child.isAlive()) {
        child.destroyForcibly();
        reap(child);
      }
    }
  }

  /** Waits (up to 2 s) until a killed child is gone, keeping this thread's interrupt status. */
  private static void reap(Process child) {
    boolean interrupted = Thread.interrupted();
    try {
      child.waitFor(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      interrupted = true;
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static CompletableFuture<byte[]> drain(InputStream in) {
    return CompletableFuture.supplyAsync(() -> {
      try (in) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        in.transferTo(out);
        return out.toByteArray();
      } catch (IOException e) {
        return new byte[0];
      }
    });
  }

  private static String text(CompletableFuture<byte[]> f) {
    try {
      return new String(f.get(5, TimeUnit.SECONDS), StandardCharsets.UTF_8);
    } catch (Exception e) {
      return "";
    }
  }

  /** The last {@code n} non-blank lines of {@code text}, joined by " / ". */
  static String lastLines(String text, int n) {
    List<String> lines = new ArrayList<>(Arrays.stream(text.split("\n")).map(String::strip)
        .filter(l -> !l.isEmpty()).toList());
    if (lines.isEmpty()) {
      return "the compiler process failed without a message";
    }
    return String.join(" / ", lines.subList(Math.max(0, lines.size() - n), lines.size()));
  }

  /** A failed compile: the message says what, {@link #diagnostics()} holds what clang and libbcc printed. */
  public static final class CompileException extends Exception {
    private static final long serialVersionUID = 1L;
    private final String diagnostics;

    public CompileException(String message, String diagnostics) {
      super(message);
      this.diagnostics = diagnostics;
    }

    public String diagnostics() {
      return diagnostics;
    }
  }
}

package io.segscope.bench.kernel;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a short host command and returns its stdout; fails with the command line and its stderr. */
public final class Exec {
  private Exec() {}

  public static String run(List<String> argv) {
    try {
      Path err = Files.createTempFile("segscope-bench", ".err");
      try {
        Process p = new ProcessBuilder(argv).redirectError(err.toFile()).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          throw new IllegalStateException("run `" + String.join(" ", argv) + "`: no exit within 60 s");
        }
        if (p.exitValue() != 0) {
          throw new IllegalStateException("run `" + String.join(" ", argv) + "`: exit " + p.exitValue() + ": "
              + Files.readString(err).strip());
        }
        return new String(out, StandardCharsets.UTF_8);
      } finally {
        Files.deleteIfExists(err);
      }
    } catch (IOException e) {
      throw new IllegalStateException("run `" + String.join(" ", argv) + "`: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("run `" + String.join(" ", argv) + "`: interrupted", e);
    }
  }
}

package io.segscope.probes.program;

import io.segscope.lab.Prerequisites;
import io.segscope.lab.Tools;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Pieces of the BPF programs' C text compiled with clang as a host program and run: how the tests
 * call the very functions the kernel runs (the generated {@code dur_slot}, gso.c's call-site rule)
 * with chosen inputs. One compile and one run helper for them all.
 */
final class HostC {
  /** What the BPF headers would give the functions: the integer types and {@code __always_inline}. */
  static final String PRELUDE = String.join("\n",
      "#include <stdio.h>",
      "#include <stdlib.h>",
      "typedef unsigned long long u64;",
      "typedef unsigned int u32;",
      "#ifndef __always_inline", // glibc's sys/cdefs.h has one
      "#define __always_inline inline __attribute__((always_inline))",
      "#endif",
      "");

  private HostC() {}

  /**
   * Writes {@link #PRELUDE} + {@code body} to {@code dir/name.c} and compiles it with -O2 -Wall -Werror
   * (and {@code flags}) into {@code dir/name}; skips (fails under CI) without clang, saying {@code why}.
   */
  static Path compile(Path dir, String name, String body, String why, String... flags) throws Exception {
    if (Tools.clang().isEmpty()) {
      Prerequisites.unmet(why + " needs clang (apt-get install clang)");
    }
    Path source = dir.resolve(name + ".c");
    Files.writeString(source, PRELUDE + body);
    Path binary = dir.resolve(name);
    List<String> cmd = new ArrayList<>(List.of(Tools.clang().get().toString(), "-O2", "-Wall", "-Werror"));
    cmd.addAll(List.of(flags));
    cmd.addAll(List.of("-o", binary.toString(), source.toString()));
    run(cmd, "");
    return binary;
  }

  /** Runs {@code cmd} with {@code stdin}; its output, or an AssertionError naming the exit and output. */
  static String run(List<String> cmd, String stdin) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getOutputStream().write(stdin.getBytes(StandardCharsets.US_ASCII));
    p.getOutputStream().close();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("run " + cmd + ": no exit within 60 s");
    }
    String text = new String(out, StandardCharsets.UTF_8);
    if (p.exitValue() != 0) {
      throw new AssertionError("run " + cmd + ": exit " + p.exitValue() + ": " + text);
    }
    return text;
  }
}

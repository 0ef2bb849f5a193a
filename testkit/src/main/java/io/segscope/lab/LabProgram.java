package io.segscope.lab;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/** Builds one of the lab's small C tools from the test resources with clang (host target) into a directory. */
final class LabProgram {
  private LabProgram() {
  }

  /** Compiles resource {@code io/segscope/lab/<source>} into {@code dir/<binary>} and returns that path. */
  static Path build(Path dir, String source, String binary) {
    String clang = Tools.clang().map(Path::toString).orElseThrow(() -> new LabException(
        "build lab tool " + source + ": no clang installed (apt-get install clang)"));
    Path src = dir.resolve(source);
    Path bin = dir.resolve(binary);
    try (InputStream in = LabProgram.class.getResourceAsStream(source)) {
      if (in == null) {
        throw new LabException("build lab tool: resource io/segscope/lab/" + source + " missing");
      }
      Files.copy(in, src, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new LabException("copy " + source + " to " + dir + ": " + e.getMessage(), e);
    }
    Command.run(List.of(clang, "-O2", "-Wall", "-Werror", src.toString(), "-o", bin.toString()));
    return bin;
  }
}

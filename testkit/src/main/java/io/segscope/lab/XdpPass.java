package io.segscope.lab;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/** Builds the lab's XDP_PASS object from the C source in the test resources, with clang's BPF target. */
public final class XdpPass {
  /** The ELF section holding the program. */
  public static final String SECTION = "xdp";
  private static final String SOURCE = "xdp_pass.c";

  private XdpPass() {
  }

  /** Compiles {@code xdp_pass.c} into {@code dir/xdp_pass.o} and returns that path. */
  public static Path build(Path dir) {
    String clang = Tools.clang().map(Path::toString).orElseThrow(() -> new LabException(
        "build XDP object " + SOURCE + ": no clang with the BPF target installed (apt-get install clang)"));
    Path src = dir.resolve(SOURCE);
    Path obj = dir.resolve("xdp_pass.o");
    try (InputStream in = XdpPass.class.getResourceAsStream(SOURCE)) {
      if (in == null) {
        throw new LabException("build XDP object: resource io/segscope/lab/" + SOURCE + " missing");
      }
      Files.copy(in, src, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new LabException("copy " + SOURCE + " to " + dir + ": " + e.getMessage(), e);
    }
    Command.run(List.of(clang, "-O2", "-g", "-target", "bpf", "-c", src.toString(), "-o", obj.toString()));
    return obj;
  }
}

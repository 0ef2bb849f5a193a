package io.segscope.probes.compile;

import io.segscope.host.sys.Libc;
import io.segscope.probes.bcc.BccException;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The compiler child process ({@link CompilerProcess} starts it): reads one request (name, C text,
 * clang flags) on stdin, compiles it with libbcc, writes the {@link CompiledObject} to its original
 * stdout and exits 0; on failure writes nothing there, says why on stderr and exits 1. Whatever
 * libbcc or clang print goes to stderr (fd 1 is pointed at fd 2 before libbcc loads), never into the
 * result. Dies with its parent (PR_SET_PDEATHSIG).
 */
public final class CompilerMain {
  private static final int PR_SET_PDEATHSIG = 1;
  private static final int SIGKILL = 9;

  private CompilerMain() {}

  public static void main(String[] args) {
    int parent = args.length > 0 ? Integer.parseInt(args[0]) : -1;
    Libc libc = Libc.INSTANCE;
    libc.prctl(PR_SET_PDEATHSIG, (long) SIGKILL, 0L, 0L, 0L);
    if (parent > 0 && libc.getppid() != parent) {
      System.exit(3); // the parent died before we asked to die with it
    }
    int result = libc.dup(1);
    libc.dup2(2, 1);
    try {
      DataInputStream in = new DataInputStream(System.in);
      String name = in.readUTF();
      int textLength = in.readInt();
      byte[] text = new byte[textLength];
      in.readFully(text);
      int n = in.readInt();
      List<String> cflags = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        cflags.add(in.readUTF());
      }
      CompiledObject object = BccCompiler.compile(name, new String(text, StandardCharsets.UTF_8),
          cflags);
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(1 << 16);
      object.writeTo(new DataOutputStream(bytes));
      byte[] b = bytes.toByteArray();
      int off = 0;
      while (off < b.length) {
        byte[] chunk = off == 0 ? b : Arrays.copyOfRange(b, off, b.length);
        long w = libc.write(result, chunk, chunk.length);
        if (w <= 0) {
          System.err.println("segscope compiler: write result: failed");
          System.exit(1);
        }
        off += (int) w;
      }
      System.exit(0);
    } catch (BccException e) {
      System.err.println("segscope compiler: " + e.getMessage());
      if (!e.diagnostics().isBlank()) {
        System.err.println(e.diagnostics().strip());
      }
      System.exit(1);
    } catch (IOException | RuntimeException e) {
      System.err.println("segscope compiler: " + e);
      System.exit(1);
    }
  }
}

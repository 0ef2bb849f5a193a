package io.segscope.bench.agent;

import com.sun.jna.Library;
import com.sun.jna.Native;
import io.segscope.probes.ProbeSession;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the agent's resident memory comes from: run in a fresh JVM with the agent's flags, it opens the
 * agent's own {@link ProbeSession} (libbcc compiles and attaches the programs in-process) and prints
 * VmRSS / RssAnon / RssFile (kB) before, after attaching, and after glibc's {@code malloc_trim(0)} (which
 * hands freed malloc arenas back to the kernel), as one line {@code before=.. attached=.. trimmed=..} of
 * {@code rss/anon/file} triples. Used by the scale part as evidence for the RSS figure.
 */
public final class CompileMemory {
  interface LibC extends Library {
    LibC INSTANCE = Native.load("c", LibC.class);

    int malloc_trim(long pad);
  }

  private CompileMemory() {}

  public static void main(String[] args) throws Exception {
    String before = rss();
    try (ProbeSession s = ProbeSession.openTracepointMode()) {
      String attached = rss();
      LibC.INSTANCE.malloc_trim(0);
      String trimmed = rss();
      System.out.println("before=" + before + " attached=" + attached + " trimmed=" + trimmed);
      System.err.println(s.attachments().size() + " programs attached");
    }
  }

  /** "rss/anon/file" in kB from /proc/self/status. */
  static String rss() throws IOException {
    long rss = 0;
    long anon = 0;
    long file = 0;
    for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
      long v = l.matches("^\\w+:\\s+\\d+ kB$") ? Long.parseLong(l.replaceAll("\\D", "")) : -1;
      if (l.startsWith("VmRSS:")) {
        rss = v;
      } else if (l.startsWith("RssAnon:")) {
        anon = v;
      } else if (l.startsWith("RssFile:")) {
        file = v;
      }
    }
    return rss + "/" + anon + "/" + file;
  }
}

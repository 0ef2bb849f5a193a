package io.segscope.probes;

import com.sun.jna.Library;
import com.sun.jna.Native;

/**
 * Gives memory that libbcc's LLVM freed after a compile back to the operating system
 * ({@code malloc_trim(0)}): glibc keeps freed heap pages otherwise, and the compile is the agent's
 * largest native allocation (BENCHMARKS.md: ~115 MiB anonymous; trimming returned ~29 MiB).
 */
final class NativeMemory {
  interface LibC extends Library {
    int malloc_trim(long pad);
  }

  private static final LibC LIBC = load();

  private NativeMemory() {}

  private static LibC load() {
    try {
      return Native.load("c", LibC.class);
    } catch (UnsatisfiedLinkError e) {
      return null; // not glibc: nothing to trim
    }
  }

  static void trim() {
    if (LIBC != null) {
      try {
        LIBC.malloc_trim(0);
      } catch (UnsatisfiedLinkError e) {
        // a libc without malloc_trim (musl): nothing to give back this way
      }
    }
  }
}

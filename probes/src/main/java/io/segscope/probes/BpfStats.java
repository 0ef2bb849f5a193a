package io.segscope.probes;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;

/**
 * Turns on the kernel's per-program run-time accounting (bpf_stats) for as long as this object is
 * open, through {@code bpf(BPF_ENABLE_STATS)}: unlike the {@code kernel.bpf_stats_enabled} sysctl,
 * the kernel switches it off again when the file descriptor closes, even if the agent dies.
 */
public final class BpfStats implements AutoCloseable {
  private static final long SYS_BPF_X86_64 = 321;
  private static final int BPF_ENABLE_STATS = 32;
  private static final int BPF_STATS_RUN_TIME = 0;

  interface LibC extends Library {
    LibC INSTANCE = Native.load("c", LibC.class);

    long syscall(long number, Object... args);

    int close(int fd);
  }

  private int fd;

  private BpfStats(int fd) {
    this.fd = fd;
  }

  /** Enables run-time stats; throws naming the errno when the kernel refuses. */
  public static BpfStats enable() throws ProbeException {
    if (!"amd64".equals(System.getProperty("os.arch")) && !"x86_64".equals(System.getProperty("os.arch"))) {
      throw new ProbeException("enable bpf_stats: only x86-64 is supported (bpf syscall number)");
    }
    try (Memory attr = new Memory(16)) {
      attr.clear();
      attr.setInt(0, BPF_STATS_RUN_TIME);
      long r = LibC.INSTANCE.syscall(SYS_BPF_X86_64, BPF_ENABLE_STATS, attr, 16);
      if (r < 0) {
        int errno = Native.getLastError();
        throw new ProbeException("enable bpf_stats: bpf(BPF_ENABLE_STATS) failed with errno " + errno
            + " (kernel older than 5.8, or missing CAP_SYS_ADMIN)");
      }
      return new BpfStats((int) r);
    }
  }

  @Override
  public void close() {
    if (fd >= 0) {
      LibC.INSTANCE.close(fd);
      fd = -1;
    }
  }
}

package io.segscope.probes;

import io.segscope.host.sys.SysException;
import io.segscope.probes.sys.Bpf;

/**
 * Turns on the kernel's per-program run-time accounting (bpf_stats) for as long as this object is
 * open, through {@code bpf(BPF_ENABLE_STATS)}: unlike the {@code kernel.bpf_stats_enabled} sysctl,
 * the kernel switches it off again when the file descriptor closes, even if the agent dies. While on,
 * it costs every BPF program on the host two clock reads per run (~65–70 ns measured here), which is
 * why segscope samples it ({@code --self-cost sampled}) instead of leaving it on.
 */
public final class BpfStats implements AutoCloseable {
  private int fd;

  private BpfStats(int fd) {
    this.fd = fd;
  }

  /** Enables run-time stats; throws naming the errno when the kernel refuses (before 5.8, or no CAP_SYS_ADMIN). */
  public static BpfStats enable() throws ProbeException {
    try {
      return new BpfStats(Bpf.enableStats());
    } catch (SysException e) {
      throw new ProbeException("enable bpf_stats: " + e.getMessage()
          + " (kernel older than 5.8, or missing CAP_SYS_ADMIN)", e);
    }
  }

  /** Whether stats are on through this object. */
  public synchronized boolean enabled() {
    return fd >= 0;
  }

  @Override
  public synchronized void close() {
    if (fd >= 0) {
      Bpf.close(fd);
      fd = -1;
    }
  }
}

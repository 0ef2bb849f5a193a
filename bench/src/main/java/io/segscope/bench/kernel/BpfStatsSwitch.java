package io.segscope.bench.kernel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Sets the {@code kernel.bpf_stats_enabled} sysctl to 1 while open and puts the value found back on
 * close. (The agent also turns stats on through a file descriptor while it runs; this switch keeps them on
 * for the bpftrace programs measured next to it, whatever the agent does.)
 */
public final class BpfStatsSwitch implements AutoCloseable {
  static final Path SYSCTL = Path.of("/proc/sys/kernel/bpf_stats_enabled");

  private final String previous;
  private boolean closed;

  private BpfStatsSwitch(String previous) {
    this.previous = previous;
  }

  public static BpfStatsSwitch enable() {
    String before = read();
    write("1");
    return new BpfStatsSwitch(before);
  }

  /** The value the sysctl had before {@link #enable()}. */
  public String previous() {
    return previous;
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      write(previous);
    }
  }

  private static String read() {
    try {
      return Files.readString(SYSCTL).trim();
    } catch (IOException e) {
      throw new IllegalStateException("read " + SYSCTL + ": " + e.getMessage(), e);
    }
  }

  private static void write(String v) {
    try {
      Files.writeString(SYSCTL, v + "\n");
    } catch (IOException e) {
      throw new IllegalStateException("write " + v + " to " + SYSCTL + ": " + e.getMessage(), e);
    }
  }
}

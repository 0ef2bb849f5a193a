package io.segscope.agent.cost;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalDouble;

/**
 * The host's kernel CPU time, the measure the verified savings divide by the bytes a path carried: the
 * {@code system}, {@code irq} and {@code softirq} columns of the {@code cpu} line of /proc/stat, summed
 * over all CPUs, in seconds. Segmenting, copying, forwarding and the socket calls of the senders all run
 * there, whether in a task's system time or in softirq (the split depends on where the stack ran:
 * ksoftirqd, the sender's context, an interrupt). User time is left out: a tenant's own computation is not
 * what a device setting changes. Host-wide: everything else the host does in the kernel is in it too
 * (docs/recommendations.md, *Verified savings*, says what that costs in noise).
 */
public final class HostCpu {
  /** USER_HZ: /proc/stat counts in 1/100 s on every Linux architecture. */
  static final double TICKS_PER_SECOND = 100;

  private HostCpu() {}

  /** The kernel CPU seconds in {@code procStat} (the text of /proc/stat), empty when it has no cpu line. */
  public static OptionalDouble parse(String procStat) {
    for (String line : procStat.split("\n", 16)) {
      if (!line.startsWith("cpu ")) {
        continue;
      }
      String[] f = line.trim().split("\\s+");
      // cpu user nice system idle iowait irq softirq steal ...
      if (f.length < 8) {
        return OptionalDouble.empty();
      }
      try {
        long ticks = Long.parseLong(f[3]) + Long.parseLong(f[6]) + Long.parseLong(f[7]);
        return ticks < 0 ? OptionalDouble.empty() : OptionalDouble.of(ticks / TICKS_PER_SECOND);
      } catch (NumberFormatException e) {
        return OptionalDouble.empty();
      }
    }
    return OptionalDouble.empty();
  }

  /** The host's kernel CPU seconds now, NaN when /proc/stat cannot be read. */
  public static double read() {
    return read(Path.of("/proc/stat"));
  }

  static double read(Path procStat) {
    try {
      return parse(new String(Files.readAllBytes(procStat), StandardCharsets.US_ASCII)).orElse(Double.NaN);
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }
}

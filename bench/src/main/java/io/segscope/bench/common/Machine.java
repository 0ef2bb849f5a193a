package io.segscope.bench.common;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What the benchmarks ran on.
 *
 * @param cpus online processors
 * @param memoryBytes MemTotal
 * @param cpuModel the first "model name" of /proc/cpuinfo
 * @param kernel uname -r
 * @param load /proc/loadavg's 1, 5 and 15 minute load averages when read
 * @param java the JVM running the suite
 */
public record Machine(int cpus, long memoryBytes, String cpuModel, String kernel, double[] load, String java) {

  public static Machine probe() {
    return new Machine(Runtime.getRuntime().availableProcessors(), memTotal(), readCpuModel(),
        System.getProperty("os.version"), loadAverage(), System.getProperty("java.vm.name") + " "
            + System.getProperty("java.version"));
  }

  /** The 1, 5 and 15 minute load averages now. */
  public static double[] loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return new double[] {Double.parseDouble(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2])};
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException("read /proc/loadavg: " + e.getMessage(), e);
    }
  }

  private static long memTotal() {
    for (String l : lines(Path.of("/proc/meminfo"))) {
      if (l.startsWith("MemTotal:")) {
        return Long.parseLong(l.replaceAll("\\D", "")) * 1024;
      }
    }
    throw new IllegalStateException("read /proc/meminfo: no MemTotal line");
  }

  private static String readCpuModel() {
    for (String l : lines(Path.of("/proc/cpuinfo"))) {
      if (l.startsWith("model name")) {
        return l.substring(l.indexOf(':') + 1).trim();
      }
    }
    return "unknown";
  }

  private static List<String> lines(Path p) {
    try {
      return Files.readAllLines(p);
    } catch (IOException e) {
      throw new IllegalStateException("read " + p + ": " + e.getMessage(), e);
    }
  }
}

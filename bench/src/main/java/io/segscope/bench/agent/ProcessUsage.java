package io.segscope.bench.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time and resident memory of one process, from /proc/PID/stat and /proc/PID/status.
 *
 * @param cpuSeconds utime + stime
 * @param rssBytes VmRSS
 * @param atNanos System.nanoTime() when read
 */
public record ProcessUsage(double cpuSeconds, long rssBytes, long atNanos) {
  private static final double CLK_TCK = clockTicks();

  public static ProcessUsage of(long pid) {
    Path stat = Path.of("/proc", Long.toString(pid), "stat");
    Path status = Path.of("/proc", Long.toString(pid), "status");
    try {
      return parse(Files.readString(stat), Files.readString(status), System.nanoTime());
    } catch (IOException e) {
      throw new IllegalStateException("read " + stat + ": " + e.getMessage(), e);
    }
  }

  /** VmHWM of {@code pid}: the most it was ever resident with, bytes. */
  public static long peakRss(long pid) {
    Path status = Path.of("/proc", Long.toString(pid), "status");
    try {
      for (String l : Files.readString(status).split("\n")) {
        if (l.startsWith("VmHWM:")) {
          return Long.parseLong(l.replaceAll("\\D", "")) * 1024;
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("read " + status + ": " + e.getMessage(), e);
    }
    throw new IllegalStateException("read " + status + ": no VmHWM line");
  }

  /** Parses /proc/PID/stat (utime, stime: fields 14 and 15) and /proc/PID/status (VmRSS). */
  static ProcessUsage parse(String stat, String status, long atNanos) {
    int close = stat.lastIndexOf(')');
    if (close < 0) {
      throw new IllegalArgumentException("parse /proc/PID/stat: no ')' after the command name");
    }
    String[] f = stat.substring(close + 1).trim().split("\\s+");
    if (f.length < 13) {
      throw new IllegalArgumentException("parse /proc/PID/stat: " + f.length + " fields after the name, need 13");
    }
    long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
    long rss = -1;
    for (String l : status.split("\n")) {
      if (l.startsWith("VmRSS:")) {
        rss = Long.parseLong(l.replaceAll("\\D", "")) * 1024;
      }
    }
    if (rss < 0) {
      throw new IllegalArgumentException("parse /proc/PID/status: no VmRSS line");
    }
    return new ProcessUsage(ticks / CLK_TCK, rss, atNanos);
  }

  /** CPU used between {@code earlier} and this sample, in cores (1.0 = one CPU busy all the time). */
  public double coresSince(ProcessUsage earlier) {
    double wall = (atNanos - earlier.atNanos) / 1e9;
    if (!(wall > 0)) {
      throw new IllegalArgumentException("cpu between samples: the later sample is not later");
    }
    return (cpuSeconds - earlier.cpuSeconds) / wall;
  }

  private static double clockTicks() {
    try {
      Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
      String s = new String(p.getInputStream().readAllBytes()).trim();
      p.waitFor();
      return Double.parseDouble(s);
    } catch (IOException | NumberFormatException e) {
      return 100;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 100;
    }
  }
}

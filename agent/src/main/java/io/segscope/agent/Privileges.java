package io.segscope.agent;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The capabilities segscope needs, checked from {@code /proc/self/status} before anything is attempted. */
public final class Privileges {
  static final int CAP_NET_ADMIN = 12;
  static final int CAP_SYS_ADMIN = 21;
  static final int CAP_SYSLOG = 34;
  static final int CAP_PERFMON = 38;
  static final int CAP_BPF = 39;

  private Privileges() {}

  /** Names of what is missing, empty when everything is there. */
  public static List<String> missing() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("CapEff:")) {
          return missing(new BigInteger(line.substring(7).trim(), 16));
        }
      }
      return List.of("CapEff line in /proc/self/status");
    } catch (IOException | NumberFormatException e) {
      return List.of("readable /proc/self/status (" + e.getMessage() + ")");
    }
  }

  static List<String> missing(BigInteger eff) {
    List<String> out = new ArrayList<>();
    boolean admin = eff.testBit(CAP_SYS_ADMIN);
    if (!admin && !eff.testBit(CAP_BPF)) {
      out.add("CAP_BPF (load BPF programs and read their maps)");
    }
    if (!admin && !eff.testBit(CAP_PERFMON)) {
      out.add("CAP_PERFMON (attach tracepoints and kprobes)");
    }
    if (!admin) {
      out.add("CAP_SYS_ADMIN (enter other network namespaces with setns)");
    }
    if (!eff.testBit(CAP_SYSLOG)) {
      out.add("CAP_SYSLOG (read kernel symbol addresses from /proc/kallsyms)");
    }
    return out;
  }
}

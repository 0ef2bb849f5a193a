package io.segscope.lab.containerd;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What the host's /proc says about mounts and processes, for {@link PrivateContainerd}'s teardown and its
 * leftovers: the cgroup hierarchies, the mounts under a directory, and whether a process is a lab pod's pause.
 */
final class HostMounts {
  private HostMounts() {}

  /** Mount points of cgroup (v1) and cgroup2 hierarchies. */
  static List<Path> cgroupMounts() {
    List<Path> out = new ArrayList<>();
    for (String[] f : mountinfo()) {
      int dash = List.of(f).indexOf("-");
      if (dash > 0 && dash + 1 < f.length && (f[dash + 1].equals("cgroup") || f[dash + 1].equals("cgroup2"))) {
        out.add(Path.of(unescape(f[4])));
      }
    }
    return out;
  }

  static List<String> mountsUnder(Path dir) {
    List<String> out = new ArrayList<>();
    for (String[] f : mountinfo()) {
      String mp = unescape(f[4]);
      if (mp.startsWith(dir + "/") || mp.equals(dir.toString())) {
        out.add(mp);
      }
    }
    out.sort(Comparator.reverseOrder());
    return out;
  }

  private static List<String[]> mountinfo() {
    try {
      return Files.readAllLines(Path.of("/proc/self/mountinfo")).stream().map(l -> l.split(" ")).toList();
    } catch (IOException e) {
      throw new IllegalStateException("read /proc/self/mountinfo: " + e, e);
    }
  }

  private static String unescape(String s) {
    return s.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\");
  }

  static boolean isPause(long pid) {
    return cmdline(pid).startsWith("/bin/busybox sleep 2147483647");
  }

  static String cmdline(long pid) {
    try {
      return new String(Files.readAllBytes(Path.of("/proc/" + pid + "/cmdline")), StandardCharsets.UTF_8)
          .replace('\0', ' ').strip();
    } catch (IOException e) {
      return "";
    }
  }
}

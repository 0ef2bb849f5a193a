package io.segscope.agent.workload;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The process owning each network namespace: the lowest pid whose /proc/PID/ns/net is that
 * namespace (usually the one that made it: a container's init, a service's main process), named
 * from its cgroup and comm by {@link CgroupOwner}. Processes whose namespace the agent may not read
 * (other users' with more capabilities, when the agent lacks CAP_SYS_PTRACE) are skipped, as the
 * inventory skips them.
 */
final class ProcessOwners {
  /** Bytes read of /proc/PID/cgroup (a few hundred in practice). */
  private static final int MAX_CGROUP_BYTES = 64 * 1024;

  private final Path proc;

  ProcessOwners(Path proc) {
    this.proc = proc;
  }

  /** For each namespace of {@code wanted} that a readable process is in: its owner. */
  Map<Long, Workload> owners(Set<Long> wanted) throws IOException {
    Map<Long, Workload> out = new HashMap<>();
    if (wanted.isEmpty()) {
      return out;
    }
    long nsfs = device(proc.resolve("self/ns/net"));
    Map<Long, Long> lowest = new HashMap<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(proc)) {
      for (Path dir : ds) {
        String f = dir.getFileName().toString();
        if (f.isEmpty() || f.length() > 10 || !f.chars().allMatch(Character::isDigit)) {
          continue;
        }
        long pid = Long.parseLong(f);
        Path ns = dir.resolve("ns/net");
        long ino = inode(ns);
        if (ino < 0 || !wanted.contains(ino) || device(ns) != nsfs) {
          continue;
        }
        lowest.merge(ino, pid, Math::min);
      }
    }
    for (Map.Entry<Long, Long> e : lowest.entrySet()) {
      long pid = e.getValue();
      Path dir = proc.resolve(Long.toString(pid));
      String cgroup = read(dir.resolve("cgroup"));
      String comm = read(dir.resolve("comm"));
      if (cgroup == null || comm == null) {
        continue; // exited meanwhile
      }
      out.put(e.getKey(), CgroupOwner.classify(CgroupOwner.path(cgroup), comm, pid));
    }
    return out;
  }

  private static String read(Path p) {
    try (InputStream in = Files.newInputStream(p)) {
      return new String(in.readNBytes(MAX_CGROUP_BYTES), StandardCharsets.UTF_8);
    } catch (IOException | SecurityException e) {
      return null;
    }
  }

  static long inode(Path p) {
    try {
      return ((Number) Files.getAttribute(p, "unix:ino")).longValue();
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return -1;
    }
  }

  static long device(Path p) {
    try {
      return ((Number) Files.getAttribute(p, "unix:dev")).longValue();
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return -2;
    }
  }
}

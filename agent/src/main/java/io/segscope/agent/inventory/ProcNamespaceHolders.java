package io.segscope.agent.inventory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which network namespaces something on the host still holds, found the way lsns and ip-netns find
 * them: the namespace of every process and thread ({@code /proc/PID/task/TID/ns/net}), every open file
 * descriptor that refers to one ({@code /proc/PID/fd/N} → {@code net:[INODE]}, or the inode in
 * {@code /proc/PID/fdinfo/N} for one opened through a bind mount), and every nsfs bind
 * mount in every mount namespace ({@code /proc/PID/mountinfo}, root {@code net:[INODE]}). What it cannot
 * see: a namespace kept alive only by a socket or by the kernel itself.
 *
 * <p>Asked only about namespaces whose devices stopped counting while the inventory does not follow
 * them, and a scan stops once all are accounted for. Where a holder was found is remembered: asking
 * again first looks there (one readlink, stat or mountinfo read), so only a holder that went away
 * costs a scan. Not thread-safe: one caller (the map reader).
 */
public final class ProcNamespaceHolders {
  private static final Pattern NSFS_NET = Pattern.compile("net:\\[(\\d+)\\]");
  /** The first inode number the kernel gives namespaces (PROC_DYNAMIC_FIRST, include/linux/proc_ns.h). */
  static final long PROC_DYNAMIC_FIRST = 0xF0000000L;

  private final Path proc;
  /** Where each namespace's holder was last found: an fd link, an ns/net file or a mountinfo file. */
  private final Map<Long, Path> holders = new HashMap<>();
  private long scans;

  public ProcNamespaceHolders(Path proc) {
    this.proc = proc;
  }

  /** Full scans of /proc so far (tests: a holder that stays is found again without one). */
  long scans() {
    return scans;
  }

  /** The subset of {@code inodes} some process holds. */
  public Set<Long> held(Set<Long> inodes) {
    Set<Long> found = new HashSet<>();
    for (Long inode : inodes) {
      Path where = holders.get(inode);
      if (where != null && holds(where, inode)) {
        found.add(inode);
      }
    }
    holders.keySet().retainAll(found);
    if (found.size() == inodes.size()) {
      return found;
    }
    scans++;
    Set<Long> mountNamespacesSeen = new HashSet<>();
    for (Path pid : list(proc)) {
      if (!pid.getFileName().toString().chars().allMatch(Character::isDigit)) {
        continue;
      }
      for (Path task : list(pid.resolve("task"))) {
        Path ns = task.resolve("ns/net");
        check(NetnsDiscovery.inode(ns), ns, inodes, found);
      }
      check(NetnsDiscovery.inode(pid.resolve("ns/net")), pid.resolve("ns/net"), inodes, found);
      for (Path fd : list(pid.resolve("fd"))) {
        check(fdNamespace(fd), fd, inodes, found);
      }
      long mnt = NetnsDiscovery.inode(pid.resolve("ns/mnt"));
      if (mnt < 0 || mountNamespacesSeen.add(mnt)) {
        Path mountinfo = pid.resolve("mountinfo");
        for (long inode : mounts(mountinfo)) {
          check(inode, mountinfo, inodes, found);
        }
      }
      if (found.size() == inodes.size()) {
        break;
      }
    }
    return found;
  }

  /** Whether the holder found at {@code where} still holds {@code inode}. */
  private static boolean holds(Path where, long inode) {
    String name = where.getFileName().toString();
    if (name.equals("mountinfo")) {
      return mounts(where).contains(inode);
    }
    if (where.getParent() != null && where.getParent().getFileName().toString().equals("fd")) {
      return fdNamespace(where) == inode;
    }
    return NetnsDiscovery.inode(where) == inode;
  }

  /**
   * The network namespace an open file descriptor refers to, -1 when it refers to none. One opened
   * through /proc/PID/ns/net reads {@code net:[INODE]}; one opened through a bind mount reads as that
   * path, or as "/" once the mount is gone (ip netns delete while the fd stays open): its inode is
   * then taken from /proc/PID/fdinfo/N ("ino:", kernel 5.14+), never from a stat of the file (which
   * could block on a hung network or FUSE mount). Only inodes in the range the kernel numbers
   * namespaces from (0xF0000000 up) count.
   */
  private static long fdNamespace(Path fd) {
    String target;
    try {
      target = Files.readSymbolicLink(fd).toString();
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return -1; // closed meanwhile, or not ours to read
    }
    Matcher m = NSFS_NET.matcher(target);
    if (m.matches()) {
      return Long.parseLong(m.group(1));
    }
    if (!target.startsWith("/") || fd.getParent() == null || fd.getParent().getParent() == null) {
      return -1; // socket:[…], pipe:[…], anon_inode:…
    }
    Path fdinfo = fd.getParent().getParent().resolve("fdinfo").resolve(fd.getFileName());
    try {
      for (String line : Files.readAllLines(fdinfo, StandardCharsets.ISO_8859_1)) {
        if (line.startsWith("ino:")) {
          long ino = Long.parseLong(line.substring(4).strip());
          return ino >= PROC_DYNAMIC_FIRST ? ino : -1;
        }
      }
    } catch (IOException | SecurityException | NumberFormatException e) {
      // closed meanwhile
    }
    return -1;
  }

  /** The network namespaces bind-mounted in one mount namespace: field 4 (the root) is {@code net:[INODE]}. */
  static Set<Long> mounts(Path mountinfo) {
    Set<Long> out = new HashSet<>();
    List<String> lines;
    try {
      lines = Files.readAllLines(mountinfo, StandardCharsets.ISO_8859_1);
    } catch (IOException | SecurityException e) {
      return out;
    }
    for (String line : lines) {
      String[] f = line.split(" ");
      if (f.length > 4) {
        Matcher m = NSFS_NET.matcher(f[3]);
        if (m.matches()) {
          out.add(Long.parseLong(m.group(1)));
        }
      }
    }
    return out;
  }

  private void check(long inode, Path where, Set<Long> inodes, Set<Long> found) {
    if (inode >= 0 && inodes.contains(inode) && found.add(inode)) {
      holders.put(inode, where);
    }
  }

  private static List<Path> list(Path dir) {
    List<Path> out = new ArrayList<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
      s.forEach(out::add);
    } catch (IOException | RuntimeException e) {
      // gone meanwhile, or not readable
    }
    return out;
  }
}

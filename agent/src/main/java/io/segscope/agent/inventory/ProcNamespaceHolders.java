package io.segscope.agent.inventory;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which network namespaces something on the host still holds, found the way lsns and ip-netns find
 * them: the namespace of every process and thread ({@code /proc/PID/task/TID/ns/net}), every open file
 * descriptor that refers to one ({@code /proc/PID/fd/N} → {@code net:[INODE]}), and every nsfs bind
 * mount in every mount namespace ({@code /proc/PID/mountinfo}, root {@code net:[INODE]}). What it cannot
 * see: a namespace kept alive only by a socket or by the kernel itself.
 *
 * <p>Asked only about namespaces whose devices stopped counting while the inventory does not follow
 * them, and it stops at the first process set that accounts for all of them: not a scan per read.
 */
public final class ProcNamespaceHolders {
  private static final Pattern NSFS_NET = Pattern.compile("net:\\[(\\d+)\\]");

  private final Path proc;

  public ProcNamespaceHolders(Path proc) {
    this.proc = proc;
  }

  /** The subset of {@code inodes} some process holds. */
  public Set<Long> held(Set<Long> inodes) {
    Set<Long> found = new HashSet<>();
    if (inodes.isEmpty()) {
      return found;
    }
    Set<Long> mountNamespacesSeen = new HashSet<>();
    for (Path pid : list(proc)) {
      if (!pid.getFileName().toString().chars().allMatch(Character::isDigit)) {
        continue;
      }
      for (Path task : list(pid.resolve("task"))) {
        check(NetnsDiscovery.inode(task.resolve("ns/net")), inodes, found);
      }
      check(NetnsDiscovery.inode(pid.resolve("ns/net")), inodes, found);
      for (Path fd : list(pid.resolve("fd"))) {
        try {
          Matcher m = NSFS_NET.matcher(Files.readSymbolicLink(fd).toString());
          if (m.matches()) {
            check(Long.parseLong(m.group(1)), inodes, found);
          }
        } catch (IOException | UnsupportedOperationException | SecurityException | NumberFormatException e) {
          // closed meanwhile, or not ours to read
        }
      }
      long mnt = NetnsDiscovery.inode(pid.resolve("ns/mnt"));
      if (mnt < 0 || mountNamespacesSeen.add(mnt)) {
        mounts(pid.resolve("mountinfo"), inodes, found);
      }
      if (found.size() == inodes.size()) {
        break;
      }
    }
    return found;
  }

  /** nsfs mounts of one mount namespace: field 4 (the mount's root) is {@code net:[INODE]}. */
  static void mounts(Path mountinfo, Set<Long> inodes, Set<Long> found) {
    List<String> lines;
    try {
      lines = Files.readAllLines(mountinfo, java.nio.charset.StandardCharsets.ISO_8859_1);
    } catch (IOException | SecurityException e) {
      return;
    }
    for (String line : lines) {
      String[] f = line.split(" ");
      if (f.length > 4) {
        Matcher m = NSFS_NET.matcher(f[3]);
        if (m.matches()) {
          check(Long.parseLong(m.group(1)), inodes, found);
        }
      }
    }
  }

  private static void check(long inode, Set<Long> inodes, Set<Long> found) {
    if (inode >= 0 && inodes.contains(inode)) {
      found.add(inode);
    }
  }

  private static List<Path> list(Path dir) {
    List<Path> out = new java.util.ArrayList<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
      s.forEach(out::add);
    } catch (IOException | RuntimeException e) {
      // gone meanwhile, or not readable
    }
    return out;
  }
}

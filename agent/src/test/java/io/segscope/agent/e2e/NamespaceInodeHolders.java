package io.segscope.agent.e2e;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Who holds a namespace inode, as far as /proc shows it: a task's namespace of any type
 * ({@code /proc/PID/task/TID/ns/*}), an open namespace file ({@code /proc/PID/fd/N}), or an nsfs mount
 * in some process's mount namespace ({@code /proc/PID/mountinfo}). A socket keeps its network namespace
 * alive too, and is not seen here. A diagnostic for tests that wait for the kernel to hand a freed inode
 * out again: it tells "taken by someone else" from "not freed".
 */
final class NamespaceInodeHolders {
  private NamespaceInodeHolders() {
  }

  /** One line per holder found, e.g. {@code pid 812 (sshd) task 812: its mnt namespace}; empty when none. */
  static List<String> of(long inode) {
    String suffix = ":[" + inode + "]";
    Set<String> found = new LinkedHashSet<>();
    Set<String> mountNamespacesRead = new LinkedHashSet<>();
    try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path proc : procs) {
        String pid = proc.getFileName().toString();
        String who = "pid " + pid + " (" + comm(proc) + ")";
        for (Path task : list(proc.resolve("task"))) {
          for (Path ns : list(task.resolve("ns"))) {
            if (link(ns).endsWith(suffix)) {
              found.add(who + " task " + task.getFileName() + ": its " + ns.getFileName() + " namespace");
            }
          }
        }
        for (Path fd : list(proc.resolve("fd"))) {
          String target = link(fd);
          if (target.endsWith(suffix)) {
            found.add(who + " fd " + fd.getFileName() + ": " + target);
          }
        }
        String mnt = link(proc.resolve("ns/mnt"));
        if (!mnt.isEmpty() && mountNamespacesRead.add(mnt)) {
          for (String line : lines(proc.resolve("mountinfo"))) {
            if (line.contains("net" + suffix)) {
              found.add(who + " mount namespace " + mnt + ": " + line);
            }
          }
        }
      }
    } catch (IOException e) {
      found.add("(read /proc: " + e + ")");
    }
    return new ArrayList<>(found);
  }

  private static List<Path> list(Path dir) {
    List<Path> out = new ArrayList<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
      s.forEach(out::add);
    } catch (IOException | SecurityException e) {
      // the process or task exited meanwhile
    }
    return out;
  }

  private static String link(Path p) {
    try {
      return Files.readSymbolicLink(p).toString();
    } catch (IOException | UnsupportedOperationException e) {
      return "";
    }
  }

  private static String comm(Path proc) {
    try {
      return Files.readString(proc.resolve("comm")).strip();
    } catch (IOException e) {
      return "?";
    }
  }

  private static List<String> lines(Path p) {
    try {
      return Files.readAllLines(p);
    } catch (IOException e) {
      return List.of();
    }
  }
}

package io.segscope.lab;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** Read-only facts about named network namespaces (/run/netns) and the processes inside them (/proc). */
final class Netnses {
  static final Path RUN_NETNS = Path.of("/run/netns");
  private static final Pattern NS_LINK = Pattern.compile("net:\\[(\\d+)]");

  private Netnses() {
  }

  static boolean exists(String name) {
    return Files.exists(RUN_NETNS.resolve(name));
  }

  /** Names under /run/netns. */
  static List<String> names() {
    if (!Files.isDirectory(RUN_NETNS)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(RUN_NETNS)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    } catch (IOException e) {
      throw new LabException("list " + RUN_NETNS + ": " + e.getMessage(), e);
    }
  }

  static boolean anyWithPrefix(String prefix) {
    return names().stream().anyMatch(n -> n.startsWith(prefix + "-"));
  }

  /** The inode of the namespace mounted at /run/netns/{@code name}. */
  static long inode(String name) {
    Path p = RUN_NETNS.resolve(name);
    try {
      return ((Number) Files.getAttribute(p, "unix:ino")).longValue();
    } catch (IOException e) {
      throw new LabException("stat network namespace " + p + ": " + e.getMessage(), e);
    }
  }

  /** Ids of processes whose network namespace has inode {@code inode}. */
  static List<Long> processesIn(long inode) {
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      return procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
          .filter(p -> inodeOf(p.resolve("ns/net")) == inode)
          .map(p -> Long.parseLong(p.getFileName().toString()))
          .toList();
    } catch (IOException e) {
      throw new LabException("list /proc: " + e.getMessage(), e);
    }
  }

  private static long inodeOf(Path nsLink) {
    try {
      Matcher m = NS_LINK.matcher(Files.readSymbolicLink(nsLink).toString());
      return m.matches() ? Long.parseLong(m.group(1)) : -1;
    } catch (IOException | UnsupportedOperationException e) {
      return -1; // process gone or not readable
    }
  }
}

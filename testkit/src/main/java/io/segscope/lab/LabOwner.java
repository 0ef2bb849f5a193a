package io.segscope.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The claim a lab holds on its name prefix: an owner file {@code /run/segscope-lab/<prefix>.owner}, created
 * atomically (so two labs, in one JVM or many, never share a prefix) and holding the owning process id and
 * its start time (so a dead owner is recognised even if its pid was reused).
 */
final class LabOwner {
  static final Path DIR = Path.of("/run/segscope-lab");
  static final Pattern PREFIX = Pattern.compile("sg[0-9a-f]{4}");
  private static final String SUFFIX = ".owner";
  private static final Duration UNREADABLE_GRACE = Duration.ofMinutes(1);

  private LabOwner() {
  }

  /** Claims a fresh prefix {@code sg} + 4 hex digits; its namespaces must not exist yet either. */
  static String claim(String tag) {
    try {
      Files.createDirectories(DIR);
    } catch (IOException e) {
      throw new LabException("create directory " + DIR + ": " + e.getMessage(), e);
    }
    for (int attempt = 0; attempt < 64; attempt++) {
      String prefix = "sg" + HexFormat.of().toHexDigits((short) ThreadLocalRandom.current().nextInt(1 << 16));
      if (Netnses.anyWithPrefix(prefix)) {
        continue;
      }
      try {
        Files.writeString(file(prefix), describeSelf(tag), StandardCharsets.UTF_8,
            StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        return prefix;
      } catch (FileAlreadyExistsException e) {
        continue;
      } catch (IOException e) {
        throw new LabException("claim lab prefix " + prefix + " in " + DIR + ": " + e.getMessage(), e);
      }
    }
    throw new LabException("claim lab prefix in " + DIR + ": 64 random prefixes all taken");
  }

  static void release(String prefix) {
    try {
      Files.deleteIfExists(file(prefix));
    } catch (IOException e) {
      throw new UncheckedIOException("delete " + file(prefix), e);
    }
  }

  static Path file(String prefix) {
    return DIR.resolve(prefix + SUFFIX);
  }

  /** Work directory for a lab's files (e.g. the XDP object); removed with the lab or by the sweep. */
  static Path workDir(String prefix) {
    return DIR.resolve(prefix + ".d");
  }

  /** Prefixes whose owner file exists and whose owner process is gone. */
  static Stream<String> stalePrefixes() {
    if (!Files.isDirectory(DIR)) {
      return Stream.empty();
    }
    try (Stream<Path> files = Files.list(DIR)) {
      return files.map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(SUFFIX))
          .map(n -> n.substring(0, n.length() - SUFFIX.length()))
          .filter(p -> PREFIX.matcher(p).matches())
          .filter(LabOwner::ownerGone)
          .toList().stream();
    } catch (IOException e) {
      throw new LabException("list " + DIR + ": " + e.getMessage(), e);
    }
  }

  static void deleteWorkDir(String prefix) {
    Path dir = workDir(prefix);
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new LabException("delete lab work directory " + dir + ": " + e.getMessage(), e);
    }
  }

  private static String describeSelf(String tag) {
    ProcessHandle self = ProcessHandle.current();
    long start = self.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
    return "pid=" + self.pid() + "\nstart=" + start + "\ntag=" + tag + "\n";
  }

  private static boolean ownerGone(String prefix) {
    Path f = file(prefix);
    Map<String, String> kv = new HashMap<>();
    FileTime modified;
    try {
      for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
        int eq = line.indexOf('=');
        if (eq > 0) {
          kv.put(line.substring(0, eq), line.substring(eq + 1));
        }
      }
      modified = Files.getLastModifiedTime(f);
    } catch (IOException e) {
      return false; // vanished or unreadable: not ours to judge
    }
    if (!kv.containsKey("pid") || !kv.containsKey("start")) {
      // written by a process that died between creating and filling the file
      return modified.toInstant().isBefore(Instant.now().minus(UNREADABLE_GRACE));
    }
    long pid;
    long start;
    try {
      pid = Long.parseLong(kv.get("pid"));
      start = Long.parseLong(kv.get("start"));
    } catch (NumberFormatException e) {
      return modified.toInstant().isBefore(Instant.now().minus(UNREADABLE_GRACE));
    }
    Optional<ProcessHandle> owner = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
    if (owner.isEmpty()) {
      return true;
    }
    Optional<Instant> started = owner.get().info().startInstant();
    // same pid but a different start time: the pid was reused by another process
    return started.isPresent() && start != 0 && Math.abs(started.get().toEpochMilli() - start) > 1000;
  }
}

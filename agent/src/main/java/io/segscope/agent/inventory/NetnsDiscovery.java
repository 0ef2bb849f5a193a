package io.segscope.agent.inventory;

import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.inventory.wire.PathBytes;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds every network namespace: /proc/PID/ns/net of every process, deduplicated by inode, plus
 * the bind mounts in the named-namespace directories (/run/netns by default), which give names.
 * The root namespace is the one of /proc/1/ns/net; when PID 1's namespace cannot be read (a
 * container or a sandbox hides it), it is the agent's own namespace (/proc/self/ns/net).
 *
 * <p>Names are byte-exact in segscope's name form ({@link io.segscope.host.names.NameCodec}).
 *
 * <p>Namespaces held only by an open file descriptor, or bind-mounted elsewhere, are not found.
 */
public final class NetnsDiscovery {
  private static final System.Logger LOG = System.getLogger(NetnsDiscovery.class.getName());

  private final Path proc;
  private final List<Path> namedDirs;
  private boolean rootFallbackLogged;

  public NetnsDiscovery(Path proc, List<Path> namedDirs) {
    this.proc = proc;
    this.namedDirs = List.copyOf(namedDirs);
  }

  /** The namespaces, root first, then by inode. */
  public List<Netns> scan() {
    Path selfPath = proc.resolve("self/ns/net");
    long self = inode(selfPath);
    long nsfsDevice = device(selfPath);
    Path pid1 = proc.resolve("1/ns/net");
    long root = inode(pid1);
    if (root < 0) {
      if (!rootFallbackLogged) {
        rootFallbackLogged = true;
        LOG.log(System.Logger.Level.INFO, "read namespace of PID 1 ({0}): not permitted; the agent''s own"
            + " namespace is taken as the root namespace", pid1);
      }
      root = self;
    }

    Map<Long, String> names = new LinkedHashMap<>();
    Map<Long, Path> paths = new LinkedHashMap<>();
    for (Path dir : namedDirs) {
      for (Path entry : list(dir)) {
        long ino = inode(entry);
        if (ino < 0 || device(entry) != nsfsDevice) {
          continue; // not (or no longer) a namespace bind mount
        }
        String name = PathBytes.fileName(entry);
        String previous = names.get(ino);
        if (previous == null || name.compareTo(previous) < 0) {
          names.put(ino, name);
          paths.put(ino, entry);
        }
      }
    }
    if (root >= 0 && !paths.containsKey(root)) {
      paths.put(root, inode(pid1) == root ? pid1 : selfPath);
    }
    for (Path pidDir : list(proc)) {
      String pid = pidDir.getFileName().toString();
      if (!pid.chars().allMatch(Character::isDigit)) {
        continue;
      }
      Path ns = pidDir.resolve("ns/net");
      long ino = inode(ns);
      if (ino >= 0) {
        paths.putIfAbsent(ino, ns);
      }
    }
    List<Netns> out = new ArrayList<>();
    for (Map.Entry<Long, Path> e : paths.entrySet()) {
      long ino = e.getKey();
      out.add(new Netns(ino, names.getOrDefault(ino, ""), e.getValue(), ino == root));
    }
    out.sort(Comparator.comparing((Netns n) -> !n.root()).thenComparingLong(Netns::inode));
    return out;
  }

  /** The inode of the file {@code path} refers to (following links), or -1 if it cannot be read. */
  static long inode(Path path) {
    try {
      return ((Number) Files.getAttribute(path, "unix:ino")).longValue();
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return -1;
    }
  }

  private static long device(Path path) {
    try {
      return ((Number) Files.getAttribute(path, "unix:dev")).longValue();
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return -2;
    }
  }

  private static List<Path> list(Path dir) {
    List<Path> out = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
      stream.forEach(out::add);
    } catch (IOException | RuntimeException e) {
      LOG.log(System.Logger.Level.DEBUG, "list namespaces in " + dir + ": " + e);
    }
    return out;
  }
}

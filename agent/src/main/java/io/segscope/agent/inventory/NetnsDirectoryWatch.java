package io.segscope.agent.inventory;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A watch on the named-namespace directories ({@code /run/netns} and the like): tells the
 * inventory's follower that a namespace was named or removed, so it rescans at once rather than at
 * the next periodic rescan. Directories that do not exist yet are watched once they appear (checked
 * after every rescan). Without a watch service the periodic rescan alone finds namespaces.
 */
final class NetnsDirectoryWatch implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(NetnsDirectoryWatch.class.getName());

  private final List<Path> dirs;
  private final Map<Path, WatchKey> watched = new HashMap<>();
  private final WatchService watcher;

  private NetnsDirectoryWatch(List<Path> dirs, WatchService watcher) {
    this.dirs = dirs;
    this.watcher = watcher;
  }

  /** A watch on {@code dirs}; one that never reports a change when the file system cannot watch. */
  static NetnsDirectoryWatch open(List<Path> dirs) {
    WatchService watcher = null;
    try {
      watcher = FileSystems.getDefault().newWatchService();
    } catch (IOException | UnsupportedOperationException e) {
      LOG.log(System.Logger.Level.INFO, "watch namespace directories: " + e + "; relying on the periodic rescan");
    }
    return new NetnsDirectoryWatch(List.copyOf(dirs), watcher);
  }

  /** Starts watching the directories that exist now and are not yet watched. */
  void watchNewDirectories() {
    if (watcher == null) {
      return;
    }
    for (Path dir : dirs) {
      WatchKey key = watched.get(dir);
      if (key != null && key.isValid()) {
        continue;
      }
      if (Files.isDirectory(dir)) {
        try {
          watched.put(dir, dir.register(watcher, StandardWatchEventKinds.ENTRY_CREATE,
              StandardWatchEventKinds.ENTRY_DELETE));
        } catch (IOException e) {
          LOG.log(System.Logger.Level.DEBUG, "watch " + dir + ": " + e);
        }
      }
    }
  }

  /** Whether an entry was created or deleted in a watched directory since the last call. */
  boolean changed() {
    if (watcher == null) {
      return false;
    }
    boolean any = false;
    WatchKey key;
    while ((key = watcher.poll()) != null) {
      any |= !key.pollEvents().isEmpty();
      key.reset();
    }
    return any;
  }

  @Override
  public void close() {
    if (watcher != null) {
      try {
        watcher.close();
      } catch (IOException e) {
        LOG.log(System.Logger.Level.DEBUG, "close namespace directory watch: " + e);
      }
    }
  }
}

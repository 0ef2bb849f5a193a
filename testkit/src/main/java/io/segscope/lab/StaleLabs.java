package io.segscope.lab;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What {@link Lab#sweepStale()} does: deletes the namespaces of labs whose process died before closing
 * them, as the owner files in /run/segscope-lab tell, and nothing whose owner may still live.
 */
final class StaleLabs {
  private StaleLabs() {}

  /** The namespaces deleted; {@code role}: what follows a lab's prefix and dash in its namespaces' names. */
  static List<String> sweep(Pattern role) {
    if (!Prerequisites.isRoot() || Tools.find("ip").isEmpty()) {
      return List.of();
    }
    String ipPath = Tools.require("ip");
    List<String> swept = new ArrayList<>();
    for (String prefix : LabOwner.stalePrefixes().toList()) {
      boolean kept = false;
      for (String name : Netnses.names()) {
        if (!name.startsWith(prefix + "-") || !role.matcher(name.substring(prefix.length() + 1)).matches()) {
          continue;
        }
        if (!Netnses.processesIn(Netnses.inode(name)).isEmpty()) {
          kept = true;
          continue;
        }
        Command.run(List.of(ipPath, "netns", "del", name));
        swept.add(name);
      }
      if (!kept) {
        unpin(prefix);
        LabOwner.deleteWorkDir(prefix);
        LabOwner.release(prefix);
      }
    }
    return swept;
  }

  /**
   * A dead lab's BPF pins (/sys/fs/bpf/PREFIX-*, e.g. a test's own pin keeping an XDP program alive): a pin
   * holds its program loaded after every process and namespace is gone.
   */
  private static void unpin(String prefix) {
    java.nio.file.Path fs = java.nio.file.Path.of("/sys/fs/bpf");
    try (var pins = java.nio.file.Files.newDirectoryStream(fs, prefix + "-*")) {
      for (java.nio.file.Path pin : pins) {
        java.nio.file.Files.deleteIfExists(pin);
      }
    } catch (java.io.IOException | RuntimeException e) {
      // no bpffs, or not readable: nothing of ours can be pinned there
    }
  }
}

package io.segscope.agent.telemetry;

import io.segscope.agent.inventory.wire.PathBytes;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Names of network namespaces from {@code /run/netns} (iproute2's convention), by inode, byte-exact in
 * segscope's name form ({@link io.segscope.host.names.NameCodec}).
 */
public final class NetnsNames {
  private NetnsNames() {}

  public static Map<Long, String> scan() {
    return scan(Path.of("/run/netns"));
  }

  static Map<Long, String> scan(Path dir) {
    Map<Long, String> names = new HashMap<>();
    if (!Files.isDirectory(dir)) {
      return names;
    }
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      for (Path p : ds) {
        try {
          Object ino = Files.getAttribute(p, "unix:ino");
          names.putIfAbsent(((Number) ino).longValue(), PathBytes.fileName(p));
        } catch (IOException | UnsupportedOperationException e) {
          // a name whose namespace is gone (stale bind mount) has no inode: skip it
        }
      }
    } catch (IOException e) {
      // unreadable /run/netns: no names, devices keep their netns inode label
    }
    return names;
  }
}

package io.segscope.agent.inventory;

import io.segscope.host.names.NameCodec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The driver of a physical device, from {@code /sys/class/net/NAME/device/driver} (a symlink whose
 * last element is the driver's name). Only for the agent's own network namespace, which is what its
 * sysfs shows: the entry is trusted only when its {@code ifindex} file holds the device's ifindex.
 * Names that are not plain printable UTF-8 are not looked up. Results are cached per (ifindex,
 * name). Never throws: unknown is "".
 */
final class DriverNames {
  private final Path classNet;
  private final Map<String, String> cache = new HashMap<>();

  DriverNames(Path classNet) {
    this.classNet = classNet;
  }

  String driver(int ifindex, String name) {
    return cache.computeIfAbsent(ifindex + "/" + name, k -> read(ifindex, name));
  }

  private String read(int ifindex, String name) {
    if (name.isEmpty() || name.contains("\\") || name.contains("/") || name.equals(".") || name.equals("..")
        || !name.codePoints().allMatch(NameCodec::isPrintable)) {
      return "";
    }
    try {
      Path dir = classNet.resolve(name);
      String index = Files.readString(dir.resolve("ifindex")).trim();
      if (!index.equals(Integer.toString(ifindex))) {
        return ""; // sysfs shows another namespace's device of that name
      }
      Path target = Files.readSymbolicLink(dir.resolve("device").resolve("driver"));
      Path last = target.getFileName();
      return last == null ? "" : last.toString();
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }
}

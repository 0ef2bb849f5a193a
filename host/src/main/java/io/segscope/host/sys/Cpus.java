package io.segscope.host.sys;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The possible CPUs: how many slots a per-CPU map value has. */
public final class Cpus {
  private static final Path POSSIBLE = Path.of("/sys/devices/system/cpu/possible");
  private static volatile int possible;

  private Cpus() {}

  /**
   * The number of possible CPUs from {@code /sys/devices/system/cpu/possible}.
   *
   * @throws UncheckedIOException when the file cannot be read
   * @throws IllegalStateException when its content is not a CPU list
   */
  public static int possible() {
    int cached = possible;
    if (cached > 0) {
      return cached;
    }
    String text;
    try {
      text = Files.readString(POSSIBLE, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException("read " + POSSIBLE + ": " + e.getMessage(), e);
    }
    try {
      cached = countList(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("read " + POSSIBLE + ": " + e.getMessage(), e);
    }
    possible = cached;
    return cached;
  }

  /** Counts the CPUs in a kernel CPU list such as {@code "0-1"} or {@code "0,2-3"}. */
  public static int countList(String text) {
    String list = text.strip();
    if (list.isEmpty()) {
      throw new IllegalArgumentException("parse cpu list: empty");
    }
    int count = 0;
    for (String part : list.split(",")) {
      String[] bounds = part.split("-", -1);
      try {
        int first = Integer.parseInt(bounds[0]);
        int last = bounds.length == 2 ? Integer.parseInt(bounds[1]) : first;
        if (bounds.length > 2 || first < 0 || last < first) {
          throw new IllegalArgumentException("parse cpu list '" + list + "': bad range '" + part + "'");
        }
        count += last - first + 1;
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("parse cpu list '" + list + "': bad range '" + part + "'", e);
      }
    }
    return count;
  }
}

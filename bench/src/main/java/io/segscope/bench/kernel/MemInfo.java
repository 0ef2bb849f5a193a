package io.segscope.bench.kernel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The kernel-memory lines of {@code /proc/meminfo} that BPF maps land in, in bytes: per-CPU values of
 * per-CPU maps in {@code Percpu}, hash elements and small allocations in {@code Slab} (mostly
 * {@code SUnreclaim}), large bucket arrays in {@code VmallocUsed}.
 */
public record MemInfo(long percpu, long slab, long sunreclaim, long vmallocUsed) {

  /** Reads /proc/meminfo now. */
  public static MemInfo read() {
    try {
      return parse(Files.readString(Path.of("/proc/meminfo")));
    } catch (IOException e) {
      throw new IllegalStateException("read /proc/meminfo: " + e.getMessage(), e);
    }
  }

  static MemInfo parse(String text) {
    Map<String, Long> kib = new HashMap<>();
    for (String line : text.split("\n")) {
      String[] f = line.trim().split("[:\\s]+");
      if (f.length >= 2) {
        try {
          kib.put(f[0], Long.parseLong(f[1]));
        } catch (NumberFormatException e) {
          // not a number line
        }
      }
    }
    for (String key : new String[] {"Percpu", "Slab", "SUnreclaim", "VmallocUsed"}) {
      if (!kib.containsKey(key)) {
        throw new IllegalArgumentException("parse /proc/meminfo: no " + key + " line");
      }
    }
    return new MemInfo(kib.get("Percpu") * 1024, kib.get("Slab") * 1024, kib.get("SUnreclaim") * 1024,
        kib.get("VmallocUsed") * 1024);
  }

  /** Percpu + Slab: where a map's elements and per-CPU values are. */
  public long mapRelevant() {
    return percpu + slab;
  }

  /** This reading minus {@code earlier}, field by field. */
  public MemInfo minus(MemInfo earlier) {
    return new MemInfo(percpu - earlier.percpu, slab - earlier.slab, sunreclaim - earlier.sunreclaim,
        vmallocUsed - earlier.vmallocUsed);
  }
}

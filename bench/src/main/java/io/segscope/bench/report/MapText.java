package io.segscope.bench.report;

import static io.segscope.bench.report.Fmt.count;
import static io.segscope.bench.report.Fmt.kib;
import static io.segscope.bench.report.Fmt.mib;

import io.segscope.bench.kernel.BpfFdinfo;
import java.util.List;

/** Texts about BPF maps: their types' names and what their entries cost. */
final class MapText {
  private MapText() {}

  /** What each map costs per entry at {@code cpus} possible CPUs, and the total for {@code devices} entries. */
  static String perMap(List<BpfFdinfo.BpfMap> maps, int cpus, int devices) {
    StringBuilder b = new StringBuilder("Per entry at ").append(cpus).append(" possible CPUs:");
    for (BpfFdinfo.BpfMap m : maps) {
      if (m.maxEntries() < 2) {
        continue;
      }
      long value = (m.valueSize() + 7L) / 8 * 8;
      long perEntry = perCpu(m.type()) ? value * cpus : value;
      b.append(" ").append(mapType(m.type())).append(" with ").append(m.valueSize()).append(" B values and ")
          .append(count(m.maxEntries())).append(" entries at most ").append((m.flags() & 1) != 0
              ? "(no preallocation)" : "(preallocated)")
          .append(": ").append(Fmt.kib(perEntry))
          .append(" per entry, ").append(mib((double) perEntry * devices)).append(" if all ")
          .append(count(devices)).append(" devices have one;");
    }
    b.setLength(b.length() - 1);
    return b.append(".").toString();
  }

  /** Map type names of the uapi enum bpf_map_type, for the report. */
  static String mapType(int type) {
    return switch (type) {
      case 1 -> "hash";
      case 2 -> "array";
      case 5 -> "per-CPU hash";
      case 6 -> "per-CPU array";
      case 9 -> "LRU hash";
      case 10 -> "LRU per-CPU hash";
      default -> "type " + type;
    };
  }

  static boolean perCpu(int type) {
    return type == 5 || type == 6 || type == 10;
  }

  /** The maps as a Markdown table, appended to {@code md}. */
  static void table(StringBuilder md, List<BpfFdinfo.BpfMap> maps) {
    md.append("| map id | type | key / value bytes | max entries | flags | memlock |\n")
        .append("| ---: | --- | --- | ---: | --- | ---: |\n");
    for (BpfFdinfo.BpfMap m : maps) {
      md.append("| ").append(m.id()).append(" | ").append(mapType(m.type())).append(" | ")
          .append(m.keySize()).append(" / ").append(m.valueSize()).append(" | ").append(count(m.maxEntries()))
          .append(" | ").append((m.flags() & 1) != 0 ? "BPF_F_NO_PREALLOC" : "0x" + Long.toHexString(m.flags()))
          .append(" | ").append(kib(m.memlockBytes())).append(" |\n");
    }
  }
}

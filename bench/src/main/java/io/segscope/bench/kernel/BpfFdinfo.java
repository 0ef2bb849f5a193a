package io.segscope.bench.kernel;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The BPF programs, links and maps one process holds, as the kernel describes them in
 * {@code /proc/PID/fdinfo/FD}: a program's {@code run_time_ns} and {@code run_cnt} (bpf_stats), a
 * link's {@code tp_name} (raw and BTF-typed tracepoints), a map's {@code memlock} (the kernel's own
 * figure of the memory it holds: on 6.4 and later computed from what a hash map holds now, before
 * 6.4 the maximum the map could hold). Every object is listed once, however many fds point at it.
 */
public final class BpfFdinfo {
  /** One loaded program: {@code prog_id}, {@code prog_type}, run statistics (0 unless bpf_stats was on). */
  public record Program(int id, int type, long runTimeNanos, long runCount) {}

  /** One link: {@code link_id}, {@code prog_id}, {@code link_type}, {@code tp_name} ("" when none). */
  public record Link(int id, int progId, String type, String tracepoint) {}

  /** One map as {@code BPF_MAP_CREATE} made it, and its {@code memlock} bytes. */
  public record BpfMap(int id, int type, int keySize, int valueSize, int maxEntries, long flags, long memlockBytes) {}

  /** Everything of one process. */
  public record Objects(List<Program> programs, List<Link> links, List<BpfMap> maps) {
    public Objects {
      programs = List.copyOf(programs);
      links = List.copyOf(links);
      maps = List.copyOf(maps);
    }

    /** The sum of every map's {@code memlock}. */
    public long memlockBytes() {
      return maps.stream().mapToLong(BpfMap::memlockBytes).sum();
    }

    /** The program with this id, or null. */
    public Program program(int id) {
      return programs.stream().filter(p -> p.id() == id).findFirst().orElse(null);
    }
  }

  private BpfFdinfo() {}

  /** Reads every fd of {@code pid}; fds that close while being read are skipped. */
  public static Objects of(long pid) {
    Path dir = Path.of("/proc", Long.toString(pid), "fdinfo");
    Map<String, String> texts = new LinkedHashMap<>();
    try (DirectoryStream<Path> fds = Files.newDirectoryStream(dir)) {
      for (Path fd : fds) {
        try {
          texts.put(fd.getFileName().toString(), Files.readString(fd));
        } catch (IOException e) {
          // closed meanwhile
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("read " + dir + ": " + e.getMessage(), e);
    }
    return parse(texts.values());
  }

  /** Parses fdinfo texts; those that are no BPF object are skipped. */
  static Objects parse(Iterable<String> fdinfos) {
    Map<Integer, Program> programs = new LinkedHashMap<>();
    Map<Integer, Link> links = new LinkedHashMap<>();
    Map<Integer, BpfMap> maps = new LinkedHashMap<>();
    for (String text : fdinfos) {
      Map<String, String> f = fields(text);
      try {
        if (f.containsKey("link_id")) {
          int id = Integer.parseInt(f.get("link_id"));
          links.putIfAbsent(id, new Link(id, Integer.parseInt(f.getOrDefault("prog_id", "-1")),
              f.getOrDefault("link_type", ""), f.getOrDefault("tp_name", "")));
        } else if (f.containsKey("prog_id") && f.containsKey("prog_type")) {
          int id = Integer.parseInt(f.get("prog_id"));
          programs.putIfAbsent(id, new Program(id, Integer.parseInt(f.get("prog_type")),
              Long.parseLong(f.getOrDefault("run_time_ns", "0")), Long.parseLong(f.getOrDefault("run_cnt", "0"))));
        } else if (f.containsKey("map_id") && f.containsKey("map_type")) {
          int id = Integer.parseInt(f.get("map_id"));
          maps.putIfAbsent(id, new BpfMap(id, Integer.parseInt(f.get("map_type")),
              Integer.parseInt(f.getOrDefault("key_size", "0")), Integer.parseInt(f.getOrDefault("value_size", "0")),
              Integer.parseInt(f.getOrDefault("max_entries", "0")), Long.decode(f.getOrDefault("map_flags", "0")),
              Long.parseLong(f.getOrDefault("memlock", "0"))));
        }
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("parse fdinfo `" + text.strip().replace('\n', ' ') + "`: " + e.getMessage(),
            e);
      }
    }
    return new Objects(new ArrayList<>(programs.values()), new ArrayList<>(links.values()),
        new ArrayList<>(maps.values()));
  }

  private static Map<String, String> fields(String text) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        out.put(line.substring(0, colon).strip(), line.substring(colon + 1).strip());
      }
    }
    return out;
  }
}

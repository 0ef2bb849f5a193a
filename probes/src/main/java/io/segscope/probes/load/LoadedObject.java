package io.segscope.probes.load;

import io.segscope.host.sys.SysException;
import io.segscope.probes.compile.CompiledObject;
import io.segscope.probes.sys.Bpf;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A {@link CompiledObject} made real in this process: its maps created, its programs loaded on demand
 * with each map reference patched to the fd of the map created here. Closing it closes every program
 * and map fd (attachments are owned separately and must be detached first). Thread-safe.
 */
public final class LoadedObject implements AutoCloseable {
  private final CompiledObject object;
  private final KernelAbi abi;
  private final Map<String, Integer> maps;
  private final Map<String, Integer> programs = new LinkedHashMap<>();
  private boolean closed;

  private LoadedObject(CompiledObject object, KernelAbi abi, Map<String, Integer> maps) {
    this.object = object;
    this.abi = abi;
    this.maps = maps;
  }

  /** Creates every map of {@code object}; on failure closes what it created and names the map. */
  public static LoadedObject create(CompiledObject object, KernelAbi abi) throws SysException {
    Objects.requireNonNull(object, "object");
    Map<String, Integer> maps = new LinkedHashMap<>();
    try {
      for (CompiledObject.MapDef m : object.maps()) {
        maps.put(m.name(), Bpf.mapCreate(new Bpf.MapSpec(m.name(), m.type(), m.keySize(), m.valueSize(),
            m.maxEntries(), m.flags())));
      }
    } catch (SysException e) {
      maps.values().forEach(Bpf::close);
      throw e;
    }
    return new LoadedObject(object, abi, maps);
  }

  /** The fd of map {@code name} (valid until close). */
  public synchronized int mapFd(String name) {
    Integer fd = maps.get(name);
    if (fd == null || closed) {
      throw new IllegalArgumentException("find map " + name + ": " + (closed ? "object closed" : "no such map (have "
          + maps.keySet() + ")"));
    }
    return fd;
  }

  /** The definition of map {@code name}. */
  public CompiledObject.MapDef mapDef(String name) {
    return object.maps().stream().filter(m -> m.name().equals(name)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("find map " + name + ": no such map"));
  }

  public boolean hasMap(String name) {
    return maps.containsKey(name);
  }

  /** The fd of program {@code name} loaded for {@code point}, loading it on first use. */
  public synchronized int program(String name, AttachPoint point) throws SysException {
    if (closed) {
      throw new IllegalStateException("load program " + name + ": object closed");
    }
    Integer fd = programs.get(name);
    if (fd != null) {
      return fd;
    }
    CompiledObject.Program p = object.program(name);
    byte[] code = p.code();
    for (CompiledObject.MapRef r : p.mapRefs()) {
      int mapFd = mapFd(r.map());
      int at = r.instruction() * 8;
      code[at + 4] = (byte) mapFd;
      code[at + 5] = (byte) (mapFd >>> 8);
      code[at + 6] = (byte) (mapFd >>> 16);
      code[at + 7] = (byte) (mapFd >>> 24);
    }
    int loaded = Programs.load(abi, name, code, object.license(), object.kernelVersion(), point);
    programs.put(name, loaded);
    return loaded;
  }

  /** Loaded programs' fds by name, in load order. */
  public synchronized Map<String, Integer> programs() {
    return Collections.unmodifiableMap(new LinkedHashMap<>(programs));
  }

  /**
   * The kernel memory the maps hold, as the kernel accounts it ({@code memlock:} in
   * /proc/self/fdinfo/FD, bytes), by map name; -1 for a map whose fdinfo says nothing.
   */
  public synchronized Map<String, Long> mapMemory() {
    Map<String, Long> out = new LinkedHashMap<>();
    maps.forEach((name, fd) -> out.put(name, memlock(fd)));
    return out;
  }

  static long memlock(int fd) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/fdinfo/" + fd))) {
        if (line.startsWith("memlock:")) {
          return Long.parseLong(line.substring("memlock:".length()).strip());
        }
      }
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
    return -1;
  }

  /** The compiled object behind it. */
  public CompiledObject compiled() {
    return object;
  }

  /** Closes every program, then every map; idempotent. Returns the problems, if any. */
  public synchronized List<String> closeAll() {
    List<String> problems = new ArrayList<>();
    if (closed) {
      return problems;
    }
    closed = true;
    programs.values().forEach(fd -> add(problems, Bpf.close(fd)));
    maps.values().forEach(fd -> add(problems, Bpf.close(fd)));
    programs.clear();
    return problems;
  }

  private static void add(List<String> problems, String p) {
    if (!p.isEmpty()) {
      problems.add(p);
    }
  }

  @Override
  public void close() {
    closeAll();
  }
}

package io.segscope.probes.compile;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What the compiler makes of the BPF C text: every function's instructions, where each references a
 * map, and each map's definition. Nothing in it refers to the compiling process (the map fds in the
 * instructions are placeholders the loader replaces with fds of maps it creates), so the object
 * crosses a process boundary as bytes ({@link #writeTo}/{@link #readFrom}).
 *
 * @param license the programs' license string (the verifier needs "GPL" for GPL-only helpers)
 * @param kernelVersion LINUX_VERSION_CODE of the headers compiled against (kprobe loads before 5.0 need it)
 */
public record CompiledObject(String license, int kernelVersion, List<Program> programs, List<MapDef> maps) {
  private static final int MAGIC = 0x53474f31; // "SGO1"

  public CompiledObject {
    Objects.requireNonNull(license, "license");
    programs = List.copyOf(programs);
    maps = List.copyOf(maps);
  }

  /**
   * One compiled function.
   *
   * @param code its instructions, 8 bytes each
   * @param mapRefs the {@code ld_imm64} instructions (src_reg BPF_PSEUDO_MAP_FD) that name a map
   */
  public record Program(String name, byte[] code, List<MapRef> mapRefs) {
    public Program {
      Objects.requireNonNull(name, "name");
      code = code.clone();
      mapRefs = List.copyOf(mapRefs);
    }

    @Override
    public byte[] code() {
      return code.clone();
    }
  }

  /** Instruction {@code instruction} (an ld_imm64) loads the fd of map {@code map}. */
  public record MapRef(int instruction, String map) {}

  /** A map as {@code BPF_MAP_CREATE} needs it; {@code valueSize} is per CPU for per-CPU maps. */
  public record MapDef(String name, int type, int keySize, int valueSize, int maxEntries, int flags) {}

  /** The program called {@code name}. */
  public Program program(String name) {
    return programs.stream().filter(p -> p.name().equals(name)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("find program " + name + ": not compiled (have "
            + programs.stream().map(Program::name).toList() + ")"));
  }

  public void writeTo(DataOutputStream out) throws IOException {
    out.writeInt(MAGIC);
    out.writeUTF(license);
    out.writeInt(kernelVersion);
    out.writeInt(maps.size());
    for (MapDef m : maps) {
      out.writeUTF(m.name());
      out.writeInt(m.type());
      out.writeInt(m.keySize());
      out.writeInt(m.valueSize());
      out.writeInt(m.maxEntries());
      out.writeInt(m.flags());
    }
    out.writeInt(programs.size());
    for (Program p : programs) {
      out.writeUTF(p.name());
      out.writeInt(p.code.length);
      out.write(p.code);
      out.writeInt(p.mapRefs().size());
      for (MapRef r : p.mapRefs()) {
        out.writeInt(r.instruction());
        out.writeUTF(r.map());
      }
    }
    out.flush();
  }

  /** Reads what {@link #writeTo} wrote; refuses anything else with a message saying why. */
  public static CompiledObject readFrom(DataInputStream in) throws IOException {
    int magic = in.readInt();
    if (magic != MAGIC) {
      throw new IOException("read compiled object: bad magic 0x" + Integer.toHexString(magic));
    }
    String license = in.readUTF();
    int kernelVersion = in.readInt();
    int nMaps = count(in.readInt(), 1024, "maps");
    List<MapDef> maps = new ArrayList<>();
    for (int i = 0; i < nMaps; i++) {
      maps.add(new MapDef(in.readUTF(), in.readInt(), in.readInt(), in.readInt(), in.readInt(), in.readInt()));
    }
    int nProgs = count(in.readInt(), 1024, "programs");
    List<Program> programs = new ArrayList<>();
    for (int i = 0; i < nProgs; i++) {
      String name = in.readUTF();
      byte[] code = new byte[count(in.readInt(), 8 << 20, "instruction bytes")];
      in.readFully(code);
      int nRefs = count(in.readInt(), 1 << 20, "map references");
      List<MapRef> refs = new ArrayList<>();
      for (int j = 0; j < nRefs; j++) {
        refs.add(new MapRef(in.readInt(), in.readUTF()));
      }
      programs.add(new Program(name, code, refs));
    }
    return new CompiledObject(license, kernelVersion, programs, maps);
  }

  private static int count(int n, int max, String what) throws IOException {
    if (n < 0 || n > max) {
      throw new IOException("read compiled object: " + n + " " + what + " (at most " + max + ")");
    }
    return n;
  }
}

package io.segscope.probes.compile;

import io.segscope.probes.bcc.BccException;
import io.segscope.probes.bcc.BpfModule;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Compiles BPF C text with libbcc in THIS process and turns the module into a {@link CompiledObject}:
 * the instructions of every function, with each map fd reference resolved to the map's name, and
 * every table's definition. The libbcc module (and the maps it created) is destroyed before returning.
 * The agent runs this in a short-lived child process ({@link CompilerProcess}) so LLVM never lives
 * in the agent.
 */
public final class BccCompiler {
  /** {@code BPF_LD | BPF_IMM | BPF_DW}. */
  static final int LD_IMM64 = 0x18;
  /** src_reg of an ld_imm64 that loads a map fd. */
  static final int PSEUDO_MAP_FD = 1;

  private BccCompiler() {}

  public static CompiledObject compile(String name, String text, List<String> cflags) throws BccException {
    try (BpfModule module = BpfModule.compile(name, text, cflags)) {
      Map<Integer, String> mapByFd = new HashMap<>();
      List<CompiledObject.MapDef> maps = new ArrayList<>();
      for (String table : module.tableNames()) {
        BpfModule.Table t = module.table(table);
        mapByFd.put(t.fd(), table);
        maps.add(new CompiledObject.MapDef(table, t.type(), t.keySize(), t.valueSize(),
            Math.toIntExact(t.maxEntries()), t.flags()));
      }
      List<CompiledObject.Program> programs = new ArrayList<>();
      for (String fn : module.functionNames()) {
        byte[] code = module.functionCode(fn);
        programs.add(new CompiledObject.Program(fn, code, mapRefs(fn, code, mapByFd)));
      }
      return new CompiledObject(module.license(), module.kernelVersion(), programs, maps);
    }
  }

  /** The ld_imm64 map-fd instructions of {@code code}, by map name. */
  static List<CompiledObject.MapRef> mapRefs(String fn, byte[] code, Map<Integer, String> mapByFd)
      throws BccException {
    List<CompiledObject.MapRef> refs = new ArrayList<>();
    for (int i = 0; i + 16 <= code.length; i += 8) {
      int op = code[i] & 0xff;
      if (op != LD_IMM64) {
        continue;
      }
      int src = (code[i + 1] >> 4) & 0xf;
      if (src == PSEUDO_MAP_FD) {
        int fd = (code[i + 4] & 0xff) | (code[i + 5] & 0xff) << 8 | (code[i + 6] & 0xff) << 16
            | (code[i + 7] & 0xff) << 24;
        String map = mapByFd.get(fd);
        if (map == null) {
          throw new BccException("resolve map reference", fn, "instruction " + i / 8
              + " loads fd " + fd + ", which is no table of the module");
        }
        refs.add(new CompiledObject.MapRef(i / 8, map));
      }
      i += 8; // the second half of the 16-byte instruction
    }
    return refs;
  }
}

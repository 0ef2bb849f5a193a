package io.segscope.probes.sys;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import io.segscope.host.sys.Errno;
import io.segscope.host.sys.Libc;
import io.segscope.host.sys.SysException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The {@code bpf(2)} commands segscope uses, one method each, with {@code union bpf_attr} laid out as
 * in include/uapi/linux/bpf.h (an append-only ABI: a larger, zero-padded attr is accepted by every
 * kernel since 4.x, so one layout serves all). Values handed in are not checked beyond what the
 * layout needs: the kernel checks them. x86-64 only (the syscall number).
 */
public final class Bpf {
  static final long SYS_BPF = 321;

  static final int MAP_CREATE = 0;
  static final int MAP_LOOKUP_ELEM = 1;
  static final int MAP_UPDATE_ELEM = 2;
  static final int MAP_DELETE_ELEM = 3;
  static final int MAP_GET_NEXT_KEY = 4;
  static final int PROG_LOAD = 5;
  static final int OBJ_GET_INFO_BY_FD = 15;
  static final int RAW_TRACEPOINT_OPEN = 17;
  static final int MAP_LOOKUP_BATCH = 24;
  static final int ENABLE_STATS = 32;

  private static final String[] COMMAND_NAMES = new String[33];

  static {
    COMMAND_NAMES[MAP_CREATE] = "BPF_MAP_CREATE";
    COMMAND_NAMES[MAP_LOOKUP_ELEM] = "BPF_MAP_LOOKUP_ELEM";
    COMMAND_NAMES[MAP_UPDATE_ELEM] = "BPF_MAP_UPDATE_ELEM";
    COMMAND_NAMES[MAP_DELETE_ELEM] = "BPF_MAP_DELETE_ELEM";
    COMMAND_NAMES[MAP_GET_NEXT_KEY] = "BPF_MAP_GET_NEXT_KEY";
    COMMAND_NAMES[PROG_LOAD] = "BPF_PROG_LOAD";
    COMMAND_NAMES[OBJ_GET_INFO_BY_FD] = "BPF_OBJ_GET_INFO_BY_FD";
    COMMAND_NAMES[RAW_TRACEPOINT_OPEN] = "BPF_RAW_TRACEPOINT_OPEN";
    COMMAND_NAMES[MAP_LOOKUP_BATCH] = "BPF_MAP_LOOKUP_BATCH";
    COMMAND_NAMES[ENABLE_STATS] = "BPF_ENABLE_STATS";
  }

  /** {@code BPF_ANY}, {@code BPF_NOEXIST}, {@code BPF_EXIST} for map updates. */
  public static final long UPDATE_ANY = 0;
  public static final long UPDATE_NOEXIST = 1;

  /** {@code BPF_STATS_RUN_TIME}. */
  static final int STATS_RUN_TIME = 0;

  private static final int ATTR_BYTES = 160;
  private static final int LOG_BYTES = 1 << 20;
  private static final int LARGE_LOG_BYTES = 16 << 20;
  private static final int PROG_INFO_BYTES = 256;
  private static final int MAP_INFO_BYTES = 96;

  private Bpf() {}

  /** What a map is made of: the fields of {@code BPF_MAP_CREATE} segscope needs. */
  public record MapSpec(String name, int type, int keySize, int valueSize, int maxEntries, int flags) {
    public MapSpec {
      Objects.requireNonNull(name, "name");
    }
  }

  /** What a program is loaded as: the fields of {@code BPF_PROG_LOAD} segscope needs. */
  public record ProgramLoad(String name, int type, byte[] instructions, String license, int kernelVersion,
      int expectedAttachType, int attachBtfId) {
    public ProgramLoad {
      Objects.requireNonNull(name, "name");
      instructions = instructions.clone();
      if (instructions.length == 0 || instructions.length % 8 != 0) {
        throw new IllegalArgumentException("load program " + name + ": " + instructions.length
            + " bytes of instructions, need a positive multiple of 8");
      }
    }

    @Override
    public byte[] instructions() {
      return instructions.clone();
    }
  }

  /** The run statistics and identity of a loaded program ({@code struct bpf_prog_info}). */
  public record ProgramInfo(int id, String name, long runTimeNanos, long runCount) {}

  /** The kernel's view of a map ({@code struct bpf_map_info}). */
  public record MapInfo(int id, int type, int keySize, int valueSize, int maxEntries, int flags) {}

  /** Creates a map; returns its fd. */
  public static int mapCreate(MapSpec spec) throws SysException {
    try (Memory attr = attr()) {
      attr.setInt(0, spec.type());
      attr.setInt(4, spec.keySize());
      attr.setInt(8, spec.valueSize());
      attr.setInt(12, spec.maxEntries());
      attr.setInt(16, spec.flags());
      byte[] name = objectName(spec.name());
      attr.write(28, name, 0, name.length);
      return (int) call(MAP_CREATE, attr, spec.name());
    }
  }

  /**
   * Loads a program; returns its fd. A refused program is loaded once more with the verifier log
   * on, so the exception carries the log ({@link SysException#log()}) and its last lines.
   */
  public static int progLoad(ProgramLoad p) throws SysException {
    try {
      return progLoad(p, 0, 0);
    } catch (SysException first) {
      if (first.errno() != Errno.EACCES && first.errno() != Errno.EINVAL && first.errno() != Errno.E2BIG) {
        throw first; // e.g. EPERM: no log would say more
      }
    }
    try {
      return progLoad(p, 1, LOG_BYTES);
    } catch (SysException logged) {
      if (logged.errno() != Errno.ENOSPC) {
        throw logged;
      }
    }
    return progLoad(p, 1, LARGE_LOG_BYTES);
  }

  private static int progLoad(ProgramLoad p, int logLevel, int logBytes) throws SysException {
    byte[] insns = p.instructions;
    try (Memory attr = attr();
        Memory code = new Memory(insns.length);
        Memory license = cstring(p.license());
        Memory log = logBytes > 0 ? new Memory(logBytes) : null) {
      code.write(0, insns, 0, insns.length);
      attr.setInt(0, p.type());
      attr.setInt(4, insns.length / 8);
      attr.setPointer(8, code);
      attr.setPointer(16, license);
      if (log != null) {
        log.setByte(0, (byte) 0);
        attr.setInt(24, logLevel);
        attr.setInt(28, logBytes);
        attr.setPointer(32, log);
      }
      attr.setInt(40, p.kernelVersion());
      byte[] name = objectName(p.name());
      attr.write(48, name, 0, name.length);
      attr.setInt(68, p.expectedAttachType());
      attr.setInt(108, p.attachBtfId());
      long r = Libc.INSTANCE.syscall(SYS_BPF, (long) PROG_LOAD, attr, (long) ATTR_BYTES);
      if (r >= 0) {
        return (int) r;
      }
      int errno = Errno.ofFailure(r);
      String text = "";
      if (log != null) {
        log.setByte(logBytes - 1L, (byte) 0);
        text = log.getString(0, StandardCharsets.UTF_8.name());
      }
      throw new SysException("bpf BPF_PROG_LOAD " + p.name(), errno, verdict(text), text);
    }
  }

  /**
   * {@code "verifier: <last two lines>"}, where the verifier says why, or "" when there is no log.
   */
  static String verdict(String verifierLog) {
    List<String> lines = new ArrayList<>();
    String[] all = verifierLog.strip().split("\n");
    for (int i = all.length - 1; i >= 0 && lines.size() < 2; i--) {
      String line = all[i].strip();
      if (!line.isEmpty() && !line.startsWith("processed ")) {
        lines.add(0, line);
      }
    }
    return lines.isEmpty() ? "" : "verifier: " + String.join(" / ", lines);
  }

  /**
   * Attaches a program to a raw tracepoint ({@code name} = the event) or, with {@code name} null, a
   * BTF-typed program (tp_btf, fentry, fexit) to the target it was loaded for. Returns the attachment's
   * fd: closing it detaches.
   */
  public static int rawTracepointOpen(String name, int progFd, String what) throws SysException {
    try (Memory attr = attr(); Memory tp = name == null ? null : cstring(name)) {
      if (tp != null) {
        attr.setPointer(0, tp);
      }
      attr.setInt(8, progFd);
      return (int) call(RAW_TRACEPOINT_OPEN, attr, what);
    }
  }

  /** Looks up {@code key}; false when the map has no such key. */
  public static boolean mapLookup(int mapFd, Pointer key, Pointer value) throws SysException {
    return elem(MAP_LOOKUP_ELEM, mapFd, key, value, 0);
  }

  /** Creates or replaces {@code key}'s value ({@link #UPDATE_ANY}) or only creates it ({@link #UPDATE_NOEXIST}). */
  public static void mapUpdate(int mapFd, Pointer key, Pointer value, long flags) throws SysException {
    elem(MAP_UPDATE_ELEM, mapFd, key, value, flags);
  }

  /** Deletes {@code key}; false when it was not there. */
  public static boolean mapDelete(int mapFd, Pointer key) throws SysException {
    return elem(MAP_DELETE_ELEM, mapFd, key, null, 0);
  }

  /** The key after {@code key} (the first key when {@code key} is null) into {@code next}; false at the end. */
  public static boolean mapNextKey(int mapFd, Pointer key, Pointer next) throws SysException {
    return elem(MAP_GET_NEXT_KEY, mapFd, key, next, 0);
  }

  private static boolean elem(int cmd, int mapFd, Pointer key, Pointer value, long flags) throws SysException {
    try (Memory attr = new Memory(32)) {
      attr.clear();
      attr.setInt(0, mapFd);
      attr.setPointer(8, key);
      attr.setPointer(16, value);
      attr.setLong(24, flags);
      long r = Libc.INSTANCE.syscall(SYS_BPF, (long) cmd, attr, 32L);
      if (r >= 0) {
        return true;
      }
      int errno = Errno.ofFailure(r);
      if (errno == Errno.ENOENT && cmd != MAP_UPDATE_ELEM) {
        return false;
      }
      throw new SysException("bpf " + COMMAND_NAMES[cmd] + " map fd " + mapFd, errno, "");
    }
  }

  /**
   * One {@code BPF_MAP_LOOKUP_BATCH}: up to {@code max} entries after the position in {@code inBatch}
   * (null: from the start) into {@code keys}/{@code values}; the position to continue from lands in
   * {@code outBatch}.
   *
   * @return the entries read (≥ 0); negative {@code -(n + 1)} when the map ended after {@code n} entries
   * @throws SysException when the kernel refuses (e.g. {@link SysException#unsupported()} for a map type
   *     or kernel without batch lookups)
   */
  public static int mapLookupBatch(int mapFd, Pointer inBatch, Pointer outBatch, Pointer keys, Pointer values,
      int max) throws SysException {
    try (Memory attr = new Memory(56)) {
      attr.clear();
      attr.setPointer(0, inBatch);
      attr.setPointer(8, outBatch);
      attr.setPointer(16, keys);
      attr.setPointer(24, values);
      attr.setInt(32, max);
      attr.setInt(36, mapFd);
      long r = Libc.INSTANCE.syscall(SYS_BPF, (long) MAP_LOOKUP_BATCH, attr, 56L);
      int count = attr.getInt(32);
      if (r >= 0) {
        return count;
      }
      int errno = Errno.ofFailure(r);
      if (errno == Errno.ENOENT) {
        return -(count + 1);
      }
      throw new SysException("bpf BPF_MAP_LOOKUP_BATCH map fd " + mapFd, errno, "");
    }
  }

  /** The program's id, name and run statistics (non-zero only while bpf_stats is on). */
  public static ProgramInfo progInfo(int progFd) throws SysException {
    try (Memory info = new Memory(PROG_INFO_BYTES)) {
      info.clear();
      int filled = objInfo(progFd, info, PROG_INFO_BYTES, "program");
      boolean stats = filled >= 208;
      return new ProgramInfo(info.getInt(4), cstringAt(info, 64, 16),
          stats ? info.getLong(192) : -1, stats ? info.getLong(200) : -1);
    }
  }

  /** The kernel's description of a map. */
  public static MapInfo mapInfo(int mapFd) throws SysException {
    try (Memory info = new Memory(MAP_INFO_BYTES)) {
      info.clear();
      objInfo(mapFd, info, MAP_INFO_BYTES, "map");
      return new MapInfo(info.getInt(4), info.getInt(0), info.getInt(8), info.getInt(12), info.getInt(16),
          info.getInt(20));
    }
  }

  private static int objInfo(int fd, Memory info, int bytes, String what) throws SysException {
    try (Memory attr = new Memory(16)) {
      attr.clear();
      attr.setInt(0, fd);
      attr.setInt(4, bytes);
      attr.setPointer(8, info);
      long r = Libc.INSTANCE.syscall(SYS_BPF, (long) OBJ_GET_INFO_BY_FD, attr, 16L);
      if (r < 0) {
        throw new SysException("bpf BPF_OBJ_GET_INFO_BY_FD " + what + " fd " + fd, Errno.ofFailure(r), "");
      }
      return attr.getInt(4);
    }
  }

  /**
   * Turns on run-time statistics for every BPF program on the host while the returned fd is open
   * ({@code BPF_ENABLE_STATS}, 5.8+): the kernel switches them off again when the last such fd
   * closes, even if the process dies.
   */
  public static int enableStats() throws SysException {
    try (Memory attr = new Memory(16)) {
      attr.clear();
      attr.setInt(0, STATS_RUN_TIME);
      long r = Libc.INSTANCE.syscall(SYS_BPF, (long) ENABLE_STATS, attr, 16L);
      if (r < 0) {
        throw new SysException("bpf BPF_ENABLE_STATS", Errno.ofFailure(r), "");
      }
      return (int) r;
    }
  }

  /** Closes an fd; returns "" or what went wrong. */
  public static String close(int fd) {
    if (fd < 0) {
      return "";
    }
    int r = Libc.INSTANCE.close(fd);
    return r < 0 ? "close fd " + fd + ": " + Errno.describe(Errno.ofFailure(r)) : "";
  }

  private static long call(int cmd, Memory attr, String object) throws SysException {
    long r = Libc.INSTANCE.syscall(SYS_BPF, (long) cmd, attr, (long) ATTR_BYTES);
    if (r < 0) {
      throw new SysException("bpf " + COMMAND_NAMES[cmd] + " " + object, Errno.ofFailure(r), "");
    }
    return r;
  }

  private static Memory attr() {
    Memory m = new Memory(ATTR_BYTES);
    m.clear();
    return m;
  }

  private static Memory cstring(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    Memory m = new Memory(b.length + 1L);
    m.write(0, b, 0, b.length);
    m.setByte(b.length, (byte) 0);
    return m;
  }

  /** The kernel's object name: at most 15 bytes of [A-Za-z0-9_.], NUL-padded to 16. */
  static byte[] objectName(String name) {
    byte[] out = new byte[16];
    int n = 0;
    for (int i = 0; i < name.length() && n < 15; i++) {
      char c = name.charAt(i);
      if (Character.isLetterOrDigit(c) && c < 128 || c == '_' || c == '.') {
        out[n++] = (byte) c;
      }
    }
    return out;
  }

  private static String cstringAt(Pointer p, long offset, int max) {
    byte[] b = p.getByteArray(offset, max);
    int n = 0;
    while (n < max && b[n] != 0) {
      n++;
    }
    return new String(b, 0, n, StandardCharsets.UTF_8);
  }

  /** For tests: the last errno JNA saw. */
  static int lastError() {
    return Native.getLastError();
  }
}

package io.segscope.probes.bcc;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import io.segscope.probes.bcc.StderrCapture.Captured;
import io.segscope.probes.bcc.StderrCapture.IntResult;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * One compiled BCC program text and everything made from it: loaded programs (fds cached per
 * function), attachments, tables. The middle layer, like bcc Python's {@code BPF} object.
 *
 * <p>Lifetimes: {@link #close()} first detaches every attachment (newest first), then closes the
 * program fds, then destroys the libbcc module (which closes the table fds), then frees the native
 * strings handed to libbcc. After that the module's {@link BpfTable}s refuse to work.
 *
 * <p>Errors: every failing libbcc call becomes a {@link BccException} naming the call and the
 * object; errno is read only when the return value says the call failed; what libbcc and clang
 * print to stderr during compile/load/attach is captured ({@link StderrCapture}), never echoed: a failed
 * call carries it once, in {@link BccException#diagnostics()} and its message; after a successful call
 * it is logged at debug level (trial loads that decide the probe mode print "bpf: Failed to load
 * program: ..." although nothing is wrong). A failed attach leaves the module usable and everything attached
 * before it in place, to be released by {@link #close()}.
 *
 * <p>Thread-safe: loads, attaches and close are serialised; table reads run concurrently with each
 * other but never with close. All calls block (a compile takes ~0.4 s): keep them off event loops.
 */
public final class BpfModule implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(BpfModule.class.getName());
  private static final AtomicLong EVENT_SEQUENCE = new AtomicLong();
  private static final int LOG_BUFFER_BYTES = 1 << 20;
  private static final int LARGE_LOG_BUFFER_BYTES = 16 << 20;
  private static final int PROG_INFO_BYTES = 256;
  private static final int PROG_INFO_RUN_TIME_NS = 192;
  private static final int PROG_INFO_RUN_CNT = 200;

  private final String name;
  private final LibBcc bcc;
  private final Pointer module;
  private final NativeStrings strings;
  private final Map<String, LoadedProgram> programs = new LinkedHashMap<>();
  private final List<Attachment> attachments = new ArrayList<>();
  private final Map<String, BpfTable> tables = new ConcurrentHashMap<>();
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private boolean closed;

  private record LoadedProgram(String function, ProgramType type, int fd) {}

  /** A table operation run while the module is known to be open. */
  @FunctionalInterface
  interface OpenOperation<T> {
    T run() throws BccException;
  }

  private BpfModule(String name, LibBcc bcc, Pointer module, NativeStrings strings) {
    this.name = name;
    this.bcc = bcc;
    this.module = module;
    this.strings = strings;
  }

  /**
   * Compiles BCC C text with clang inside libbcc ({@code bpf_module_create_c_from_string}).
   *
   * @param name   a name for messages, e.g. {@code "gso-tracepoints"}
   * @param cText  the BCC C program
   * @param cflags extra clang flags, e.g. {@code "-DNET_DEVICE_MTU_OFFSET=56"}
   * @throws BccException libbcc unusable ({@link Bcc#requireCompatible()}), or compile failed — the
   *                      exception's diagnostics then hold clang's messages
   */
  public static BpfModule compile(String name, String cText, List<String> cflags) throws BccException {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(cText, "cText");
    Objects.requireNonNull(cflags, "cflags");
    Bcc.requireCompatible();
    LibBcc bcc = Bcc.library();
    NativeStrings strings = new NativeStrings();
    Captured<Pointer> created;
    try {
      Pointer text = strings.cstring(cText);
      Pointer flags = strings.cstringArray(cflags);
      created = StderrCapture.around(() ->
          bcc.bpf_module_create_c_from_string(text, 0, flags, cflags.size(), true, null));
    } catch (RuntimeException e) {
      strings.close();
      throw e;
    }
    if (created.value() == null) {
      strings.close();
      String reason = created.captured() ? "compile failed" : "compile failed (see stderr)";
      throw new BccException("bpf_module_create_c_from_string", name, 0, reason, "", created.stderr());
    }
    printedBy("bpf_module_create_c_from_string", name, created);
    return new BpfModule(name, bcc, created.value(), strings);
  }

  /** The name given at compile time. */
  public String name() {
    return name;
  }

  /**
   * Loads a function of the module as a program of {@code type} ({@code bcc_func_load} with the
   * module's license and kern_version) and returns its fd; a second call returns the same fd.
   *
   * <p>The load runs with log_level 0 and a 1 MiB log buffer of ours; when the kernel refuses,
   * libbcc 0.26 repeats the load with log_level 1 into that buffer, so the verifier log travels in
   * the exception ({@link BccException#verifierLog()}). A truncated log (ENOSPC) is retried with
   * 16 MiB.
   *
   * @throws BccException no such function, already loaded with another type, module closed, or the
   *                      kernel refused the program
   */
  public int load(String function, ProgramType type) throws BccException {
    Objects.requireNonNull(function, "function");
    Objects.requireNonNull(type, "type");
    lock.writeLock().lock();
    try {
      ensureOpen("bcc_func_load", function);
      LoadedProgram loaded = programs.get(function);
      if (loaded != null) {
        if (loaded.type() != type) {
          throw new BccException("bcc_func_load", function,
              "already loaded as " + loaded.type() + ", asked for " + type);
        }
        return loaded.fd();
      }
      Pointer fnName = strings.cstring(function);
      Pointer start = bcc.bpf_function_start(module, fnName);
      if (start == null) {
        throw new BccException("bpf_function_start", function, "no such function in module " + name
            + " (functions: " + String.join(", ", functionNames()) + ")");
      }
      long size = bcc.bpf_function_size(module, fnName);
      int fd = loadProgram(function, type, fnName, start, size, LOG_BUFFER_BYTES);
      programs.put(function, new LoadedProgram(function, type, fd));
      return fd;
    } finally {
      lock.writeLock().unlock();
    }
  }

  private int loadProgram(String function, ProgramType type, Pointer fnName, Pointer start, long size,
      int logBytes) throws BccException {
    Pointer license = bcc.bpf_module_license(module);
    int kernVersion = bcc.bpf_module_kern_version(module);
    try (Memory log = new Memory(logBytes)) {
      log.setByte(0, (byte) 0);
      int logLevel = logBytes == LOG_BUFFER_BYTES ? 0 : 1;
      Captured<IntResult> result = StderrCapture.around(() -> IntResult.of(bcc.bcc_func_load(module,
          type.id(), fnName, start, (int) size, license, kernVersion, logLevel, log, logBytes, null,
          LibBcc.DEFAULT_ATTACH_TYPE)));
      IntResult loaded = result.value();
      if (!loaded.failed()) {
        printedBy("bcc_func_load", function, result);
        return loaded.value();
      }
      if (loaded.errno() == Errno.ENOSPC && logBytes < LARGE_LOG_BUFFER_BYTES) {
        return loadProgram(function, type, fnName, start, size, LARGE_LOG_BUFFER_BYTES);
      }
      log.setByte(logBytes - 1L, (byte) 0);
      String verifierLog = log.getString(0);
      // libbcc also prints the log to stderr: keep it once, in verifierLog()
      String printed = verifierLog.isBlank() ? result.stderr()
          : result.stderr().replace(verifierLog.strip(), "");
      throw new BccException("bcc_func_load", function, loaded.errno(),
          "program type " + type + verdict(verifierLog), verifierLog, printed);
    }
  }

  /** What a successful call printed: for SEGSCOPE_LOG_LEVEL=FINE, not for the screen. */
  private static void printedBy(String call, String object, Captured<?> result) {
    if (!result.stderr().isBlank()) {
      LOG.log(System.Logger.Level.DEBUG, () -> call + " " + object + " printed: " + result.stderr().strip());
    }
  }

  /**
   * "; verifier: <last two lines>" — where the verifier says why (e.g. the refused instruction and
   * "invalid access to map value ...") — or "" when there is no log.
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
    return lines.isEmpty() ? "" : "; verifier: " + String.join(" / ", lines);
  }

  /**
   * Loads {@code function} as TRACEPOINT and attaches it to {@code category:event}
   * ({@code bpf_attach_tracepoint}, which returns a perf event fd; detached with
   * {@code bpf_close_perf_event_fd}). BCC's {@code TRACEPOINT_PROBE(net, net_dev_queue)} defines
   * {@code tracepoint__net__net_dev_queue}.
   */
  public void attachTracepoint(String function, String category, String event) throws BccException {
    Objects.requireNonNull(category, "category");
    Objects.requireNonNull(event, "event");
    lock.writeLock().lock();
    try {
      int progFd = load(function, ProgramType.TRACEPOINT);
      Pointer cat = strings.cstring(category);
      Pointer ev = strings.cstring(event);
      String description = "tracepoint:" + category + ":" + event;
      Captured<IntResult> result =
          StderrCapture.around(() -> IntResult.of(bcc.bpf_attach_tracepoint(progFd, cat, ev)));
      IntResult attached = result.value();
      if (attached.failed()) {
        throw new BccException("bpf_attach_tracepoint", category + ":" + event, attached.errno(),
            "program " + function, "", result.stderr());
      }
      printedBy("bpf_attach_tracepoint", category + ":" + event, result);
      attachments.add(new Attachment.Tracepoint(description, attached.value()));
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Loads {@code function} as KPROBE and attaches it at the entry of {@code kernelSymbol}. */
  public void attachKprobe(String function, String kernelSymbol) throws BccException {
    attachProbe(function, kernelSymbol, LibBcc.BPF_PROBE_ENTRY, "p", "kprobe:");
  }

  /** Loads {@code function} as KPROBE and attaches it at the return of {@code kernelSymbol}. */
  public void attachKretprobe(String function, String kernelSymbol) throws BccException {
    attachProbe(function, kernelSymbol, LibBcc.BPF_PROBE_RETURN, "r", "kretprobe:");
  }

  private void attachProbe(String function, String symbol, int probeType, String prefix, String kind)
      throws BccException {
    Objects.requireNonNull(symbol, "kernelSymbol");
    lock.writeLock().lock();
    try {
      int progFd = load(function, ProgramType.KPROBE);
      String event = kprobeEventName(prefix, symbol, EVENT_SEQUENCE.incrementAndGet());
      Pointer eventName = strings.cstring(event);
      Pointer fnName = strings.cstring(symbol);
      Captured<IntResult> result = StderrCapture.around(() ->
          IntResult.of(bcc.bpf_attach_kprobe(progFd, probeType, eventName, fnName, 0L, 0)));
      IntResult attached = result.value();
      if (attached.failed()) {
        throw new BccException("bpf_attach_kprobe", symbol, attached.errno(),
            "program " + function + ", event " + event, "", result.stderr());
      }
      printedBy("bpf_attach_kprobe", symbol, result);
      attachments.add(new Attachment.Kprobe(kind + symbol, attached.value(), eventName));
    } finally {
      lock.writeLock().unlock();
    }
  }

  /**
   * Loads {@code function} as TRACING and attaches it with {@code bpf_attach_kfunc} (fentry/fexit;
   * the attach target comes from the name: {@code kfunc__vfs_read} → entry of vfs_read,
   * {@code kretfunc__vfs_read} → its return).
   *
   * @throws IllegalArgumentException when the name has neither prefix
   */
  public void attachKfunc(String function) throws BccException {
    String description = kfuncDescription(function);
    lock.writeLock().lock();
    try {
      int progFd = load(function, ProgramType.TRACING);
      Captured<IntResult> result = StderrCapture.around(() -> IntResult.of(bcc.bpf_attach_kfunc(progFd)));
      IntResult attached = result.value();
      if (attached.failed()) {
        throw new BccException("bpf_attach_kfunc", function, attached.errno(), "", "", result.stderr());
      }
      printedBy("bpf_attach_kfunc", function, result);
      attachments.add(new Attachment.Link(description, attached.value()));
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Loads {@code function} as RAW_TRACEPOINT and attaches it to {@code tracepoint}, e.g. "net_dev_queue". */
  public void attachRawTracepoint(String function, String tracepoint) throws BccException {
    Objects.requireNonNull(tracepoint, "tracepoint");
    lock.writeLock().lock();
    try {
      int progFd = load(function, ProgramType.RAW_TRACEPOINT);
      Pointer tp = strings.cstring(tracepoint);
      Captured<IntResult> result =
          StderrCapture.around(() -> IntResult.of(bcc.bpf_attach_raw_tracepoint(progFd, tp)));
      IntResult attached = result.value();
      if (attached.failed()) {
        throw new BccException("bpf_attach_raw_tracepoint", tracepoint, attached.errno(),
            "program " + function, "", result.stderr());
      }
      printedBy("bpf_attach_raw_tracepoint", tracepoint, result);
      attachments.add(new Attachment.Link("raw_tracepoint:" + tracepoint, attached.value()));
    } finally {
      lock.writeLock().unlock();
    }
  }

  /**
   * The table called {@code name} (a {@code BPF_HASH}, {@code BPF_ARRAY}, {@code BPF_HISTOGRAM}, …).
   *
   * @throws BccException naming the table (and the module's tables) when there is none such
   */
  public BpfTable table(String tableName) throws BccException {
    Objects.requireNonNull(tableName, "tableName");
    return whileOpen("table", tableName, () -> {
      BpfTable known = tables.get(tableName);
      if (known != null) {
        return known;
      }
      if (bcc.bpf_table_id(module, tableName) == LibBcc.NO_SUCH_TABLE) {
        throw new BccException("bpf_table_id", tableName, "no such table in module " + name
            + " (tables: " + String.join(", ", tableNamesUnlocked()) + ")");
      }
      int fd = bcc.bpf_table_fd(module, tableName);
      if (fd < 0) {
        throw new BccException("bpf_table_fd", tableName, "table has no map fd in module " + name);
      }
      BpfTable table = new BpfTable(this, tableName, fd, bcc.bpf_table_type(module, tableName),
          Math.toIntExact(bcc.bpf_table_key_size(module, tableName)),
          Math.toIntExact(bcc.bpf_table_leaf_size(module, tableName)),
          bcc.bpf_table_max_entries(module, tableName));
      BpfTable raced = tables.putIfAbsent(tableName, table);
      return raced == null ? table : raced;
    });
  }

  /** Names of the module's tables, in libbcc's order; empty after close. */
  public List<String> tableNames() {
    lock.readLock().lock();
    try {
      return closed ? List.of() : tableNamesUnlocked();
    } finally {
      lock.readLock().unlock();
    }
  }

  private List<String> tableNamesUnlocked() {
    List<String> names = new ArrayList<>();
    long n = bcc.bpf_num_tables(module);
    for (long i = 0; i < n; i++) {
      Pointer tableName = bcc.bpf_table_name(module, i);
      if (tableName != null) {
        names.add(tableName.getString(0));
      }
    }
    return names;
  }

  /**
   * The compiled instructions of {@code function} (8 bytes each), as libbcc relocated them: map
   * references are {@code ld_imm64} instructions with src_reg 1 (BPF_PSEUDO_MAP_FD) holding this
   * module's map fds.
   */
  public byte[] functionCode(String function) throws BccException {
    Objects.requireNonNull(function, "function");
    return whileOpen("bpf_function_start", function, () -> {
      Pointer fnName = strings.cstring(function);
      Pointer start = bcc.bpf_function_start(module, fnName);
      if (start == null) {
        throw new BccException("bpf_function_start", function, "no such function in module " + name);
      }
      long size = bcc.bpf_function_size(module, fnName);
      return start.getByteArray(0, Math.toIntExact(size));
    });
  }

  /** The license string the text declared (BCC defaults to "GPL"). */
  public String license() throws BccException {
    return whileOpen("bpf_module_license", name, () -> {
      Pointer l = bcc.bpf_module_license(module);
      return l == null ? "GPL" : l.getString(0);
    });
  }

  /** LINUX_VERSION_CODE of the headers the module was compiled against. */
  public int kernelVersion() throws BccException {
    return whileOpen("bpf_module_kern_version", name, () -> bcc.bpf_module_kern_version(module));
  }

  /** The map flags a table was declared with ({@code BPF_F_TABLE(..., flags)}), e.g. BPF_F_NO_PREALLOC. */
  public int tableFlags(String tableName) throws BccException {
    Objects.requireNonNull(tableName, "tableName");
    return whileOpen("bpf_table_flags", tableName, () -> bcc.bpf_table_flags(module, tableName));
  }

  /** Names of the module's functions (programs that can be loaded); empty after close. */
  public List<String> functionNames() {
    lock.readLock().lock();
    try {
      if (closed) {
        return List.of();
      }
      List<String> names = new ArrayList<>();
      long n = bcc.bpf_num_functions(module);
      for (long i = 0; i < n; i++) {
        Pointer fn = bcc.bpf_function_name(module, i);
        if (fn != null) {
          names.add(fn.getString(0));
        }
      }
      return names;
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * Run time and run count of every loaded program, in load order
   * ({@code bpf_obj_get_info_by_fd}); empty after close.
   *
   * @throws IllegalStateException when the kernel refuses the info call (cause: a BccException)
   */
  public List<ProgramStats> programStats() {
    lock.readLock().lock();
    try {
      if (closed) {
        return List.of();
      }
      List<ProgramStats> stats = new ArrayList<>();
      for (LoadedProgram program : programs.values()) {
        stats.add(statsOf(program));
      }
      return stats;
    } finally {
      lock.readLock().unlock();
    }
  }

  private ProgramStats statsOf(LoadedProgram program) {
    try (Memory info = new Memory(PROG_INFO_BYTES); Memory length = new Memory(4)) {
      info.clear();
      length.setInt(0, PROG_INFO_BYTES);
      int ret = bcc.bpf_obj_get_info_by_fd(program.fd(), info, length);
      if (ret < 0) {
        int errno = Errno.ofFailure(ret);
        throw new IllegalStateException(
            new BccException("bpf_obj_get_info_by_fd", program.function(), errno));
      }
      int filled = length.getInt(0);
      boolean hasStats = filled >= PROG_INFO_RUN_CNT + 8;
      return new ProgramStats(program.function(), program.fd(),
          hasStats ? info.getLong(PROG_INFO_RUN_TIME_NS) : -1,
          hasStats ? info.getLong(PROG_INFO_RUN_CNT) : -1);
    }
  }

  /** What is attached, oldest first, e.g. {@code "tracepoint:net:net_dev_queue"}; empty after close. */
  public List<String> attachments() {
    lock.readLock().lock();
    try {
      return attachments.stream().map(Attachment::description).toList();
    } finally {
      lock.readLock().unlock();
    }
  }

  /** True once {@link #close()} ran. */
  public boolean isClosed() {
    lock.readLock().lock();
    try {
      return closed;
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * Detaches everything (newest first), closes the program fds, destroys the libbcc module (closing
   * the table fds) and frees the native strings. Idempotent; never throws — problems are logged.
   */
  @Override
  public void close() {
    lock.writeLock().lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      List<String> problems = new ArrayList<>();
      List<Attachment> newestFirst = new ArrayList<>(attachments);
      Collections.reverse(newestFirst);
      for (Attachment attachment : newestFirst) {
        try {
          String problem = attachment.detach(bcc);
          if (!problem.isEmpty()) {
            problems.add(problem);
          }
        } catch (RuntimeException e) {
          problems.add("detach " + attachment.description() + ": " + e);
        }
      }
      attachments.clear();
      for (LoadedProgram program : programs.values()) {
        if (Libc.INSTANCE.close(program.fd()) < 0) {
          int errno = Errno.ofFailure(-1);
          problems.add("close program " + program.function() + ": " + Errno.describe(errno));
        }
      }
      programs.clear();
      tables.clear();
      try {
        bcc.bpf_module_destroy(module);
      } catch (RuntimeException e) {
        problems.add("bpf_module_destroy " + name + ": " + e);
      }
      strings.close();
      if (!problems.isEmpty()) {
        LOG.log(System.Logger.Level.WARNING, "close bpf module " + name + ": " + String.join("; ", problems));
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Runs a table operation under the read lock, refusing once the module is closed. */
  <T> T whileOpen(String call, String object, OpenOperation<T> operation) throws BccException {
    lock.readLock().lock();
    try {
      ensureOpen(call, object);
      return operation.run();
    } finally {
      lock.readLock().unlock();
    }
  }

  private void ensureOpen(String call, String object) throws BccException {
    if (closed) {
      throw new BccException(call, object, "module " + name + " is closed");
    }
  }

  LibBcc bcc() {
    return bcc;
  }

  /**
   * A kprobe event name unique in this process: {@code p_<symbol>_<n>}, symbol characters other than
   * [A-Za-z0-9_] replaced by '_', short enough for the 64-byte limit after libbcc appends
   * {@code _bcc_<pid>}.
   */
  static String kprobeEventName(String prefix, String symbol, long sequence) {
    String cleaned = symbol.replaceAll("[^A-Za-z0-9_]", "_");
    String suffix = "_" + sequence;
    int room = 48 - prefix.length() - 1 - suffix.length();
    if (cleaned.length() > room) {
      cleaned = cleaned.substring(0, Math.max(room, 0));
    }
    return prefix + "_" + cleaned + suffix;
  }

  /** {@code "kfunc:vfs_read"} for {@code kfunc__vfs_read}, {@code "kretfunc:…"} for {@code kretfunc__…}. */
  static String kfuncDescription(String function) {
    Objects.requireNonNull(function, "function");
    for (String kind : List.of("kfunc", "kretfunc")) {
      String prefix = kind + "__";
      if (function.startsWith(prefix) && function.length() > prefix.length()) {
        return kind + ":" + function.substring(prefix.length());
      }
    }
    throw new IllegalArgumentException("attach kfunc " + function
        + ": function name must be kfunc__<kernel function> or kretfunc__<kernel function>"
        + " (KFUNC_PROBE / KRETFUNC_PROBE), libbcc derives the attach target from it");
  }
}

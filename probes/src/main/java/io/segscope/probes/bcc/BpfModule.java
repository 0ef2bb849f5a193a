package io.segscope.probes.bcc;

import com.sun.jna.Pointer;
import io.segscope.probes.bcc.StderrCapture.Captured;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One BCC program text compiled by libbcc, and what the compile made: the functions' instructions
 * and the tables (maps libbcc created, with their definitions). segscope uses libbcc only as its
 * compiler (BccCompiler of probes.compile, in a short-lived child process);
 * loading, attaching and reading maps go through bpf(2) directly ({@code io.segscope.probes.load}).
 *
 * <p>Errors: a failing libbcc call becomes a {@link BccException} naming the call and the object;
 * what libbcc and clang print during the compile is captured ({@link StderrCapture}), never echoed:
 * a failed compile carries it in {@link BccException#diagnostics()} and its message; after a
 * successful one it is logged at debug level.
 *
 * <p>Not for concurrent use; {@link #close()} destroys the libbcc module (closing the maps it made)
 * and frees the native strings handed to it.
 */
public final class BpfModule implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(BpfModule.class.getName());

  /** A table's definition as libbcc compiled it, and the fd of the map libbcc created for it. */
  public record Table(String name, int fd, int type, int keySize, int valueSize, long maxEntries, int flags) {}

  private final String name;
  private final LibBcc bcc;
  private final Pointer module;
  private final NativeStrings strings;
  private boolean closed;

  private BpfModule(String name, LibBcc bcc, Pointer module, NativeStrings strings) {
    this.name = name;
    this.bcc = bcc;
    this.module = module;
    this.strings = strings;
  }

  /**
   * Compiles BCC C text with clang inside libbcc ({@code bpf_module_create_c_from_string}).
   *
   * @param name   a name for messages, e.g. {@code "segscope"}
   * @param cText  the BCC C program
   * @param cflags extra clang flags, e.g. {@code "-DOFF_DEV_MTU=56"}
   * @throws BccException libbcc unusable ({@link Bcc#requireCompatible()}), or the compile failed —
   *                      the exception's diagnostics then hold clang's messages
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
      created =
          StderrCapture.around(() -> bcc.bpf_module_create_c_from_string(text, 0, flags, cflags.size(), true, null));
    } catch (RuntimeException e) {
      strings.close();
      throw e;
    }
    if (created.value() == null) {
      strings.close();
      String reason = created.captured() ? "compile failed" : "compile failed (see stderr)";
      throw new BccException("bpf_module_create_c_from_string", name, 0, reason, "", created.stderr());
    }
    if (!created.stderr().isBlank()) {
      LOG.log(System.Logger.Level.DEBUG,
          () -> "bpf_module_create_c_from_string " + name + " printed: " + created.stderr().strip());
    }
    return new BpfModule(name, bcc, created.value(), strings);
  }

  /** The name given at compile time. */
  public String name() {
    return name;
  }

  /** Names of the module's tables, in libbcc's order. */
  public synchronized List<String> tableNames() throws BccException {
    ensureOpen("bpf_num_tables", name);
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
   * The table called {@code tableName}: its map definition and the fd of the map libbcc created.
   *
   * @throws BccException naming the table (and the module's tables) when there is none such
   */
  public synchronized Table table(String tableName) throws BccException {
    Objects.requireNonNull(tableName, "tableName");
    ensureOpen("bpf_table_id", tableName);
    if (bcc.bpf_table_id(module, tableName) == LibBcc.NO_SUCH_TABLE) {
      throw new BccException("bpf_table_id", tableName, "no such table in module " + name
          + " (tables: " + String.join(", ", tableNames()) + ")");
    }
    int fd = bcc.bpf_table_fd(module, tableName);
    if (fd < 0) {
      throw new BccException("bpf_table_fd", tableName, "table has no map fd in module " + name);
    }
    return new Table(tableName, fd, bcc.bpf_table_type(module, tableName),
        Math.toIntExact(bcc.bpf_table_key_size(module, tableName)),
        Math.toIntExact(bcc.bpf_table_leaf_size(module, tableName)),
        bcc.bpf_table_max_entries(module, tableName), bcc.bpf_table_flags(module, tableName));
  }

  /** Names of the module's functions (the programs), in libbcc's order. */
  public synchronized List<String> functionNames() throws BccException {
    ensureOpen("bpf_num_functions", name);
    List<String> names = new ArrayList<>();
    long n = bcc.bpf_num_functions(module);
    for (long i = 0; i < n; i++) {
      Pointer fn = bcc.bpf_function_name(module, i);
      if (fn != null) {
        names.add(fn.getString(0));
      }
    }
    return names;
  }

  /**
   * The compiled instructions of {@code function} (8 bytes each), as libbcc relocated them: map
   * references are {@code ld_imm64} instructions with src_reg 1 (BPF_PSEUDO_MAP_FD) holding this
   * module's map fds.
   */
  public synchronized byte[] functionCode(String function) throws BccException {
    Objects.requireNonNull(function, "function");
    ensureOpen("bpf_function_start", function);
    Pointer fnName = strings.cstring(function);
    Pointer start = bcc.bpf_function_start(module, fnName);
    if (start == null) {
      throw new BccException("bpf_function_start", function, "no such function in module " + name
          + " (functions: " + String.join(", ", functionNames()) + ")");
    }
    long size = bcc.bpf_function_size(module, fnName);
    return start.getByteArray(0, Math.toIntExact(size));
  }

  /** The license string the text declared (BCC defaults to "GPL"). */
  public synchronized String license() throws BccException {
    ensureOpen("bpf_module_license", name);
    Pointer l = bcc.bpf_module_license(module);
    return l == null ? "GPL" : l.getString(0);
  }

  /** LINUX_VERSION_CODE of the headers the module was compiled against. */
  public synchronized int kernelVersion() throws BccException {
    ensureOpen("bpf_module_kern_version", name);
    return bcc.bpf_module_kern_version(module);
  }

  private void ensureOpen(String call, String object) throws BccException {
    if (closed) {
      throw new BccException(call, object, "module " + name + " is closed");
    }
  }

  /** Destroys the libbcc module (closing the maps it made) and frees the native strings. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      bcc.bpf_module_destroy(module);
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "bpf_module_destroy " + name + ": " + e);
    } finally {
      strings.close();
    }
  }
}

package io.segscope.probes.bcc;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;

/**
 * Bare native declarations of libbcc 0.26 ({@code libbcc.so.0}), exactly as in Debian's
 * {@code libbpfcc-dev} 0.26.0 headers {@code bcc/bcc_common.h} and {@code bcc/libbpf.h}.
 *
 * <p>Type mapping (LP64 Linux only): {@code size_t}, {@code uint64_t}, {@code unsigned long long} →
 * {@code long}; {@code unsigned}, enums → {@code int}; {@code bool} argument → {@code boolean}
 * (JNA passes it as a C int, which is how a {@code bool} argument travels in a register);
 * {@code void *}, {@code char *}, {@code __u32 *} → {@link Pointer}. Every trailing argument
 * (allow_rlimit, dev_name) is declared: a missing one would leave garbage in its register.
 *
 * <p>Return conventions: negative int or NULL means failure; only then is errno
 * ({@link Native#getLastError()}) meaningful — libbcc leaves errno set after successful calls.
 * Nothing here checks anything: {@link BpfModule} does. Only the compile and the introspection of
 * its result are declared: segscope loads, attaches and reads maps through bpf(2) itself.
 */
interface LibBcc extends Library {

  /** File name handed to dlopen: the runtime package ships only the SONAME, not {@code libbcc.so}. */
  String SONAME = "libbcc.so.0";

  /** {@code bpf_table_id} answer for an unknown table: {@code SIZE_MAX}. */
  long NO_SUCH_TABLE = -1L;

  /** Loads libbcc; throws {@link UnsatisfiedLinkError} when it is not there. */
  static LibBcc load() {
    return Native.load(SONAME, LibBcc.class);
  }

  // ---- module (bcc_common.h) ----

  Pointer bpf_module_create_c_from_string(Pointer text, int flags, Pointer cflags, int ncflags,
      boolean allowRlimit, Pointer devName);

  void bpf_module_destroy(Pointer program);

  Pointer bpf_module_license(Pointer program);

  int bpf_module_kern_version(Pointer program);

  long bpf_num_functions(Pointer program);

  Pointer bpf_function_name(Pointer program, long id);

  Pointer bpf_function_start(Pointer program, Pointer name);

  long bpf_function_size(Pointer program, Pointer name);

  long bpf_num_tables(Pointer program);

  long bpf_table_id(Pointer program, String tableName);

  Pointer bpf_table_name(Pointer program, long id);

  int bpf_table_fd(Pointer program, String tableName);

  int bpf_table_type(Pointer program, String tableName);

  long bpf_table_max_entries(Pointer program, String tableName);

  long bpf_table_key_size(Pointer program, String tableName);

  long bpf_table_leaf_size(Pointer program, String tableName);

  int bpf_table_flags(Pointer program, String tableName);
}

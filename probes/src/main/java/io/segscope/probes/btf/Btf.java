package io.segscope.probes.btf;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * A parsed BTF blob (BPF Type Format, include/uapi/linux/btf.h), such as the running kernel's
 * {@code /sys/kernel/btf/vmlinux}, answering the questions segscope needs at run time: member
 * offsets by dotted path, enumerator values, struct sizes and whether a function exists.
 *
 * <p>All 19 kinds (INT … ENUM64) are parsed; the byte order follows the magic. Parsing validates the
 * whole blob up front (header, section bounds, every type record, every name offset and type id
 * reference), so malformed input fails with a {@link BtfException} naming the byte, never with another
 * exception. Name indexes are built lazily on first lookup. Instances are immutable and thread-safe.
 *
 * <p>Paths: the first segment names a struct or union (or a typedef of one); each further segment
 * names a member, found also inside anonymous struct/union members; typedefs and const/volatile/
 * restrict/type-tag qualifiers are looked through, pointers are not followed; offsets accumulate.
 * When a name occurs more than once in the BTF, the lowest type id wins.
 */
public final class Btf {
  /** Where the running kernel exposes its BTF. */
  public static final Path KERNEL_BTF = Path.of("/sys/kernel/btf/vmlinux");

  private final TypeTable types;
  private final NameIndex names;
  private final FieldResolver resolver;

  private Btf(TypeTable types) {
    this.types = types;
    this.names = new NameIndex(types);
    this.resolver = new FieldResolver(types, names);
  }

  /** Parses the running kernel's BTF, {@link #KERNEL_BTF}. */
  public static Btf loadKernel() throws BtfException {
    return load(KERNEL_BTF);
  }

  /** Reads and parses a raw BTF file (not an ELF object: extract its .BTF section first). */
  public static Btf load(Path file) throws BtfException {
    Objects.requireNonNull(file, "file");
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      throw new BtfException("read BTF " + file + ": " + e, e);
    }
    return new Btf(TypeTable.parse(file.toString(), bytes));
  }

  /** Parses a raw BTF blob; messages call its source {@code <bytes>}. The array is copied. */
  public static Btf parse(byte[] bytes) throws BtfException {
    Objects.requireNonNull(bytes, "bytes");
    return new Btf(TypeTable.parse("<bytes>", bytes.clone()));
  }

  /**
   * Resolves a dotted path such as {@code "sk_buff.len"}, {@code "net_device.nd_net.net"} or
   * {@code "sk_buff.ip_summed"} (a bitfield).
   *
   * @throws BtfException {@code "resolve <path>: ..."} naming the missing struct or member (and the
   *                      struct it was looked up in), a segment that is not a struct/union, a
   *                      malformed path, or a reference cycle in corrupt BTF
   */
  public FieldOffset field(String path) throws BtfException {
    Objects.requireNonNull(path, "path");
    return resolver.resolve(path);
  }

  /**
   * Like {@link #field} but empty when the path does not resolve in this BTF (a struct or member
   * that this kernel version does not have, or any other resolve failure).
   *
   * @throws IllegalArgumentException when the path is not well formed (at least two C identifiers
   *                                  separated by dots): that is a programming error, not an absence
   */
  public Optional<FieldOffset> findField(String path) {
    Objects.requireNonNull(path, "path");
    String error = FieldResolver.syntaxError(path);
    if (error != null) {
      throw new IllegalArgumentException("resolve " + path + ": " + error);
    }
    try {
      return Optional.of(resolver.resolve(path));
    } catch (BtfException e) {
      return Optional.empty();
    }
  }

  /**
   * Value of an enumerator of any ENUM or ENUM64, e.g. {@code "NETIF_F_TSO_BIT"}. ENUM values are
   * sign-extended when the enum is marked signed (kind_flag), else zero-extended; an unsigned
   * ENUM64 value above {@link Long#MAX_VALUE} comes back negative (same 64 bits).
   */
  public long enumValue(String enumeratorName) throws BtfException {
    Objects.requireNonNull(enumeratorName, "enumeratorName");
    Long value = names.enumerator(enumeratorName);
    if (value == null) {
      throw BtfException.resolve(enumeratorName, "no enumerator named '" + enumeratorName + "'");
    }
    return value;
  }

  /** Like {@link #enumValue} but empty when no enumerator has that name. */
  public OptionalLong findEnumValue(String enumeratorName) {
    Objects.requireNonNull(enumeratorName, "enumeratorName");
    Long value = names.enumerator(enumeratorName);
    return value == null ? OptionalLong.empty() : OptionalLong.of(value);
  }

  /** True when a BTF FUNC of that name exists (a function the kernel was built with, even if inlined elsewhere). */
  public boolean hasFunction(String name) {
    Objects.requireNonNull(name, "name");
    return names.function(name);
  }

  /**
   * The BTF type id of the kernel function {@code name} (a FUNC), the {@code attach_btf_id} an
   * fentry/fexit program names; empty when the BTF has no such function.
   */
  public OptionalInt functionId(String name) {
    Objects.requireNonNull(name, "name");
    int id = names.functionId(name);
    return id == 0 ? OptionalInt.empty() : OptionalInt.of(id);
  }

  /** The BTF type id of the typedef {@code name}; empty when there is none. */
  public OptionalInt typedefId(String name) {
    Objects.requireNonNull(name, "name");
    int id = names.typedef(name);
    return id == 0 ? OptionalInt.empty() : OptionalInt.of(id);
  }

  /**
   * The argument types a BTF-typed tracepoint program ({@code tp_btf}) of {@code event} receives, e.g.
   * {@code [struct sk_buff *, void *]} for {@code consume_skb} on 6.3+: the parameters of the function
   * prototype behind the kernel's {@code btf_trace_<event>} typedef (whose parameter names BTF does not
   * keep), without its first, hidden {@code void *__data}. Typedefs and qualifiers are looked through.
   * Empty when the kernel has no such typedef (no such tracepoint, or BTF without tracepoint types).
   */
  public Optional<List<String>> tracepointArgs(String event) {
    Objects.requireNonNull(event, "event");
    int id = names.typedef("btf_trace_" + event);
    if (id == 0) {
      return Optional.empty();
    }
    int ptr = types.ref(id);
    if (ptr <= 0 || ptr > types.count() || types.kind(ptr) != BtfKind.PTR) {
      return Optional.empty();
    }
    int proto = types.ref(ptr);
    if (proto <= 0 || proto > types.count() || types.kind(proto) != BtfKind.FUNC_PROTO) {
      return Optional.empty();
    }
    List<String> args = new ArrayList<>();
    for (int i = 1; i < types.vlen(proto); i++) {
      args.add(typeName(types.paramType(proto, i), 0));
    }
    return Optional.of(List.copyOf(args));
  }

  /** A C-like name of a type: {@code struct sk_buff *}, {@code void *}, {@code int}, {@code enum skb_drop_reason}. */
  private String typeName(int id, int depth) {
    if (id == 0) {
      return "void";
    }
    if (depth > 16 || id > types.count()) {
      return "?";
    }
    BtfKind kind = types.kind(id);
    String name = types.string(types.nameOff(id));
    switch (kind) {
      case PTR:
        return typeName(types.ref(id), depth + 1) + " *";
      case STRUCT:
        return "struct " + name;
      case UNION:
        return "union " + name;
      case ENUM:
      case ENUM64:
        return "enum " + name;
      case TYPEDEF:
      case CONST:
      case VOLATILE:
      case RESTRICT:
      case TYPE_TAG:
        return typeName(types.ref(id), depth + 1);
      default:
        return name.isEmpty() ? kind.name() : name;
    }
  }

  /**
   * The BTF type id of the struct or union {@code name} (through a typedef), what {@code bpf_rdonly_cast}
   * takes; empty when the BTF has none.
   */
  public OptionalInt structId(String name) {
    Objects.requireNonNull(name, "name");
    try {
      return OptionalInt.of(resolver.composite(name, name));
    } catch (BtfException e) {
      return OptionalInt.empty();
    }
  }

  /** Size in bytes of the struct or union of that name (or typedef of one); empty when absent or only declared. */
  public OptionalLong structSize(String name) {
    Objects.requireNonNull(name, "name");
    try {
      return OptionalLong.of(types.size(resolver.composite(name, name)));
    } catch (BtfException e) {
      return OptionalLong.empty();
    }
  }

  /** Number of types in the blob, i.e. the last type id (id 0, void, is implicit). */
  public int typeCount() {
    return types.count();
  }

  /** Where the blob came from: the file path, or {@code <bytes>}. */
  public String source() {
    return types.source();
  }

  /** Byte order of the blob, as told by its magic. */
  public ByteOrder byteOrder() {
    return types.order();
  }

  @Override
  public String toString() {
    return "Btf[" + types.source() + ", " + types.count() + " types, " + types.order() + "]";
  }
}

package io.segscope.probes.btf;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Resolves dotted member paths ({@code "net_device.nd_net.net"}) to offsets, walking through
 * anonymous struct/union members, typedefs and qualifiers. Every walk is bounded: chains of
 * typedefs/qualifiers/arrays longer than {@link #MAX_CHAIN} and anonymous nesting deeper than
 * {@link #MAX_NESTING} are reported as errors, so corrupt BTF with reference cycles cannot loop
 * or overflow the stack; each struct is searched at most once per path segment.
 */
final class FieldResolver {
  /** Longest chain of typedef/const/volatile/restrict/type-tag/array links followed (libbpf uses 32). */
  static final int MAX_CHAIN = 32;
  /** Deepest nesting of anonymous struct/union members searched. */
  static final int MAX_NESTING = 32;
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private final TypeTable types;
  private final NameIndex names;

  FieldResolver(TypeTable types, NameIndex names) {
    this.types = types;
    this.names = names;
  }

  /** Why a path is not well formed (segments are C identifiers, at least two), or null when it is. */
  static String syntaxError(String path) {
    String[] segments = path.split("\\.", -1);
    if (segments.length < 2) {
      return "malformed path: want <struct>.<member>[.<member>...]";
    }
    for (String segment : segments) {
      if (!IDENTIFIER.matcher(segment).matches()) {
        return "malformed path: segment '" + segment + "' is not a C identifier";
      }
    }
    return null;
  }

  FieldOffset resolve(String path) throws BtfException {
    String error = syntaxError(path);
    if (error != null) {
      throw BtfException.resolve(path, error);
    }
    String[] segments = path.split("\\.");
    int type = composite(segments[0], path);
    long bitOffset = 0;
    int bitfieldSize = 0;
    for (int i = 1; i < segments.length; i++) {
      int holder = strip(type, path);
      if (holder == 0 || !types.kind(holder).isComposite()) {
        throw BtfException.resolve(path, "'" + segments[i - 1] + "' is " + types.describe(holder)
            + ", not a struct or union, so it has no member '" + segments[i] + "'"
            + (holder != 0 && types.kind(holder) == BtfKind.PTR ? " (offsets do not follow pointers)" : ""));
      }
      Member member = findMember(holder, segments[i].getBytes(StandardCharsets.UTF_8), path, 0, new Search());
      if (member == null) {
        throw BtfException.resolve(path, "no member '" + segments[i] + "' in " + types.describe(holder)
            + (i > 1 ? " (" + String.join(".", Arrays.copyOf(segments, i)) + ")" : ""));
      }
      bitOffset += member.bitOffset();
      bitfieldSize = member.bitfieldSize();
      type = member.type();
    }
    return new FieldOffset(path, bitOffset, bitfieldSize, sizeOf(type, path));
  }

  /** Type id of the struct or union called name, directly or through a typedef. */
  int composite(String name, String path) throws BtfException {
    int id = names.composite(name);
    if (id != 0) {
      return id;
    }
    int typedef = names.typedef(name);
    if (typedef != 0) {
      int target = strip(typedef, path);
      if (target != 0 && types.kind(target).isComposite()) {
        return target;
      }
      throw BtfException.resolve(path, "typedef '" + name + "' names " + types.describe(target)
          + ", not a struct or union");
    }
    if (names.isForwardDeclared(name)) {
      throw BtfException.resolve(path, "'" + name + "' is only forward-declared (FWD) in this BTF: no layout");
    }
    throw BtfException.resolve(path, "no struct, union or typedef named '" + name + "'");
  }

  /** Follows typedef/const/volatile/restrict/type-tag links to the underlying type id (0 = void). */
  int strip(int id, String path) throws BtfException {
    int current = id;
    for (int hops = 0; current != 0 && types.kind(current).isModifier(); hops++) {
      if (hops >= MAX_CHAIN) {
        throw BtfException.resolve(path, "type reference cycle or chain longer than " + MAX_CHAIN
            + " links from type id " + id);
      }
      current = types.ref(current);
    }
    return current;
  }

  /** Size in bytes of a member type: arrays multiply, pointers take the BTF's pointer size. */
  long sizeOf(int id, String path) throws BtfException {
    long elements = 1;
    int current = id;
    try {
      for (int hops = 0;; hops++) {
        if (hops > MAX_CHAIN) {
          throw BtfException.resolve(path, "type reference cycle or chain longer than " + MAX_CHAIN
              + " links from type id " + id);
        }
        if (current == 0) {
          return 0;
        }
        BtfKind kind = types.kind(current);
        switch (kind) {
          case INT, ENUM, ENUM64, STRUCT, UNION, FLOAT, DATASEC -> {
            return Math.multiplyExact(elements, types.size(current));
          }
          case PTR -> {
            return Math.multiplyExact(elements, (long) types.pointerSize());
          }
          case ARRAY -> {
            elements = Math.multiplyExact(elements, types.arrayNelems(current));
            current = types.arrayElemType(current);
          }
          case TYPEDEF, VOLATILE, CONST, RESTRICT, TYPE_TAG -> current = types.ref(current);
          default -> throw BtfException.resolve(path, types.describe(current) + " has no size");
        }
      }
    } catch (ArithmeticException e) {
      throw BtfException.resolve(path, "size of type id " + id + " overflows 64 bits");
    }
  }

  private record Member(long bitOffset, int bitfieldSize, int type) {
  }

  /** Structs being searched (cycle detection) and already searched without a match (no rework). */
  private static final class Search {
    final Set<Integer> active = new HashSet<>();
    final Set<Integer> exhausted = new HashSet<>();
  }

  /** Depth-first search of holder's members, descending into anonymous struct/union members. */
  private Member findMember(int holder, byte[] name, String path, int depth, Search search) throws BtfException {
    if (depth > MAX_NESTING) {
      throw BtfException.resolve(path, "anonymous members nested deeper than " + MAX_NESTING + " below "
          + types.describe(holder));
    }
    if (search.exhausted.contains(holder)) {
      return null;
    }
    if (!search.active.add(holder)) {
      throw BtfException.resolve(path, "reference cycle: " + types.describe(holder)
          + " contains itself through anonymous members");
    }
    boolean kindFlag = types.kindFlag(holder);
    int vlen = types.vlen(holder);
    for (int i = 0; i < vlen; i++) {
      int raw = types.memberOffset(holder, i);
      long bitOffset = kindFlag ? raw & 0xff_ffff : Integer.toUnsignedLong(raw);
      int bitfieldSize = kindFlag ? raw >>> 24 : 0;
      int nameOff = types.memberNameOff(holder, i);
      int type = types.memberType(holder, i);
      if (types.isAnonymous(nameOff)) {
        int inner = strip(type, path);
        if (inner != 0 && types.kind(inner).isComposite()) {
          Member found = findMember(inner, name, path, depth + 1, search);
          if (found != null) {
            return new Member(bitOffset + found.bitOffset(), found.bitfieldSize(), found.type());
          }
        }
      } else if (types.nameIs(nameOff, name)) {
        return kindFlag ? new Member(bitOffset, bitfieldSize, type) : legacyBitfield(bitOffset, type, path);
      }
    }
    search.active.remove(holder);
    search.exhausted.add(holder);
    return null;
  }

  /**
   * Without kind_flag a bitfield is encoded in its INT type: nr_bits narrower than the int, plus a
   * bit offset inside it (BTF_INT_BITS / BTF_INT_OFFSET).
   */
  private Member legacyBitfield(long bitOffset, int type, String path) throws BtfException {
    int target = strip(type, path);
    if (target != 0 && types.kind(target) == BtfKind.INT) {
      int bits = types.intBits(target);
      int offset = types.intBitOffset(target);
      if (offset != 0 || bits != types.size(target) * 8) {
        return new Member(bitOffset + offset, bits, type);
      }
    }
    return new Member(bitOffset, 0, type);
  }
}

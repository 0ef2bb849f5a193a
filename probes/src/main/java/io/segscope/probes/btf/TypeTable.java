package io.segscope.probes.btf;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * The validated type and string sections of one BTF blob, read in place (no per-type objects).
 *
 * <p>{@link #parse} checks everything that later reads rely on: header and section bounds, every
 * type record and its kind data inside the type section, every name offset inside the NUL-terminated
 * string section, and every type id reference within range. After that, accessors cannot go out of
 * bounds; only reference cycles remain, which the resolver bounds.
 */
final class TypeTable {
  static final int HEADER_SIZE = 24;
  static final int VERSION = 1;
  /** BTF_MAX_TYPE of btf.h. */
  static final int MAX_TYPE_ID = 0x000f_ffff;
  private static final int TYPE_RECORD = 12;

  private final String source;
  private final ByteBuffer buf;
  private final byte[] bytes;
  private final int strStart;
  private final int strLen;
  /** offsets[id] = absolute byte offset of the btf_type of that id; index 0 (void) unused. */
  private final int[] offsets;
  private final int count;
  private int pointerSize = 8;

  private TypeTable(String source, byte[] bytes, ByteOrder order, int strStart, int strLen,
      int[] offsets, int count) {
    this.source = source;
    this.bytes = bytes;
    this.buf = ByteBuffer.wrap(bytes).order(order);
    this.strStart = strStart;
    this.strLen = strLen;
    this.offsets = offsets;
    this.count = count;
  }

  static TypeTable parse(String source, byte[] bytes) throws BtfException {
    int length = bytes.length;
    if (length < 2) {
      throw BtfException.parse(source, "blob of " + length + " bytes has no magic", 0);
    }
    ByteOrder order = byteOrder(source, bytes);
    if (length < HEADER_SIZE) {
      throw BtfException.parse(source, "header truncated: blob has " + length + " bytes, header needs "
          + HEADER_SIZE, length);
    }
    ByteBuffer b = ByteBuffer.wrap(bytes).order(order);
    int version = bytes[2] & 0xff;
    if (version != VERSION) {
      throw BtfException.parse(source, "unsupported version " + version + " (want " + VERSION + ")", 2);
    }
    long hdrLen = u32(b, 4);
    if (hdrLen < HEADER_SIZE) {
      throw BtfException.parse(source, "header length " + hdrLen + " shorter than " + HEADER_SIZE, 4);
    }
    if (hdrLen > length) {
      throw BtfException.parse(source, "header length " + hdrLen + " past the end of the blob ("
          + length + " bytes)", 4);
    }
    int[] type = section(source, b, "type", 8, hdrLen, length);
    int[] str = section(source, b, "string", 16, hdrLen, length);
    int strStart = str[0];
    int strLen = str[1];
    if (strLen == 0) {
      throw BtfException.parse(source, "empty string section", 20);
    }
    if (bytes[strStart] != 0) {
      throw BtfException.parse(source, "string section does not start with NUL", strStart);
    }
    if (bytes[strStart + strLen - 1] != 0) {
      throw BtfException.parse(source, "string section not NUL-terminated", strStart + strLen - 1);
    }
    int[] offsets = new int[type[1] / TYPE_RECORD + 1];
    int count = walkTypes(source, b, type[0], type[0] + type[1], strLen, offsets);
    TypeTable table = new TypeTable(source, bytes, order, strStart, strLen,
        Arrays.copyOf(offsets, count + 1), count);
    table.checkReferences();
    return table;
  }

  private static ByteOrder byteOrder(String source, byte[] bytes) throws BtfException {
    int b0 = bytes[0] & 0xff;
    int b1 = bytes[1] & 0xff;
    if (b0 == 0x9f && b1 == 0xeb) {
      return ByteOrder.LITTLE_ENDIAN;
    }
    if (b0 == 0xeb && b1 == 0x9f) {
      return ByteOrder.BIG_ENDIAN;
    }
    throw BtfException.parse(source, String.format("bad magic %02x %02x (want eb9f in either byte order)",
        b0, b1), 0);
  }

  /** Returns {absolute start, length} of the section whose off/len pair sits at headerAt. */
  private static int[] section(String source, ByteBuffer b, String name, int headerAt, long hdrLen, int length)
      throws BtfException {
    long off = u32(b, headerAt);
    long len = u32(b, headerAt + 4);
    long start = hdrLen + off;
    long end = start + len;
    if (end > length) {
      throw BtfException.parse(source, name + " section [" + start + ", " + end
          + ") past the end of the blob (" + length + " bytes)", headerAt);
    }
    return new int[] {(int) start, (int) len};
  }

  /** First pass: locate every type record, check kinds, record sizes and type names. */
  private static int walkTypes(String source, ByteBuffer b, int start, int end, int strLen, int[] offsets)
      throws BtfException {
    int pos = start;
    int id = 0;
    while (pos < end) {
      id++;
      if (end - pos < TYPE_RECORD) {
        throw BtfException.parse(source, "type id " + id + " truncated: " + (end - pos)
            + " bytes left in the type section", pos);
      }
      if (id > MAX_TYPE_ID) {
        throw BtfException.parse(source, "more than " + MAX_TYPE_ID + " types", pos);
      }
      int info = b.getInt(pos + 4);
      BtfKind kind = BtfKind.byId((info >>> 24) & 0x1f);
      if (kind == null) {
        throw BtfException.parse(source, "unknown kind " + ((info >>> 24) & 0x1f) + " of type id " + id, pos + 4);
      }
      int vlen = info & 0xffff;
      long next = pos + (long) TYPE_RECORD + kind.extraBytes(vlen);
      if (next > end) {
        throw BtfException.parse(source, "type id " + id + " (" + kind + ", vlen " + vlen
            + ") runs past the end of the type section (" + end + ")", pos);
      }
      checkName(source, u32(b, pos), strLen, id, pos);
      offsets[id] = pos;
      pos = (int) next;
    }
    return id;
  }

  /** Second pass: every name offset and type id referenced from kind data is in range. */
  private void checkReferences() throws BtfException {
    for (int id = 1; id <= count; id++) {
      int pos = offsets[id];
      BtfKind kind = kind(id);
      int vlen = vlen(id);
      int data = pos + TYPE_RECORD;
      if (kind.refersToType()) {
        checkType(u32(buf, pos + 8), id, pos + 8);
      }
      switch (kind) {
        case ARRAY -> {
          checkType(u32(buf, data), id, data);
          checkType(u32(buf, data + 4), id, data + 4);
        }
        case STRUCT, UNION -> {
          for (int i = 0; i < vlen; i++) {
            int m = data + i * 12;
            checkName(source, u32(buf, m), strLen, id, m);
            checkType(u32(buf, m + 4), id, m + 4);
          }
        }
        case ENUM, ENUM64 -> {
          int stride = kind == BtfKind.ENUM ? 8 : 12;
          for (int i = 0; i < vlen; i++) {
            checkName(source, u32(buf, data + i * stride), strLen, id, data + i * stride);
          }
        }
        case FUNC_PROTO -> {
          for (int i = 0; i < vlen; i++) {
            int p = data + i * 8;
            checkName(source, u32(buf, p), strLen, id, p);
            checkType(u32(buf, p + 4), id, p + 4);
          }
        }
        case DATASEC -> {
          for (int i = 0; i < vlen; i++) {
            checkType(u32(buf, data + i * 12), id, data + i * 12);
          }
        }
        case INT -> {
          if (isLongName(nameOff(id))) {
            pointerSize = (int) Math.min(size(id), Integer.MAX_VALUE);
          }
        }
        default -> {
        }
      }
    }
  }

  private static void checkName(String source, long nameOff, int strLen, int id, int at) throws BtfException {
    if (nameOff >= strLen) {
      throw BtfException.parse(source, "name offset " + nameOff + " of type id " + id
          + " outside the string section (" + strLen + " bytes)", at);
    }
  }

  private void checkType(long ref, int id, int at) throws BtfException {
    if (ref > count) {
      throw BtfException.parse(source, "type id " + ref + " referenced by type id " + id
          + " out of range (last id " + count + ")", at);
    }
  }

  private boolean isLongName(int nameOff) {
    String name = string(nameOff);
    return name.equals("long") || name.equals("unsigned long")
        || name.equals("long int") || name.equals("long unsigned int");
  }

  private static long u32(ByteBuffer b, int at) {
    return Integer.toUnsignedLong(b.getInt(at));
  }

  String source() {
    return source;
  }

  ByteOrder order() {
    return buf.order();
  }

  /** Number of types, i.e. the last valid type id. */
  int count() {
    return count;
  }

  /** Size of a pointer: the size of the BTF's {@code long} type, 8 when it has none. */
  int pointerSize() {
    return pointerSize;
  }

  BtfKind kind(int id) {
    return BtfKind.byId((buf.getInt(offsets[id] + 4) >>> 24) & 0x1f);
  }

  int vlen(int id) {
    return buf.getInt(offsets[id] + 4) & 0xffff;
  }

  boolean kindFlag(int id) {
    return buf.getInt(offsets[id] + 4) < 0;
  }

  int nameOff(int id) {
    return buf.getInt(offsets[id]);
  }

  /** The size field (INT, ENUM, ENUM64, STRUCT, UNION, FLOAT, DATASEC). */
  long size(int id) {
    return u32(buf, offsets[id] + 8);
  }

  /** The type field (kinds where {@link BtfKind#refersToType()}); validated to be a type id. */
  int ref(int id) {
    return buf.getInt(offsets[id] + 8);
  }

  int memberNameOff(int id, int i) {
    return buf.getInt(offsets[id] + TYPE_RECORD + i * 12);
  }

  int memberType(int id, int i) {
    return buf.getInt(offsets[id] + TYPE_RECORD + i * 12 + 4);
  }

  int memberOffset(int id, int i) {
    return buf.getInt(offsets[id] + TYPE_RECORD + i * 12 + 8);
  }

  /** Name offset of parameter i of a FUNC_PROTO. */
  int paramNameOff(int id, int i) {
    return buf.getInt(offsets[id] + TYPE_RECORD + i * 8);
  }

  /** Type id of parameter i of a FUNC_PROTO. */
  int paramType(int id, int i) {
    return buf.getInt(offsets[id] + TYPE_RECORD + i * 8 + 4);
  }

  int arrayElemType(int id) {
    return buf.getInt(offsets[id] + TYPE_RECORD);
  }

  long arrayNelems(int id) {
    return u32(buf, offsets[id] + TYPE_RECORD + 8);
  }

  int intBits(int id) {
    return buf.getInt(offsets[id] + TYPE_RECORD) & 0xff;
  }

  int intBitOffset(int id) {
    return (buf.getInt(offsets[id] + TYPE_RECORD) >>> 16) & 0xff;
  }

  /** Name offset of enumerator i of an ENUM or ENUM64. */
  int enumNameOff(int id, int i) {
    return buf.getInt(offsets[id] + TYPE_RECORD + i * (kind(id) == BtfKind.ENUM ? 8 : 12));
  }

  /**
   * Value of enumerator i: ENUM values are sign-extended when the enum's kind_flag marks it signed,
   * zero-extended otherwise; ENUM64 values are the 64 bits as stored.
   */
  long enumValue(int id, int i) {
    int data = offsets[id] + TYPE_RECORD;
    if (kind(id) == BtfKind.ENUM) {
      int v = buf.getInt(data + i * 8 + 4);
      return kindFlag(id) ? v : Integer.toUnsignedLong(v);
    }
    long lo = u32(buf, data + i * 12 + 4);
    long hi = u32(buf, data + i * 12 + 8);
    return hi << 32 | lo;
  }

  /** True when the string at nameOff is empty (anonymous). */
  boolean isAnonymous(int nameOff) {
    return bytes[strStart + nameOff] == 0;
  }

  /** The NUL-terminated string at a validated name offset. */
  String string(int nameOff) {
    int start = strStart + nameOff;
    int end = start;
    while (bytes[end] != 0) {
      end++;
    }
    return new String(bytes, start, end - start, StandardCharsets.UTF_8);
  }

  /** Compares the string at a validated name offset with UTF-8 bytes, without allocating. */
  boolean nameIs(int nameOff, byte[] utf8) {
    int start = strStart + nameOff;
    int limit = strStart + strLen;
    if (start + utf8.length >= limit) {
      return false;
    }
    for (int i = 0; i < utf8.length; i++) {
      if (bytes[start + i] != utf8[i]) {
        return false;
      }
    }
    return bytes[start + utf8.length] == 0;
  }

  /** "struct sk_buff", "union (anon) [type id 5]", "PTR [type id 9]", "void". */
  String describe(int id) {
    if (id == 0) {
      return "void";
    }
    BtfKind kind = kind(id);
    String name = string(nameOff(id));
    String k = kind.isComposite() ? kind.name().toLowerCase(Locale.ROOT) : kind.name();
    return name.isEmpty() ? k + " (anon) [type id " + id + "]" : k + " " + name;
  }
}

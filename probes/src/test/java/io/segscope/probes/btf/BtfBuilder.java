package io.segscope.probes.btf;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes synthetic BTF blobs for tests: shapes a compiler will not emit (legacy int bitfields,
 * typedef loops, self-containing structs, absurd sizes). Type ids are handed out in call order from 1;
 * a type may refer to an id that is added later.
 */
final class BtfBuilder {
  private final ByteOrder order;
  private final ByteArrayOutputStream strings = new ByteArrayOutputStream();
  private final Map<String, Integer> stringOffsets = new HashMap<>();
  private final List<int[]> types = new ArrayList<>();

  BtfBuilder(ByteOrder order) {
    this.order = order;
    strings.write(0);
    stringOffsets.put("", 0);
  }

  /** Offset of name in the string section (added once). */
  int str(String name) {
    return stringOffsets.computeIfAbsent(name, n -> {
      int off = strings.size();
      strings.writeBytes(n.getBytes(StandardCharsets.UTF_8));
      strings.write(0);
      return off;
    });
  }

  /** A raw record: name_off, info, size_or_type, then the kind data words. Returns its id. */
  int raw(int nameOff, int info, int sizeOrType, int... data) {
    int[] words = new int[3 + data.length];
    words[0] = nameOff;
    words[1] = info;
    words[2] = sizeOrType;
    System.arraycopy(data, 0, words, 3, data.length);
    types.add(words);
    return types.size();
  }

  static int info(int kind, int vlen, boolean kindFlag) {
    return (kindFlag ? 1 << 31 : 0) | kind << 24 | vlen;
  }

  int intType(String name, int size, int bits, int bitOffset) {
    return raw(str(name), info(1, 0, false), size, bitOffset << 16 | bits);
  }

  int ref(int kind, String name, int target) {
    return raw(str(name), info(kind, 0, false), target);
  }

  int array(int elem, int index, int nelems) {
    return raw(0, info(3, 0, false), 0, elem, index, nelems);
  }

  /** members: triples {name_off, type, offset}. */
  int composite(int kind, String name, int size, boolean kindFlag, int... members) {
    return raw(str(name), info(kind, members.length / 3, kindFlag), size, members);
  }

  /** Next id that {@link #raw} will hand out. */
  int nextId() {
    return types.size() + 1;
  }

  byte[] build() {
    ByteArrayOutputStream typeSection = new ByteArrayOutputStream();
    for (int[] words : types) {
      ByteBuffer b = ByteBuffer.allocate(words.length * 4).order(order);
      for (int w : words) {
        b.putInt(w);
      }
      typeSection.writeBytes(b.array());
    }
    byte[] t = typeSection.toByteArray();
    byte[] s = strings.toByteArray();
    ByteBuffer out = ByteBuffer.allocate(24 + t.length + s.length).order(order);
    out.putShort((short) 0xEB9F).put((byte) 1).put((byte) 0).putInt(24)
        .putInt(0).putInt(t.length).putInt(t.length).putInt(s.length);
    out.put(t).put(s);
    return out.array();
  }
}

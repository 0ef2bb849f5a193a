package io.segscope.probes.btf;

import java.util.Objects;

/**
 * Where a (possibly nested) member sits inside its outermost struct or union.
 *
 * @param path         the dotted path that was resolved, e.g. {@code "sk_buff.len"}
 * @param bitOffset    offset of the member's first bit from the start of the outermost struct
 * @param bitfieldSize width in bits when the member is a bitfield, 0 otherwise
 * @param byteSize     size in bytes of the member's type (for a bitfield: of its storage type,
 *                     e.g. 1 for {@code __u8 cloned:1}); pointers take the BTF's pointer size
 */
public record FieldOffset(String path, long bitOffset, int bitfieldSize, long byteSize) {

  public FieldOffset {
    Objects.requireNonNull(path, "path");
    if (bitOffset < 0 || bitfieldSize < 0 || byteSize < 0) {
      throw new IllegalArgumentException("field offset " + path + ": negative value (bitOffset="
          + bitOffset + ", bitfieldSize=" + bitfieldSize + ", byteSize=" + byteSize + ")");
    }
  }

  /** Byte offset of the member (of the byte holding its first bit, for a bitfield): {@code bitOffset / 8}. */
  public long byteOffset() {
    return bitOffset / 8;
  }

  /** True when the member is a bitfield ({@link #bitfieldSize()} &gt; 0). */
  public boolean isBitfield() {
    return bitfieldSize > 0;
  }
}

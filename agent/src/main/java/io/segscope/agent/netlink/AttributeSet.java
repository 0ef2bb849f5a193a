package io.segscope.agent.netlink;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The attributes of one level of a netlink message, in wire order, decoded defensively.
 *
 * <p>Framing errors make the whole level unusable and throw {@link NetlinkException}: an nla_len
 * below 4, an nla_len past the end of the enclosing region, nesting deeper than
 * {@link #MAX_DEPTH}. Content errors affect one attribute only and are skipped with a counted
 * {@link DecodeWarnings warning}: a fixed-size integer whose payload is not exactly that size reads
 * as absent. Unknown attribute types are simply never asked for. A missing attribute is absent
 * (an empty Optional), never 0.
 */
public final class AttributeSet {
  /** Deepest nesting level accepted; real rtnetlink/genl messages use at most 5. */
  public static final int MAX_DEPTH = 16;

  private final List<Attribute> attributes;
  private final int depth;
  private final DecodeWarnings warnings;

  private AttributeSet(List<Attribute> attributes, int depth, DecodeWarnings warnings) {
    this.attributes = attributes;
    this.depth = depth;
    this.warnings = warnings;
  }

  /** Parses the attribute stream in {@code region} (position to limit) at nesting level {@code depth}. */
  public static AttributeSet parse(ByteBuffer region, int depth, DecodeWarnings warnings) {
    if (depth > MAX_DEPTH) {
      throw new NetlinkException("decode attributes: nesting deeper than " + MAX_DEPTH
          + " levels (hostile or looping message)");
    }
    ByteBuffer buf = region.slice().order(ByteOrder.nativeOrder());
    List<Attribute> list = new ArrayList<>();
    int pos = 0;
    int limit = buf.limit();
    while (limit - pos >= Netlink.ATTRIBUTE_HEADER_LENGTH) {
      int len = Short.toUnsignedInt(buf.getShort(pos));
      int rawType = Short.toUnsignedInt(buf.getShort(pos + 2));
      if (len < Netlink.ATTRIBUTE_HEADER_LENGTH) {
        throw new NetlinkException("decode attribute type " + (rawType & Netlink.NLA_TYPE_MASK)
            + " at offset " + pos + " (depth " + depth + "): nla_len " + len + " is below 4");
      }
      if (len > limit - pos) {
        throw new NetlinkException("decode attribute type " + (rawType & Netlink.NLA_TYPE_MASK)
            + " at offset " + pos + " (depth " + depth + "): nla_len " + len + " exceeds the "
            + (limit - pos) + " bytes left");
      }
      ByteBuffer payload = buf.duplicate();
      payload.position(pos + Netlink.ATTRIBUTE_HEADER_LENGTH).limit(pos + len);
      list.add(new Attribute(rawType & Netlink.NLA_TYPE_MASK, (rawType & Netlink.NLA_F_NESTED) != 0,
          (rawType & Netlink.NLA_F_NET_BYTEORDER) != 0, payload, depth));
      pos = Math.min(limit, pos + Netlink.align(len));
    }
    if (pos < limit) {
      warnings.warn("decode attributes (depth " + depth + "): " + (limit - pos)
          + " bytes left over after the last attribute");
    }
    return new AttributeSet(Collections.unmodifiableList(list), depth, warnings);
  }

  public List<Attribute> all() {
    return attributes;
  }

  public int depth() {
    return depth;
  }

  public DecodeWarnings warnings() {
    return warnings;
  }

  /** The first attribute of this type. */
  public Optional<Attribute> get(int type) {
    for (Attribute a : attributes) {
      if (a.type() == type) {
        return Optional.of(a);
      }
    }
    return Optional.empty();
  }

  /** Every attribute of this type, in order (lists such as bitset bits repeat a type). */
  public List<Attribute> getAll(int type) {
    List<Attribute> out = new ArrayList<>();
    for (Attribute a : attributes) {
      if (a.type() == type) {
        out.add(a);
      }
    }
    return out;
  }

  public boolean has(int type) {
    return get(type).isPresent();
  }

  public OptionalInt u8(int type) {
    Optional<Attribute> a = sized(type, 1, "u8");
    return a.isPresent() ? OptionalInt.of(Byte.toUnsignedInt(a.get().view().get(0))) : OptionalInt.empty();
  }

  public OptionalInt u16(int type) {
    Optional<Attribute> a = sized(type, 2, "u16");
    return a.isPresent() ? OptionalInt.of(Short.toUnsignedInt(a.get().view().getShort(0)))
        : OptionalInt.empty();
  }

  /** An unsigned 32-bit value (as a long, so that values above 2^31 stay positive). */
  public OptionalLong u32(int type) {
    Optional<Attribute> a = sized(type, 4, "u32");
    return a.isPresent() ? OptionalLong.of(Integer.toUnsignedLong(a.get().view().getInt(0)))
        : OptionalLong.empty();
  }

  /** A signed 32-bit value. */
  public OptionalInt s32(int type) {
    Optional<Attribute> a = sized(type, 4, "s32");
    return a.isPresent() ? OptionalInt.of(a.get().view().getInt(0)) : OptionalInt.empty();
  }

  public OptionalLong u64(int type) {
    Optional<Attribute> a = sized(type, 8, "u64");
    return a.isPresent() ? OptionalLong.of(a.get().view().getLong(0)) : OptionalLong.empty();
  }

  public Optional<String> string(int type) {
    return get(type).map(Attribute::asString);
  }

  /** A kernel name, byte-exact in segscope's name form ({@link Attribute#asName()}). */
  public Optional<String> name(int type) {
    return get(type).map(Attribute::asName);
  }

  /** The nested set inside the first attribute of this type, if present. */
  public Optional<AttributeSet> nested(int type) {
    return get(type).map(a -> a.nested(warnings));
  }

  private Optional<Attribute> sized(int type, int size, String kind) {
    Optional<Attribute> a = get(type);
    if (a.isPresent() && a.get().length() != size) {
      warnings.warn("decode attribute type " + type + " (depth " + depth + "): " + kind
          + " payload has " + a.get().length() + " bytes, expected " + size + "; ignored");
      return Optional.empty();
    }
    return a;
  }
}

package io.segscope.agent.netlink;

import io.segscope.host.names.NameCodec;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * One netlink attribute (nlattr): its type without the NESTED/NET_BYTEORDER flag bits, the flag
 * bits, and its payload as a read-only native-order view. The depth is the nesting level of the set
 * holding it (0 = top level of a message).
 */
public record Attribute(int type, boolean nestedFlag, boolean netByteOrder, ByteBuffer payload,
    int depth) {

  public Attribute {
    payload = payload.slice().asReadOnlyBuffer().order(ByteOrder.nativeOrder());
  }

  public int length() {
    return payload.remaining();
  }

  ByteBuffer view() {
    ByteBuffer b = payload.duplicate();
    return b.order(netByteOrder ? ByteOrder.BIG_ENDIAN : ByteOrder.nativeOrder());
  }

  /** A copy of the payload bytes (a struct or an address carried as an attribute). */
  public byte[] bytes() {
    byte[] out = new byte[payload.remaining()];
    payload.duplicate().get(out);
    return out;
  }

  /** The string up to the first NUL (or the whole payload when it has none), UTF-8. */
  public String asString() {
    return new String(untilNul(), StandardCharsets.UTF_8);
  }

  /**
   * A kernel name (an interface name) up to the first NUL, byte-exact in segscope's name form
   * ({@link io.segscope.host.names.NameCodec}): valid UTF-8 as is, other bytes as {@code \xHH}.
   */
  public String asName() {
    return NameCodec.decode(untilNul());
  }

  /** The payload's bytes up to the first NUL, or all of them when it has none. */
  private byte[] untilNul() {
    ByteBuffer b = view();
    int end = b.limit();
    for (int i = 0; i < b.limit(); i++) {
      if (b.get(i) == 0) {
        end = i;
        break;
      }
    }
    byte[] bytes = new byte[end];
    b.get(bytes);
    return bytes;
  }

  /** The attributes inside this one, one level deeper; see {@link AttributeSet#parse}. */
  public AttributeSet nested(DecodeWarnings warnings) {
    return AttributeSet.parse(payload, depth + 1, warnings);
  }
}

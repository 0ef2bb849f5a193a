package io.segscope.agent.netlink;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;

/**
 * Builds one netlink request: the 16-byte header, a family header, then attributes (nested ones
 * between {@link #beginNested} and {@link #endNested}). Lengths and alignment padding are filled
 * in by {@link #build(int, int)}. Not thread-safe; one builder per message.
 */
public final class MessageBuilder {
  private final int type;
  private final int flags;
  private ByteBuffer buf = ByteBuffer.allocate(256).order(ByteOrder.nativeOrder());
  private final Deque<Integer> openNests = new ArrayDeque<>();

  public MessageBuilder(int type, int flags) {
    this.type = type;
    this.flags = flags;
    buf.position(Netlink.HEADER_LENGTH);
  }

  /** Appends raw family-header bytes (e.g. an ifinfomsg), padded to 4 bytes. */
  public MessageBuilder header(byte[] familyHeader) {
    ensure(familyHeader.length + 3);
    buf.put(familyHeader);
    pad();
    return this;
  }

  public MessageBuilder u8(int attrType, int value) {
    return attr(attrType, new byte[] {(byte) value});
  }

  public MessageBuilder u16(int attrType, int value) {
    return attr(attrType, ByteBuffer.allocate(2).order(ByteOrder.nativeOrder()).putShort((short) value).array());
  }

  public MessageBuilder u32(int attrType, int value) {
    return attr(attrType, ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(value).array());
  }

  public MessageBuilder u64(int attrType, long value) {
    return attr(attrType, ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(value).array());
  }

  /** A NUL-terminated string attribute. */
  public MessageBuilder string(int attrType, String value) {
    byte[] s = value.getBytes(StandardCharsets.UTF_8);
    return attr(attrType, Arrays.copyOf(s, s.length + 1));
  }

  /** A flag attribute (no payload). */
  public MessageBuilder flag(int attrType) {
    return attr(attrType, new byte[0]);
  }

  public MessageBuilder attr(int attrType, byte[] payload) {
    int len = Netlink.ATTRIBUTE_HEADER_LENGTH + payload.length;
    if (len > 0xffff) {
      throw new IllegalArgumentException("attribute " + attrType + " of " + payload.length
          + " bytes does not fit nla_len");
    }
    ensure(len + 3);
    buf.putShort((short) len).putShort((short) attrType).put(payload);
    pad();
    return this;
  }

  /** Opens a nested attribute; NLA_F_NESTED is set on it. */
  public MessageBuilder beginNested(int attrType) {
    ensure(Netlink.ATTRIBUTE_HEADER_LENGTH);
    openNests.push(buf.position());
    buf.putShort((short) 0).putShort((short) (attrType | Netlink.NLA_F_NESTED));
    return this;
  }

  public MessageBuilder endNested() {
    if (openNests.isEmpty()) {
      throw new IllegalStateException("endNested without beginNested");
    }
    int start = openNests.pop();
    buf.putShort(start, (short) (buf.position() - start));
    return this;
  }

  /** The finished message bytes with nlmsg_len, type, flags, seq and port id filled in. */
  public byte[] build(int seq, int portId) {
    if (!openNests.isEmpty()) {
      throw new IllegalStateException("build with " + openNests.size() + " unclosed nested attributes");
    }
    int len = buf.position();
    buf.putInt(0, len).putShort(4, (short) type).putShort(6, (short) flags).putInt(8, seq)
        .putInt(12, portId);
    return Arrays.copyOf(buf.array(), len);
  }

  private void pad() {
    while ((buf.position() & 3) != 0) {
      buf.put((byte) 0);
    }
  }

  private void ensure(int more) {
    if (buf.remaining() < more) {
      ByteBuffer bigger = ByteBuffer.allocate(Math.max(buf.capacity() * 2, buf.position() + more))
          .order(ByteOrder.nativeOrder());
      buf.flip();
      bigger.put(buf);
      buf = bigger;
    }
  }
}

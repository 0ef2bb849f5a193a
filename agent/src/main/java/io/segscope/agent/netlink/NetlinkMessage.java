package io.segscope.agent.netlink;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One netlink message: the nlmsghdr fields and its payload (the bytes after the 16-byte header,
 * up to nlmsg_len). The payload buffer is a read-only, native-order view starting at position 0.
 */
public record NetlinkMessage(int type, int flags, int seq, int portId, ByteBuffer payload) {

  public NetlinkMessage {
    payload = payload.slice().asReadOnlyBuffer().order(ByteOrder.nativeOrder());
  }

  public boolean hasFlag(int flag) {
    return (flags & flag) != 0;
  }

  public int payloadLength() {
    return payload.remaining();
  }

  /** A fresh view of the payload (position 0), independent of other readers. */
  public ByteBuffer payloadView() {
    return payload.duplicate().order(ByteOrder.nativeOrder());
  }

  /** The message as it was on the wire (header and payload, padded to 4 bytes), e.g. to record it. */
  public byte[] toBytes() {
    int len = Netlink.HEADER_LENGTH + payload.remaining();
    ByteBuffer out = ByteBuffer.allocate(Netlink.align(len)).order(ByteOrder.nativeOrder());
    out.putInt(len).putShort((short) type).putShort((short) flags).putInt(seq).putInt(portId);
    out.put(payloadView());
    return out.array();
  }

  /**
   * The attributes following a fixed family header of {@code headerLength} bytes (e.g. 16 for
   * ifinfomsg, 4 for genlmsghdr).
   */
  public AttributeSet attributes(int headerLength, DecodeWarnings warnings) {
    int aligned = Netlink.align(headerLength);
    if (payload.remaining() < headerLength) {
      throw new NetlinkException("decode message type " + type + ": payload of " + payload.remaining()
          + " bytes is shorter than its " + headerLength + "-byte family header");
    }
    ByteBuffer view = payloadView();
    view.position(Math.min(aligned, view.limit()));
    return AttributeSet.parse(view.slice().order(ByteOrder.nativeOrder()), 0, warnings);
  }
}

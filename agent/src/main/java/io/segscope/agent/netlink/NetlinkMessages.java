package io.segscope.agent.netlink;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits a received datagram into netlink messages. The bytes are treated as hostile: a header
 * length below 16, past the end of the datagram, or a trailing fragment shorter than a header is a
 * {@link NetlinkException}, never an index error or a guessed message.
 */
public final class NetlinkMessages {
  private NetlinkMessages() {}

  public static List<NetlinkMessage> parse(ByteBuffer datagram) {
    ByteBuffer buf = datagram.duplicate().order(ByteOrder.nativeOrder());
    List<NetlinkMessage> messages = new ArrayList<>();
    while (buf.hasRemaining()) {
      int offset = buf.position();
      int left = buf.remaining();
      if (left < Netlink.HEADER_LENGTH) {
        throw new NetlinkException("decode netlink message at offset " + offset + ": " + left
            + " trailing bytes, a header needs " + Netlink.HEADER_LENGTH);
      }
      long length = Integer.toUnsignedLong(buf.getInt(offset));
      if (length < Netlink.HEADER_LENGTH) {
        throw new NetlinkException("decode netlink message at offset " + offset + ": nlmsg_len "
            + length + " is shorter than the header");
      }
      if (length > left) {
        throw new NetlinkException("decode netlink message at offset " + offset + ": nlmsg_len "
            + length + " exceeds the " + left + " bytes received (truncated)");
      }
      int len = (int) length;
      int type = Short.toUnsignedInt(buf.getShort(offset + 4));
      int flags = Short.toUnsignedInt(buf.getShort(offset + 6));
      int seq = buf.getInt(offset + 8);
      int port = buf.getInt(offset + 12);
      ByteBuffer payload = buf.duplicate();
      payload.position(offset + Netlink.HEADER_LENGTH).limit(offset + len);
      messages.add(new NetlinkMessage(type, flags, seq, port, payload));
      buf.position(Math.min(buf.limit(), offset + Netlink.align(len)));
    }
    return messages;
  }

  /**
   * Interprets an NLMSG_ERROR payload: returns normally for an ACK (error 0), throws a
   * {@link NetlinkException} naming {@code what} with the errno text and any extended-ack message
   * otherwise.
   */
  public static void checkError(NetlinkMessage message, String what) {
    ByteBuffer p = message.payloadView();
    if (p.remaining() < 4) {
      throw new NetlinkException(what + ": NLMSG_ERROR payload of " + p.remaining()
          + " bytes has no error code");
    }
    int error = p.getInt(0);
    if (error == 0) {
      return;
    }
    String ext = extendedAck(message);
    NetlinkException e = NetlinkException.errno(what, -error);
    if (ext != null) {
      NetlinkException withExt = NetlinkException.errno(what + " (kernel: " + ext + ")", -error);
      withExt.setStackTrace(e.getStackTrace());
      throw withExt;
    }
    throw e;
  }

  /** The NLMSGERR_ATTR_MSG text of an error reply, or null when the kernel sent none. */
  static String extendedAck(NetlinkMessage message) {
    if (!message.hasFlag(Netlink.NLM_F_ACK_TLVS)) {
      return null;
    }
    ByteBuffer p = message.payloadView();
    if (p.remaining() < 4 + Netlink.HEADER_LENGTH) {
      return null;
    }
    int echoed = Netlink.HEADER_LENGTH;
    if (!message.hasFlag(Netlink.NLM_F_CAPPED)) {
      long len = Integer.toUnsignedLong(p.getInt(4));
      if (len < Netlink.HEADER_LENGTH || len > p.remaining() - 4) {
        return null;
      }
      echoed = (int) len;
    }
    int start = 4 + Netlink.align(echoed);
    if (start >= p.remaining()) {
      return null;
    }
    try {
      p.position(start);
      AttributeSet tlvs = AttributeSet.parse(p.slice().order(ByteOrder.nativeOrder()), 0,
          new DecodeWarnings());
      return tlvs.string(Netlink.NLMSGERR_ATTR_MSG).orElse(null);
    } catch (NetlinkException e) {
      return null;
    }
  }
}

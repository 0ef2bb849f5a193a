package io.segscope.agent.netlink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The codec on hand-built bytes: round trips, and hostile framing that must give clear errors. */
class NetlinkCodecTest {
  private final DecodeWarnings warnings = new DecodeWarnings();

  private static ByteBuffer wrap(byte[] b) {
    return ByteBuffer.wrap(b).order(ByteOrder.nativeOrder());
  }

  @Test
  void builtMessageRoundTrips() {
    byte[] bytes = new MessageBuilder(18, Netlink.NLM_F_REQUEST | Netlink.NLM_F_DUMP)
        .header(new byte[] {1, 2, 3})
        .u32(4, 9000)
        .string(3, "veth0")
        .beginNested(18).string(1, "veth").beginNested(2).u8(7, 5).endNested().endNested()
        .u64(9, 1L << 40)
        .u16(11, 0xfffe)
        .flag(12)
        .build(77, 1234);
    assertThat(bytes.length % 4).isZero();
    List<NetlinkMessage> msgs = NetlinkMessages.parse(wrap(bytes));
    assertThat(msgs).hasSize(1);
    NetlinkMessage m = msgs.get(0);
    assertThat(m.type()).isEqualTo(18);
    assertThat(m.seq()).isEqualTo(77);
    assertThat(m.portId()).isEqualTo(1234);
    assertThat(m.hasFlag(Netlink.NLM_F_DUMP)).isTrue();
    AttributeSet a = m.attributes(3, warnings);
    assertThat(a.u32(4)).hasValue(9000);
    assertThat(a.string(3)).hasValue("veth0");
    assertThat(a.u64(9)).hasValue(1L << 40);
    assertThat(a.u16(11)).hasValue(0xfffe);
    assertThat(a.has(12)).isTrue();
    assertThat(a.get(18).orElseThrow().nestedFlag()).isTrue();
    AttributeSet info = a.nested(18).orElseThrow();
    assertThat(info.depth()).isEqualTo(1);
    assertThat(info.string(1)).hasValue("veth");
    assertThat(info.nested(2).orElseThrow().u8(7)).hasValue(5);
    assertThat(a.u32(99)).as("absent attribute").isEmpty();
    assertThat(m.toBytes()).isEqualTo(bytes);
    assertThat(warnings.count()).isZero();
  }

  @Test
  void severalMessagesInOneDatagram() {
    byte[] one = new MessageBuilder(16, Netlink.NLM_F_MULTI).header(new byte[16]).u32(4, 1).build(5, 9);
    byte[] two = new MessageBuilder(Netlink.NLMSG_DONE, Netlink.NLM_F_MULTI).header(new byte[4]).build(5, 9);
    ByteBuffer both = ByteBuffer.allocate(one.length + two.length).put(one).put(two).flip();
    List<NetlinkMessage> msgs = NetlinkMessages.parse(both.order(ByteOrder.nativeOrder()));
    assertThat(msgs).extracting(NetlinkMessage::type).containsExactly(16, Netlink.NLMSG_DONE);
  }

  @Test
  void messageLengthBelowHeaderIsRejected() {
    byte[] b = new MessageBuilder(16, 0).build(1, 1);
    wrap(b).putInt(0, 8);
    assertThatThrownBy(() -> NetlinkMessages.parse(wrap(b)))
        .isInstanceOf(NetlinkException.class).hasMessageContaining("nlmsg_len 8 is shorter than the header");
  }

  @Test
  void messageLengthPastTheEndIsRejected() {
    byte[] b = new MessageBuilder(16, 0).header(new byte[16]).build(1, 1);
    wrap(b).putInt(0, 4000);
    assertThatThrownBy(() -> NetlinkMessages.parse(wrap(b)))
        .isInstanceOf(NetlinkException.class).hasMessageContaining("truncated");
    wrap(b).putInt(0, -1); // 4 GiB as unsigned
    assertThatThrownBy(() -> NetlinkMessages.parse(wrap(b)))
        .isInstanceOf(NetlinkException.class).hasMessageContaining("exceeds");
  }

  @Test
  void trailingFragmentIsRejected() {
    byte[] b = new MessageBuilder(16, 0).header(new byte[16]).build(1, 1);
    byte[] longer = Arrays.copyOf(b, b.length + 8);
    assertThatThrownBy(() -> NetlinkMessages.parse(wrap(longer)))
        .isInstanceOf(NetlinkException.class).hasMessageContaining("8 trailing bytes");
  }

  @Test
  void familyHeaderLongerThanPayloadIsRejected() {
    NetlinkMessage m = NetlinkMessages.parse(wrap(new MessageBuilder(16, 0).header(new byte[8]).build(1, 1))).get(0);
    assertThatThrownBy(() -> m.attributes(16, warnings))
        .isInstanceOf(NetlinkException.class).hasMessageContaining("shorter than its 16-byte family header");
  }

  @Test
  void attributeLengthBelowFourIsRejected() {
    ByteBuffer b = wrap(new byte[8]).putShort(0, (short) 2).putShort(2, (short) 4);
    assertThatThrownBy(() -> AttributeSet.parse(b, 0, warnings))
        .isInstanceOf(NetlinkException.class).hasMessageContaining("nla_len 2 is below 4");
  }

  @Test
  void attributeLengthPastTheEndIsRejected() {
    ByteBuffer b = wrap(new byte[12]).putShort(0, (short) 8).putShort(2, (short) 4).putShort(8, (short) 200)
        .putShort(10, (short) 5);
    assertThatThrownBy(() -> AttributeSet.parse(b, 0, warnings))
        .isInstanceOf(NetlinkException.class)
        .hasMessageContaining("attribute type 5 at offset 8")
        .hasMessageContaining("nla_len 200 exceeds the 4 bytes left");
  }

  @Test
  void nestedAttributeLengthPastItsParentIsRejected() {
    // outer nested attr of 12 bytes holding an inner attr that claims 40 bytes
    ByteBuffer b = wrap(new byte[12]).putShort(0, (short) 12).putShort(2, (short) (1 | Netlink.NLA_F_NESTED))
        .putShort(4, (short) 40).putShort(6, (short) 2);
    AttributeSet outer = AttributeSet.parse(b, 0, warnings);
    assertThatThrownBy(() -> outer.nested(1))
        .isInstanceOf(NetlinkException.class).hasMessageContaining("depth 1");
  }

  @Test
  void nestingDeeperThanTheLimitIsRejected() {
    MessageBuilder mb = new MessageBuilder(16, 0);
    int levels = AttributeSet.MAX_DEPTH + 4;
    for (int i = 0; i < levels; i++) {
      mb.beginNested(1);
    }
    for (int i = 0; i < levels; i++) {
      mb.endNested();
    }
    NetlinkMessage m = NetlinkMessages.parse(wrap(mb.build(1, 1))).get(0);
    AttributeSet level = m.attributes(0, warnings);
    int reached = 0;
    try {
      while (true) {
        level = level.nested(1).orElseThrow();
        reached++;
      }
    } catch (NetlinkException e) {
      assertThat(e).hasMessageContaining("nesting deeper than " + AttributeSet.MAX_DEPTH);
    }
    assertThat(reached).isEqualTo(AttributeSet.MAX_DEPTH);
  }

  @Test
  void wrongSizedIntegerIsAbsentAndCounted() {
    byte[] b = new MessageBuilder(16, 0).attr(4, new byte[] {1, 2}).attr(5, new byte[6]).u32(6, 7).build(1, 1);
    AttributeSet a = NetlinkMessages.parse(wrap(b)).get(0).attributes(0, warnings);
    assertThat(a.u32(4)).isEmpty();
    assertThat(a.u64(5)).isEmpty();
    assertThat(a.u8(6)).isEmpty();
    assertThat(a.u32(6)).hasValue(7);
    assertThat(warnings.count()).isEqualTo(3);
    assertThat(warnings.last()).contains("attribute type 6").contains("expected 1");
  }

  @Test
  void leftoverBytesAfterTheLastAttributeAreCounted() {
    ByteBuffer b = wrap(new byte[10]).putShort(0, (short) 8).putShort(2, (short) 3);
    AttributeSet a = AttributeSet.parse(b, 0, warnings);
    assertThat(a.all()).hasSize(1);
    assertThat(warnings.count()).isEqualTo(1);
    assertThat(warnings.last()).contains("2 bytes left over");
  }

  @Test
  void unknownAttributesAreIgnoredAndRepeatsKept() {
    byte[] b = new MessageBuilder(16, 0).u32(700, 1).u32(3, 5).u32(3, 6).build(1, 1);
    AttributeSet a = NetlinkMessages.parse(wrap(b)).get(0).attributes(0, warnings);
    assertThat(a.u32(3)).hasValue(5);
    assertThat(a.getAll(3)).hasSize(2);
    assertThat(a.all()).hasSize(3);
  }

  @Test
  void lastAttributeWithoutPaddingIsAccepted() {
    // a 5-byte attribute at the very end (no padding after it)
    ByteBuffer b = wrap(new byte[5]).putShort(0, (short) 5).putShort(2, (short) 9).put(4, (byte) 42);
    AttributeSet a = AttributeSet.parse(b, 0, warnings);
    assertThat(a.u8(9)).hasValue(42);
    assertThat(warnings.count()).isZero();
  }

  @Test
  void netByteOrderAttributeIsReadBigEndian() {
    ByteBuffer b = wrap(new byte[8]).putShort(0, (short) 8).putShort(2, (short) (2 | Netlink.NLA_F_NET_BYTEORDER));
    b.order(ByteOrder.BIG_ENDIAN).putInt(4, 0x01020304);
    AttributeSet a = AttributeSet.parse(b.order(ByteOrder.nativeOrder()), 0, warnings);
    assertThat(a.u32(2)).hasValue(0x01020304);
  }

  @Test
  void stringWithoutNulIsReadWhole() {
    byte[] b = new MessageBuilder(16, 0).attr(3, "eth0".getBytes()).build(1, 1);
    assertThat(NetlinkMessages.parse(wrap(b)).get(0).attributes(0, warnings).string(3)).hasValue("eth0");
  }

  @Test
  void ackIsAcceptedAndErrorsCarryErrnoAndExtendedAck() {
    NetlinkMessage ack = error(0, null);
    NetlinkMessages.checkError(ack, "do thing");
    NetlinkMessage enodev = error(-19, null);
    assertThatThrownBy(() -> NetlinkMessages.checkError(enodev, "read features of eth9"))
        .isInstanceOf(NetlinkException.class)
        .hasMessage("read features of eth9: No such device (errno 19)")
        .satisfies(e -> assertThat(((NetlinkException) e).errno()).isEqualTo(19));
    NetlinkMessage withText = error(-22, "gso_max_size invalid");
    assertThatThrownBy(() -> NetlinkMessages.checkError(withText, "set link"))
        .hasMessage("set link (kernel: gso_max_size invalid): Invalid argument (errno 22)");
  }

  @Test
  void errorMessageWithoutCodeIsRejected() {
    NetlinkMessage m = NetlinkMessages.parse(wrap(new MessageBuilder(Netlink.NLMSG_ERROR, 0).build(1, 1))).get(0);
    assertThatThrownBy(() -> NetlinkMessages.checkError(m, "dump links"))
        .isInstanceOf(NetlinkException.class).hasMessageContaining("has no error code");
  }

  @Test
  void corruptExtendedAckIsIgnoredNotThrownAsIndexError() {
    NetlinkMessage m = error(-22, "text");
    byte[] b = m.toBytes();
    wrap(b).putShort(16 + 4 + 16, (short) 300); // break the ext-ack TLV length
    NetlinkMessage broken = NetlinkMessages.parse(wrap(b)).get(0);
    assertThatThrownBy(() -> NetlinkMessages.checkError(broken, "set link"))
        .isInstanceOf(NetlinkException.class).hasMessageNotContaining("kernel:");
  }

  /** An NLMSG_ERROR as the kernel sends it with NETLINK_CAP_ACK: code, echoed header, TLVs. */
  private static NetlinkMessage error(int code, String extAck) {
    ByteBuffer p = ByteBuffer.allocate(4 + 16).order(ByteOrder.nativeOrder()).putInt(0, code).putInt(4, 16);
    MessageBuilder mb = new MessageBuilder(Netlink.NLMSG_ERROR,
        Netlink.NLM_F_CAPPED | (extAck != null ? Netlink.NLM_F_ACK_TLVS : 0)).header(p.array());
    if (extAck != null) {
      mb.string(Netlink.NLMSGERR_ATTR_MSG, extAck);
    }
    return NetlinkMessages.parse(wrap(mb.build(1, 1))).get(0);
  }
}

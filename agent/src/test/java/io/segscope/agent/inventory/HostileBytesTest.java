package io.segscope.agent.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.segscope.agent.inventory.model.Features;
import io.segscope.agent.inventory.model.Link;
import io.segscope.agent.inventory.model.XdpAttachment;
import io.segscope.agent.inventory.model.XdpMode;
import io.segscope.agent.inventory.wire.EthtoolNetlinkFeatures;
import io.segscope.agent.inventory.wire.LinkDecoder;
import io.segscope.agent.inventory.wire.Rtnetlink;
import io.segscope.agent.inventory.wire.Rtnl;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.agent.netlink.MessageBuilder;
import io.segscope.agent.netlink.Netlink;
import io.segscope.agent.netlink.NetlinkException;
import io.segscope.agent.netlink.NetlinkMessage;
import io.segscope.agent.netlink.NetlinkMessages;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Malformed, truncated and hostile rtnetlink / ethtool messages: the decoders either decode, skip
 * with a counted warning, or throw {@link NetlinkException} with a message; never another
 * exception (index errors, NPEs) and never a value for an attribute that is not there.
 */
class HostileBytesTest {
  private final DecodeWarnings warnings = new DecodeWarnings();

  private static ByteBuffer wrap(byte[] b) {
    return ByteBuffer.wrap(b).order(ByteOrder.nativeOrder());
  }

  private static byte[] ifinfomsg(int family, int index) {
    return wrap(new byte[16]).put(0, (byte) family).putInt(4, index).array();
  }

  private static NetlinkMessage one(MessageBuilder mb) {
    return NetlinkMessages.parse(wrap(mb.build(1, 1))).get(0);
  }

  @Test
  void everyTruncationOfARecordedDumpFailsCleanly() {
    byte[] dump = Fixtures.bytes("links-b.bin");
    for (int len = 0; len < dump.length; len++) {
      byte[] cut = Arrays.copyOf(dump, len);
      try {
        List<NetlinkMessage> msgs = NetlinkMessages.parse(wrap(cut));
        Rtnetlink.decodeLinks(msgs, warnings);
      } catch (NetlinkException e) {
        assertThat(e.getMessage()).startsWith("decode");
      }
    }
  }

  @Test
  void corruptedRecordedBytesNeverEscapeAsOtherExceptions() {
    Random random = new Random(20260101L);
    for (String fixture : List.of("links-a.bin", "links-b.bin", "features-a.bin", "strset-a.bin")) {
      byte[] original = Fixtures.bytes(fixture);
      for (int round = 0; round < 400; round++) {
        byte[] b = original.clone();
        int flips = 1 + random.nextInt(8);
        for (int i = 0; i < flips; i++) {
          b[random.nextInt(b.length)] = (byte) random.nextInt(256);
        }
        try {
          List<NetlinkMessage> msgs = NetlinkMessages.parse(wrap(b));
          if (fixture.startsWith("links")) {
            Rtnetlink.decodeLinks(msgs, warnings);
          } else if (fixture.startsWith("features")) {
            EthtoolNetlinkFeatures.decodeFeatureDump(msgs, List.of("a", "b"), warnings);
          } else {
            EthtoolNetlinkFeatures.decodeFeatureNames(msgs, warnings);
          }
        } catch (NetlinkException e) {
          assertThat(e.getMessage()).isNotBlank();
        }
      }
    }
  }

  @Test
  void linkWithoutNameOrMtuIsRejected() {
    NetlinkMessage noName =
        one(new MessageBuilder(Rtnl.RTM_NEWLINK, 0).header(ifinfomsg(0, 5)).u32(Rtnl.IFLA_MTU, 1500));
    assertThatThrownBy(() -> LinkDecoder.decode(noName, warnings))
        .isInstanceOf(NetlinkException.class).hasMessage("decode link ifindex 5: no IFLA_IFNAME");
    NetlinkMessage badMtu = one(new MessageBuilder(Rtnl.RTM_NEWLINK, 0).header(ifinfomsg(0, 5))
        .string(Rtnl.IFLA_IFNAME, "x").u16(Rtnl.IFLA_MTU, 1500));
    assertThatThrownBy(() -> LinkDecoder.decode(badMtu, warnings))
        .isInstanceOf(NetlinkException.class).hasMessageContaining("(x): no usable IFLA_MTU");
  }

  @Test
  void badIfindexShortHeaderAndWrongTypeAreRejected() {
    NetlinkMessage zero = one(new MessageBuilder(Rtnl.RTM_NEWLINK, 0).header(ifinfomsg(0, 0)));
    assertThatThrownBy(() -> LinkDecoder.decode(zero, warnings)).hasMessageContaining("ifindex 0 is not positive");
    NetlinkMessage shortHeader = one(new MessageBuilder(Rtnl.RTM_NEWLINK, 0).header(new byte[8]));
    assertThatThrownBy(() -> LinkDecoder.decode(shortHeader, warnings)).hasMessageContaining("shorter than ifinfomsg");
    NetlinkMessage route = one(new MessageBuilder(24, 0).header(ifinfomsg(0, 3)));
    assertThatThrownBy(() -> LinkDecoder.decode(route, warnings)).hasMessageContaining("type 24 is not RTM_NEWLINK");
  }

  @Test
  void missingLimitsAreAbsentAndWrongSizedOnesSkipped() {
    NetlinkMessage m = one(new MessageBuilder(Rtnl.RTM_NEWLINK, 0).header(ifinfomsg(0, 7))
        .string(Rtnl.IFLA_IFNAME, "old0").u32(Rtnl.IFLA_MTU, 1500)
        .u32(Rtnl.IFLA_GSO_MAX_SIZE, 65536)
        .u16(Rtnl.IFLA_GSO_MAX_SEGS, 100) // wrong size: u32 expected
        .u32(999, 5)                        // unknown attribute
        .beginNested(Rtnl.IFLA_XDP).u8(Rtnl.IFLA_XDP_ATTACHED, 9).endNested());
    Link l = LinkDecoder.decode(m, warnings);
    assertThat(l.gsoMaxSize()).hasValue(65536);
    assertThat(l.gsoMaxSegs()).isEmpty();
    assertThat(l.tsoMaxSize()).isEmpty();
    assertThat(l.groMaxSize()).isEmpty();
    assertThat(l.gsoIpv4MaxSize()).isEmpty();
    assertThat(l.master()).isEmpty();
    assertThat(l.operstate()).isEmpty();
    assertThat(l.kind()).isEmpty();
    assertThat(l.xdp().mode()).isEqualTo(XdpMode.UNREPORTED);
    assertThat(warnings.count()).isEqualTo(2);
  }

  @Test
  void noXdpAttributeIsUnreportedNotNone() {
    NetlinkMessage m = one(new MessageBuilder(Rtnl.RTM_NEWLINK, 0).header(ifinfomsg(0, 7))
        .string(Rtnl.IFLA_IFNAME, "old0").u32(Rtnl.IFLA_MTU, 1500));
    assertThat(LinkDecoder.decode(m, warnings).xdp()).isEqualTo(XdpAttachment.UNREPORTED);
  }

  @Test
  void brokenLinkInADumpIsSkippedAndCountedOthersKept() {
    List<NetlinkMessage> msgs = List.of(
        one(new MessageBuilder(Rtnl.RTM_NEWLINK, Netlink.NLM_F_MULTI).header(ifinfomsg(0, 1))
            .string(Rtnl.IFLA_IFNAME, "lo").u32(Rtnl.IFLA_MTU, 65536)),
        one(new MessageBuilder(Rtnl.RTM_NEWLINK, Netlink.NLM_F_MULTI).header(ifinfomsg(0, 2))
            .u32(Rtnl.IFLA_MTU, 1500)));
    assertThat(Rtnetlink.decodeLinks(msgs, warnings)).extracting(Link::name).containsExactly("lo");
    assertThat(warnings.count()).isEqualTo(1);
    assertThat(warnings.last()).contains("no IFLA_IFNAME");
  }

  @Test
  void bridgeFamilyNotificationsAreNotDeviceDeletions() {
    NamespaceState state = new NamespaceState(null, warnings);
    NetlinkMessage bridgeDel = one(new MessageBuilder(Rtnl.RTM_DELLINK, 0).header(ifinfomsg(7, 3))
        .string(Rtnl.IFLA_IFNAME, "vb").u32(Rtnl.IFLA_MTU, 1500));
    assertThat(state.apply(List.of(bridgeDel))).isFalse();
  }

  @Test
  void featureReplyWithoutBitsetIsRejected() {
    NetlinkMessage m = one(new MessageBuilder(0x15, 0).header(new byte[] {11, 1, 0, 0})
        .beginNested(EthtoolNetlinkFeatures.A_FEATURES_HEADER).u32(1, 3).endNested());
    assertThatThrownBy(() -> EthtoolNetlinkFeatures.decodeFeatures(m, List.of(), warnings))
        .isInstanceOf(NetlinkException.class).hasMessageContaining("bitset attribute 4 missing");
  }

  @Test
  void compactBitsetsAreNamedByIndex() {
    MessageBuilder mb = new MessageBuilder(0x15, 0).header(new byte[] {11, 1, 0, 0});
    for (int type : new int[] {2, 3, 4, 5}) {
      mb.beginNested(type).u32(EthtoolNetlinkFeatures.A_BITSET_SIZE, 3)
          .u32(EthtoolNetlinkFeatures.A_BITSET_VALUE, type == 4 ? 0b101 : 0b010).endNested();
    }
    Features f = EthtoolNetlinkFeatures.decodeFeatures(one(mb), List.of("sg", "csum", "tso"), warnings);
    assertThat(f.active()).containsExactlyInAnyOrder("sg", "tso");
    assertThat(f.hardware()).containsExactly("csum");
    assertThat(f.isFixed("sg")).isTrue();
  }
}

package io.segscope.agent.inventory.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.segscope.agent.inventory.Fixtures;
import io.segscope.agent.inventory.model.Features;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.agent.netlink.NetlinkException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The SIOCETHTOOL fallback's byte layouts. Replies are built the way the kernel fills them
 * (ethtool_get_features: one {available, requested, active, never_changed} block per 32 features)
 * from the feature sets recorded through ethtool netlink, and must decode to the same sets.
 */
class EthtoolIoctlCodecTest {
  private static ByteBuffer le(byte[] b) {
    return ByteBuffer.wrap(b).order(ByteOrder.nativeOrder());
  }

  @Test
  void requestsHaveTheUapiLayout() {
    ByteBuffer info = le(EthtoolIoctlCodec.ssetInfoRequest());
    assertThat(info.capacity()).isEqualTo(20);
    assertThat(info.getInt(0)).isEqualTo(0x37);
    assertThat(info.getLong(8)).isEqualTo(1L << 4);
    ByteBuffer strings = le(EthtoolIoctlCodec.gstringsRequest(66));
    assertThat(strings.capacity()).isEqualTo(12 + 66 * 32);
    assertThat(strings.getInt(0)).isEqualTo(0x1b);
    assertThat(strings.getInt(4)).isEqualTo(4);
    assertThat(strings.getInt(8)).isEqualTo(66);
    ByteBuffer features = le(EthtoolIoctlCodec.gfeaturesRequest(66));
    assertThat(features.getInt(0)).isEqualTo(0x3a);
    assertThat(features.getInt(4)).isEqualTo(3);
    assertThat(features.capacity()).isEqualTo(8 + 3 * 16);
  }

  @Test
  void kernelFilledRepliesDecodeToTheNetlinkFeatureSets() {
    DecodeWarnings warnings = new DecodeWarnings();
    List<String> names = EthtoolNetlinkFeatures.decodeFeatureNames(Fixtures.messages("strset-b.bin"), warnings);
    Map<Integer, Features> recorded = EthtoolNetlinkFeatures.decodeFeatureDump(
        Fixtures.messages("features-b.bin"), names, warnings);
    assertThat(recorded).isNotEmpty();

    byte[] info = EthtoolIoctlCodec.ssetInfoRequest();
    le(info).putInt(16, names.size());
    assertThat(EthtoolIoctlCodec.parseSsetInfo(info)).isEqualTo(names.size());

    byte[] strings = EthtoolIoctlCodec.gstringsRequest(names.size());
    for (int i = 0; i < names.size(); i++) {
      byte[] n = names.get(i).getBytes(StandardCharsets.UTF_8);
      System.arraycopy(n, 0, strings, 12 + i * 32, n.length);
    }
    assertThat(EthtoolIoctlCodec.parseGstrings(strings, names.size())).isEqualTo(names);

    for (Features nl : recorded.values()) {
      byte[] reply = EthtoolIoctlCodec.gfeaturesRequest(names.size());
      ByteBuffer b = le(reply);
      for (int i = 0; i < names.size(); i++) {
        int base = 8 + (i / 32) * 16;
        int bit = 1 << (i % 32);
        String n = names.get(i);
        setBit(b, base, bit, nl.hardware().contains(n));
        setBit(b, base + 4, bit, nl.wanted().contains(n));
        setBit(b, base + 8, bit, nl.active().contains(n));
        setBit(b, base + 12, bit, nl.noChange().contains(n));
      }
      Features ioctl = EthtoolIoctlCodec.parseGfeatures(reply, names);
      assertThat(ioctl.source()).isEqualTo(Features.Source.ETHTOOL_IOCTL);
      assertThat(ioctl.active()).isEqualTo(nl.active());
      assertThat(ioctl.hardware()).isEqualTo(nl.hardware());
      assertThat(ioctl.wanted()).isEqualTo(nl.wanted());
      assertThat(ioctl.noChange()).isEqualTo(nl.noChange());
      assertThat(ioctl.known()).isEqualTo(nl.known());
    }
  }

  private static void setBit(ByteBuffer b, int offset, int bit, boolean on) {
    if (on) {
      b.putInt(offset, b.getInt(offset) | bit);
    }
  }

  @Test
  void hostileRepliesAreRejected() {
    byte[] info = EthtoolIoctlCodec.ssetInfoRequest();
    le(info).putLong(8, 0);
    assertThatThrownBy(() -> EthtoolIoctlCodec.parseSsetInfo(info))
        .isInstanceOf(NetlinkException.class).hasMessageContaining("ETH_SS_FEATURES not reported");
    byte[] huge = EthtoolIoctlCodec.ssetInfoRequest();
    le(huge).putInt(16, 1_000_000);
    assertThatThrownBy(() -> EthtoolIoctlCodec.parseSsetInfo(huge)).hasMessageContaining("implausible count 1000000");
    assertThatThrownBy(() -> EthtoolIoctlCodec.parseSsetInfo(new byte[6])).hasMessageContaining("6 bytes, 20 needed");

    byte[] strings = EthtoolIoctlCodec.gstringsRequest(3);
    le(strings).putInt(8, 2);
    assertThatThrownBy(() -> EthtoolIoctlCodec.parseGstrings(strings, 3)).hasMessageContaining("returned 2 strings");

    byte[] features = EthtoolIoctlCodec.gfeaturesRequest(40);
    le(features).putInt(4, 1);
    assertThatThrownBy(() -> EthtoolIoctlCodec.parseGfeatures(features, Collections.nCopies(40, "x")))
        .hasMessageContaining("kernel filled 1 blocks, 2 needed");
  }

  @Test
  void fullLengthNamesWithoutNulAreKept() {
    String name = "a".repeat(32);
    byte[] strings = EthtoolIoctlCodec.gstringsRequest(1);
    System.arraycopy(name.getBytes(StandardCharsets.UTF_8), 0, strings, 12, 32);
    assertThat(EthtoolIoctlCodec.parseGstrings(strings, 1)).containsExactly(name);
  }

  @Test
  void fixedFollowsEthtool() {
    Features f = new Features(Features.Source.ETHTOOL_IOCTL, List.of("a", "b", "c"), Set.of("a", "b"),
        Set.of("a", "c"), Set.of("a"), Set.of("c"), "");
    assertThat(f.isFixed("a")).isFalse();
    assertThat(f.isFixed("b")).as("not changeable").isTrue();
    assertThat(f.isFixed("c")).as("never changes").isTrue();
  }
}

package io.segscope.probes.btf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The reader against the committed fixtures (src/test/resources/btf: fixture.c compiled by clang for
 * bpfel and bpfeb). Every expected number below was read off {@code bpftool btf dump file
 * fixture-le.btf} (the big-endian dump is identical).
 */
class BtfFixtureTest {

  static byte[] fixture(String name) {
    try (InputStream in = BtfFixtureTest.class.getResourceAsStream("/btf/" + name)) {
      if (in == null) {
        throw new IllegalStateException("missing test resource /btf/" + name);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Stream<Arguments> fixtures() {
    return Stream.of(Arguments.of("fixture-le.btf", ByteOrder.LITTLE_ENDIAN),
        Arguments.of("fixture-be.btf", ByteOrder.BIG_ENDIAN));
  }

  /** path, bit offset, bitfield size, byte size: from the bpftool dump of the fixture. */
  record Expected(String path, long bitOffset, int bitfieldSize, long byteSize) {
  }

  static final List<Expected> FIELDS = List.of(
      // anonymous union [4] > anonymous struct [5] > anonymous union [6]
      new Expected("packet.next", 0, 0, 8),
      new Expected("packet.prev", 64, 0, 8),
      new Expected("packet.dev", 128, 0, 8),
      new Expected("packet.dev_scratch", 128, 0, 8),
      new Expected("packet.rbnode", 0, 0, 24),
      new Expected("packet.len", 192, 0, 4),
      new Expected("packet.data_len", 224, 0, 4),
      new Expected("packet.mac_len", 256, 0, 2),
      new Expected("packet.hdr_len", 272, 0, 2),
      new Expected("packet.cloned", 288, 1, 1),
      new Expected("packet.nohdr", 289, 1, 1),
      new Expected("packet.fclone", 290, 2, 1),
      new Expected("packet.pkt_type", 292, 3, 1),
      new Expected("packet.ip_summed", 296, 2, 1),
      new Expected("packet.ooo_okay", 298, 1, 1),
      new Expected("packet.protocol", 304, 0, 2),
      new Expected("packet.users", 320, 0, 4),          // const volatile __u32
      new Expected("packet.head", 384, 0, 8),
      new Expected("packet.name", 448, 0, 16),          // char[16]
      new Expected("packet.nd_net", 576, 0, 8),         // typedef of an anonymous struct
      new Expected("packet.nd_net.net", 576, 0, 8),
      new Expected("packet.offload", 640, 0, 16),
      new Expected("packet.offload.features", 640, 0, 8),
      new Expected("packet.offload.hw_features", 704, 0, 8),
      new Expected("packet.weight", 768, 0, 8),         // FLOAT double
      new Expected("packet_t.len", 192, 0, 4),          // typedef as first segment
      new Expected("cpacket_t.hdr_len", 272, 0, 2),     // typedef > const > typedef > struct
      new Expected("net.passive", 0, 0, 4),
      new Expected("net.ns", 64, 0, 16),
      new Expected("net.ns.inum", 128, 0, 4),
      new Expected("ns_common.inum", 64, 0, 4),
      new Expected("addr.v4", 0, 0, 4),                 // union
      new Expected("addr.v6", 0, 0, 16),
      new Expected("addr.family", 0, 0, 2),             // anonymous struct in a union
      new Expected("addr.port", 16, 0, 2),
      new Expected("tagged.uptr", 0, 0, 8),             // pointer to TYPE_TAG
      new Expected("tagged.plain", 64, 0, 4));

  @ParameterizedTest
  @MethodSource("fixtures")
  void resolvesEveryExpectedField(String name, ByteOrder order) throws BtfException {
    Btf btf = Btf.parse(fixture(name));

    assertThat(btf.byteOrder()).isEqualTo(order);
    assertThat(btf.typeCount()).isEqualTo(67);
    for (Expected e : FIELDS) {
      FieldOffset f = btf.field(e.path());
      assertThat(f).as(e.path()).isEqualTo(new FieldOffset(e.path(), e.bitOffset(), e.bitfieldSize(), e.byteSize()));
      assertThat(btf.findField(e.path())).contains(f);
    }
  }

  @ParameterizedTest
  @MethodSource("fixtures")
  void bitfieldsReportTheirByte(String name, ByteOrder order) throws BtfException {
    Btf btf = Btf.parse(fixture(name));

    FieldOffset ipSummed = btf.field("packet.ip_summed");
    assertThat(ipSummed.isBitfield()).isTrue();
    assertThat(ipSummed.byteOffset()).isEqualTo(37);
    assertThat(btf.field("packet.fclone").byteOffset()).isEqualTo(36);
    assertThat(btf.field("packet.protocol").isBitfield()).isFalse();
    assertThat(btf.field("packet.protocol").byteOffset()).isEqualTo(38);
  }

  @ParameterizedTest
  @MethodSource("fixtures")
  void enumeratorsOfEveryEnumKind(String name, ByteOrder order) throws BtfException {
    Btf btf = Btf.parse(fixture(name));

    assertThat(btf.enumValue("GSO_TCPV4")).isEqualTo(1);
    assertThat(btf.enumValue("GSO_DODGY")).isEqualTo(2);
    assertThat(btf.enumValue("GSO_TCPV6")).isEqualTo(16);
    assertThat(btf.enumValue("GSO_UDP_L4")).isEqualTo(131072);
    assertThat(btf.enumValue("SV_MINUS_ONE")).isEqualTo(-1);       // ENUM, kind_flag = signed
    assertThat(btf.enumValue("SV_SEVEN")).isEqualTo(7);
    assertThat(btf.enumValue("WIDE_LOW")).isEqualTo(1);            // ENUM64
    assertThat(btf.enumValue("WIDE_HIGH")).isEqualTo(78187493530L);
    assertThat(btf.enumValue("WIDE_TOP")).isEqualTo(0xffff_ffff_ffff_fffeL);
    assertThat(btf.findEnumValue("GSO_TCPV6")).hasValue(16);
    assertThat(btf.findEnumValue("GSO_NOPE")).isEmpty();
    assertThatThrownBy(() -> btf.enumValue("GSO_NOPE"))
        .isInstanceOf(BtfException.class)
        .hasMessage("resolve GSO_NOPE: no enumerator named 'GSO_NOPE'");
  }

  @ParameterizedTest
  @MethodSource("fixtures")
  void functionsAndSizes(String name, ByteOrder order) throws BtfException {
    Btf btf = Btf.parse(fixture(name));

    assertThat(btf.hasFunction("segment_packet")).isTrue();
    assertThat(btf.hasFunction("call_helper")).isTrue();
    assertThat(btf.hasFunction("helper")).isTrue();                // static, carries a DECL_TAG
    assertThat(btf.hasFunction("g_packet")).isFalse();             // a VAR
    assertThat(btf.hasFunction("packet")).isFalse();               // a STRUCT
    assertThat(btf.hasFunction("segment")).isFalse();
    assertThat(btf.structSize("packet")).hasValue(104);
    assertThat(btf.structSize("packet_t")).hasValue(104);
    assertThat(btf.structSize("cpacket_t")).hasValue(104);
    assertThat(btf.structSize("net")).hasValue(24);
    assertThat(btf.structSize("ns_common")).hasValue(16);
    assertThat(btf.structSize("addr")).hasValue(16);
    assertThat(btf.structSize("tagged")).hasValue(16);
    assertThat(btf.structSize("device_stub")).isEmpty();           // FWD only
    assertThat(btf.structSize("__u32")).isEmpty();                 // typedef of an INT
    assertThat(btf.structSize("nope")).isEmpty();
  }

  @Test
  void bothByteOrdersAgreeOnEveryField() throws BtfException {
    Btf le = Btf.parse(fixture("fixture-le.btf"));
    Btf be = Btf.parse(fixture("fixture-be.btf"));
    for (Expected e : FIELDS) {
      assertThat(be.field(e.path())).isEqualTo(le.field(e.path()));
    }
  }

  @Test
  void missingMemberNamesMemberAndStruct() throws BtfException {
    Btf btf = Btf.parse(fixture("fixture-le.btf"));

    assertThatThrownBy(() -> btf.field("packet.gso_segs"))
        .isInstanceOf(BtfException.class)
        .hasMessage("resolve packet.gso_segs: no member 'gso_segs' in struct packet");
    assertThatThrownBy(() -> btf.field("packet.nd_net.dev"))
        .hasMessage("resolve packet.nd_net.dev: no member 'dev' in struct (anon) [type id 25] (packet.nd_net)");
    assertThatThrownBy(() -> btf.field("sk_buff.len"))
        .hasMessage("resolve sk_buff.len: no struct, union or typedef named 'sk_buff'");
    assertThatThrownBy(() -> btf.field("device_stub.len"))
        .hasMessage("resolve device_stub.len: 'device_stub' is only forward-declared (FWD) in this BTF: no layout");
    assertThatThrownBy(() -> btf.field("__u32.x"))
        .hasMessage("resolve __u32.x: typedef '__u32' names INT unsigned int, not a struct or union");
    assertThat(btf.findField("packet.gso_segs")).isEmpty();
    assertThat(btf.findField("sk_buff.len")).isEmpty();
  }

  @Test
  void segmentsBelowScalarsAndPointersAreRejected() throws BtfException {
    Btf btf = Btf.parse(fixture("fixture-le.btf"));

    assertThatThrownBy(() -> btf.field("packet.len.x"))
        .isInstanceOf(BtfException.class)
        .hasMessage("resolve packet.len.x: 'len' is INT unsigned int, not a struct or union, so it has no member 'x'");
    assertThatThrownBy(() -> btf.field("packet.next.len"))
        .hasMessageContaining("'next' is PTR (anon) [type id 2]")
        .hasMessageEndingWith("(offsets do not follow pointers)");
    assertThat(btf.findField("packet.next.len")).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "packet", "packet.", ".len", "packet..len", "packet.len.", "packet.1len", "pack et.len",
      "packet.len[0]"})
  void malformedPaths(String path) throws BtfException {
    Btf btf = Btf.parse(fixture("fixture-le.btf"));

    assertThatThrownBy(() -> btf.field(path))
        .isInstanceOf(BtfException.class)
        .hasMessageStartingWith("resolve " + path + ": malformed path");
    assertThatThrownBy(() -> btf.findField(path))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("resolve " + path + ": malformed path");
  }

  @Test
  void parseCopiesItsInput() throws BtfException {
    byte[] bytes = fixture("fixture-le.btf");
    Btf btf = Btf.parse(bytes);
    Arrays.fill(bytes, (byte) 0);

    assertThat(btf.field("packet.len").bitOffset()).isEqualTo(192);
    assertThat(btf.source()).isEqualTo("<bytes>");
  }

  @Test
  void byteOffsetsForCDefines() throws BtfException {
    Btf btf = Btf.parse(fixture("fixture-le.btf"));
    Map<String, String> paths = new LinkedHashMap<>();
    paths.put("PKT_LEN_OFF", "packet.len");
    paths.put("PKT_NET_OFF", "packet.nd_net.net");
    paths.put("NET_INUM_OFF", "net.ns.inum");

    Map<String, Long> offsets = BtfOffsets.byteOffsets(btf, paths);

    assertThat(offsets).containsExactly(Map.entry("PKT_LEN_OFF", 24L), Map.entry("PKT_NET_OFF", 72L),
        Map.entry("NET_INUM_OFF", 16L));
    assertThat(BtfOffsets.cDefines(offsets))
        .isEqualTo("#define PKT_LEN_OFF 24\n#define PKT_NET_OFF 72\n#define NET_INUM_OFF 16\n");
    assertThatThrownBy(() -> BtfOffsets.byteOffsets(btf, Map.of("PKT_CLONED", "packet.cloned")))
        .isInstanceOf(BtfException.class)
        .hasMessage("resolve packet.cloned: is a 1-bit bitfield at bit 288; a byte offset cannot address it");
    assertThatThrownBy(() -> BtfOffsets.byteOffsets(btf, Map.of("PKT LEN", "packet.len")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("define PKT LEN: not a C identifier");
    assertThatThrownBy(() -> BtfOffsets.byteOffsets(btf, Map.of("PKT_X", "packet.x")))
        .hasMessage("resolve packet.x: no member 'x' in struct packet");
  }
}

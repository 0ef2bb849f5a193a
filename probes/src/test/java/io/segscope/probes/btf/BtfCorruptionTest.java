package io.segscope.probes.btf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Truncated, corrupted and fuzzed fixtures: only ever BtfException, with a message naming the byte. */
class BtfCorruptionTest {

  private static ByteOrder orderOf(String fixture) {
    return fixture.endsWith("-be.btf") ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
  }

  /** The fixture with the header's u32 at byte {@code at} replaced. */
  private static byte[] withHeaderWord(String fixture, int at, long value) {
    byte[] bytes = BtfFixtureTest.fixture(fixture);
    ByteBuffer.wrap(bytes).order(orderOf(fixture)).putInt(at, (int) value);
    return bytes;
  }

  private static long headerWord(String fixture, int at) {
    return Integer.toUnsignedLong(ByteBuffer.wrap(BtfFixtureTest.fixture(fixture)).order(orderOf(fixture)).getInt(at));
  }

  @ParameterizedTest
  @ValueSource(strings = {"fixture-le.btf", "fixture-be.btf"})
  void everyTruncationIsRejected(String fixture) {
    byte[] full = BtfFixtureTest.fixture(fixture);
    for (int length = 0; length < full.length; length++) {
      byte[] cut = Arrays.copyOf(full, length);
      int len = length;
      assertThatThrownBy(() -> Btf.parse(cut))
          .as("truncated to %d of %d bytes", len, full.length)
          .isInstanceOf(BtfException.class)
          .hasMessageStartingWith("parse BTF <bytes>: ")
          .hasMessageMatching("(?s).* at byte \\d+");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"fixture-le.btf", "fixture-be.btf"})
  void headerDamageIsNamed(String fixture) {
    int length = BtfFixtureTest.fixture(fixture).length;
    long typeLen = headerWord(fixture, 12);
    long strOff = headerWord(fixture, 16);
    long strLen = headerWord(fixture, 20);

    byte[] badMagic = BtfFixtureTest.fixture(fixture);
    badMagic[0] = 0x7f;
    badMagic[1] = 0x45;
    assertRejected(badMagic, "bad magic 7f 45 (want eb9f in either byte order) at byte 0");
    byte[] version = BtfFixtureTest.fixture(fixture);
    version[2] = 2;
    assertRejected(version, "unsupported version 2 (want 1) at byte 2");
    assertRejected(withHeaderWord(fixture, 4, 8), "header length 8 shorter than 24 at byte 4");
    assertRejected(withHeaderWord(fixture, 4, 0xffff_ffffL),
        "header length 4294967295 past the end of the blob (" + length + " bytes) at byte 4");
    assertRejected(withHeaderWord(fixture, 8, 0xffff_ffffL),
        "type section [4294967319, " + (4294967319L + typeLen) + ") past the end of the blob (" + length
            + " bytes) at byte 8");
    assertRejected(withHeaderWord(fixture, 12, 0xffff_ffffL),
        "type section [24, 4294967319) past the end of the blob (" + length + " bytes) at byte 8");
    assertRejected(withHeaderWord(fixture, 16, 0x7fff_fff0L),
        "string section [" + (24 + 0x7fff_fff0L) + ", " + (24 + 0x7fff_fff0L + strLen)
            + ") past the end of the blob (" + length + " bytes) at byte 16");
    assertRejected(withHeaderWord(fixture, 20, strLen + 1),
        "string section [" + (24 + strOff) + ", " + (24 + strOff + strLen + 1) + ") past the end of the blob ("
            + length + " bytes) at byte 16");
    assertRejected(withHeaderWord(fixture, 20, 0), "empty string section at byte 20");
    assertRejected(withHeaderWord(fixture, 20, strLen - 1),
        "string section not NUL-terminated at byte " + (24 + strOff + strLen - 2));
    assertRejected(withHeaderWord(fixture, 12, typeLen - 4), "type id 67 (DATASEC, vlen 2) runs past the end of "
        + "the type section (" + (24 + typeLen - 4) + ") at byte " + (24 + typeLen - 36));
    assertRejected(withHeaderWord(fixture, 12, typeLen + 4),
        "type id 68 truncated: 4 bytes left in the type section at byte " + (24 + typeLen));
  }

  @ParameterizedTest
  @ValueSource(strings = {"fixture-le.btf", "fixture-be.btf"})
  void fuzzedFixturesFailOnlyWithBtfException(String fixture) {
    byte[] original = BtfFixtureTest.fixture(fixture);
    long typeEnd = 24 + headerWord(fixture, 12);
    Random random = new Random(0x5e65c0de);
    int parsed = 0;
    for (int round = 0; round < 3000; round++) {
      byte[] bytes = original.clone();
      int flips = 1 + random.nextInt(8);
      for (int i = 0; i < flips; i++) {
        // mostly the header and type section, where structure lives
        int at = random.nextInt(4) == 0 ? random.nextInt(bytes.length) : random.nextInt((int) typeEnd);
        bytes[at] = (byte) random.nextInt(256);
      }
      try {
        exercise(Btf.parse(bytes));
        parsed++;
      } catch (BtfException expected) {
        assertThat(expected.getMessage()).startsWith("parse BTF <bytes>: ");
      } catch (RuntimeException | StackOverflowError e) {
        fail("round " + round + " of " + fixture + " threw " + e, e);
      }
    }
    // the mix must exercise both the rejecting and the resolving paths
    assertThat(parsed).isBetween(100, 2900);
  }

  private static void exercise(Btf btf) {
    for (BtfFixtureTest.Expected e : BtfFixtureTest.FIELDS) {
      btf.findField(e.path());
      try {
        btf.field(e.path());
      } catch (BtfException expected) {
        assertThat(expected.getMessage()).startsWith("resolve " + e.path() + ": ");
      }
    }
    for (String name : new String[] {"GSO_TCPV4", "SV_MINUS_ONE", "WIDE_TOP"}) {
      btf.findEnumValue(name);
    }
    btf.hasFunction("segment_packet");
    btf.structSize("packet");
    btf.structSize("cpacket_t");
    btf.structSize("device_stub");
    assertThat(btf.typeCount()).isPositive();
  }

  private static void assertRejected(byte[] bytes, String what) {
    assertThatThrownBy(() -> Btf.parse(bytes))
        .isInstanceOf(BtfException.class)
        .hasMessage("parse BTF <bytes>: " + what);
  }
}

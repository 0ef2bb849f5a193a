package io.segscope.host.names;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NameCodecTest {

  /** Valid Linux interface names (dev_valid_name) that are hostile to shells, terminals or Java. */
  static final List<byte[]> HOSTILE = List.of(
      bytes("$(touch${IFS}c)"), bytes(";touch${IFS}c"), bytes("`touch${IFS}c`"), bytes("a'b"),
      bytes("a\"b"), bytes("a\\b"), bytes("-c"), bytes("e\u001b[31m"), new byte[] {(byte) 0xff, (byte) 0xfe},
      new byte[] {0x1c}, bytes("u\u2028"), bytes("w\u3000"), bytes("\\xff"), bytes("\\\\"));

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] b(int... v) {
    byte[] out = new byte[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = (byte) v[i];
    }
    return out;
  }

  @Test
  void validUtf8WithoutBackslashIsUnchanged() {
    for (String s : List.of("eth0", "veth1234abcd", "$(touch${IFS}c)", "a'b", "e\u001b[31m", "u\u2028", "w\u3000",
        "\u00e9t\u00e9", "\ud83d\ude00", "\u001c")) {
      assertThat(NameCodec.decode(bytes(s))).isEqualTo(s);
      assertThat(NameCodec.encode(s)).isEqualTo(bytes(s));
    }
  }

  @Test
  void backslashesAndBytesOutsideUtf8AreEscaped() {
    assertThat(NameCodec.decode(bytes("a\\b"))).isEqualTo("a\\\\b");
    assertThat(NameCodec.decode(b(0xff, 0xfe))).isEqualTo("\\xff\\xfe");
    assertThat(NameCodec.decode(b('x', 0x80, 'y'))).isEqualTo("x\\x80y");
    assertThat(NameCodec.decode(b(0xc0, 0x80))).as("overlong NUL").isEqualTo("\\xc0\\x80");
    assertThat(NameCodec.decode(b(0xe0, 0x80, 0xaf))).as("overlong '/'").isEqualTo("\\xe0\\x80\\xaf");
    assertThat(NameCodec.decode(b(0xed, 0xa0, 0x80))).as("UTF-8 of a surrogate").isEqualTo("\\xed\\xa0\\x80");
    assertThat(NameCodec.decode(b(0xf4, 0x90, 0x80, 0x80))).as("above U+10FFFF").isEqualTo("\\xf4\\x90\\x80\\x80");
    assertThat(NameCodec.decode(b(0xe2, 0x80))).as("truncated sequence").isEqualTo("\\xe2\\x80");
    assertThat(NameCodec.decode(b(0xe2, 0x80, 'a'))).isEqualTo("\\xe2\\x80a");
    // the literal text "\xff" is not the byte 0xff
    assertThat(NameCodec.decode(bytes("\\xff"))).isEqualTo("\\\\xff");
    assertThat(NameCodec.encode("\\\\xff")).isEqualTo(bytes("\\xff"));
    assertThat(NameCodec.encode("\\xFF")).isEqualTo(b(0xff));
  }

  @Test
  void everyOneAndTwoByteStringRoundTripsAndNoTwoCollide() {
    Set<String> seen = new HashSet<>();
    for (int x = 0; x < 256; x++) {
      assertRoundTrip(b(x));
      assertThat(seen.add(NameCodec.decode(b(x)))).isTrue();
      for (int y = 0; y < 256; y++) {
        assertRoundTrip(b(x, y));
        assertThat(seen.add(NameCodec.decode(b(x, y)))).as("%02x %02x", x, y).isTrue();
      }
    }
  }

  @Test
  void randomNamesRoundTripAndAgreeWithTheJdkOnValidUtf8() throws Exception {
    Random r = new Random(20261201L);
    // bias towards the interesting bytes: ASCII, backslash, 'x', hex digits, UTF-8 lead and continuation bytes
    int[] alphabet = {'a', 'x', 'f', '0', '\\', 0x1b, 0x1c, 0x7f, 0x80, 0x9f, 0xa0, 0xbf, 0xc2, 0xdf, 0xe0, 0xe2,
        0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, 0xfe, 0xc0};
    var strict = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    int valid = 0;
    for (int round = 0; round < 200_000; round++) {
      byte[] name = new byte[1 + r.nextInt(15)];
      for (int i = 0; i < name.length; i++) {
        name[i] = (byte) (r.nextBoolean() ? alphabet[r.nextInt(alphabet.length)] : r.nextInt(256));
      }
      assertRoundTrip(name);
      String javaText;
      try {
        javaText = strict.decode(ByteBuffer.wrap(name)).toString();
      } catch (CharacterCodingException e) {
        assertThat(NameCodec.decode(name)).as(Arrays.toString(name)).contains("\\x");
        continue;
      }
      valid++;
      assertThat(NameCodec.decode(name)).isEqualTo(javaText.replace("\\", "\\\\"));
    }
    assertThat(valid).as("the sample holds valid UTF-8 too").isGreaterThan(1000);
  }

  @Test
  void displayFormEscapesWhatATerminalWouldInterpretAndEncodesToTheSameBytes() {
    assertThat(NameCodec.display(NameCodec.decode(bytes("e\u001b[31m")))).isEqualTo("e\\x1b[31m");
    assertThat(NameCodec.display("\u001c")).isEqualTo("\\x1c");
    assertThat(NameCodec.display("u\u2028")).isEqualTo("u\\xe2\\x80\\xa8");
    assertThat(NameCodec.display("w\u3000")).isEqualTo("w\\xe3\\x80\\x80");
    assertThat(NameCodec.display("rtl\u202e")).isEqualTo("rtl\\xe2\\x80\\xae");
    assertThat(NameCodec.display("a\nb\tc\u007f\u0085")).isEqualTo("a\\x0ab\\x09c\\x7f\\xc2\\x85");
    assertThat(NameCodec.display("\u00e9t\u00e9 $(x) a\\\\b \ud83d\ude00"))
        .isEqualTo("\u00e9t\u00e9 $(x) a\\\\b \ud83d\ude00");
    assertThat(NameCodec.display("bad\ud800")).isEqualTo("bad\\x3f");
    for (byte[] h : HOSTILE) {
      String display = NameCodec.display(NameCodec.decode(h));
      assertThat(display.codePoints().allMatch(NameCodec::isPrintable)).as(display).isTrue();
      assertThat(NameCodec.encode(display)).isEqualTo(h);
    }
    Random r = new Random(7);
    for (int round = 0; round < 50_000; round++) {
      byte[] name = new byte[1 + r.nextInt(15)];
      r.nextBytes(name);
      String display = NameCodec.display(NameCodec.decode(name));
      assertThat(display.codePoints().allMatch(NameCodec::isPrintable)).isTrue();
      assertThat(NameCodec.encode(display)).isEqualTo(name);
    }
  }

  @Test
  void encodeRejectsTextOutsideTheGrammar() {
    for (String bad : List.of("a\\", "\\q", "\\x", "\\x1", "\\xg0", "\\x\u0661\u0662", "x\ud800", "\udc00y")) {
      assertThatThrownBy(() -> NameCodec.encode(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("encode name");
    }
  }

  private static void assertRoundTrip(byte[] name) {
    String form = NameCodec.decode(name);
    assertThat(NameCodec.encode(form)).as("%s -> %s", Arrays.toString(name), form).isEqualTo(name);
  }
}

package io.segscope.probes.wire;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** The NUL-terminated {@code char name[16]} the programs copy from {@code net_device.name}. */
public final class NameBytes {
  static final int SIZE = 16;

  private NameBytes() {}

  /** The raw bytes of the name at {@code offset} (up to the first NUL). */
  static byte[] read(ByteBuffer b, int offset) {
    int n = 0;
    while (n < SIZE && b.get(offset + n) != 0) {
      n++;
    }
    byte[] out = new byte[n];
    for (int i = 0; i < n; i++) {
      out[i] = b.get(offset + i);
    }
    return out;
  }

  /**
   * The name as text: UTF-8 when it is valid UTF-8, else each byte that is not part of valid UTF-8
   * as {@code \xHH} (and a backslash as {@code \\}), so two different names never read the same.
   */
  public static String text(byte[] name) {
    try {
      String s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(name)).toString();
      if (s.indexOf('\\') < 0) {
        return s;
      }
    } catch (CharacterCodingException e) {
      // escaped below
    }
    StringBuilder out = new StringBuilder();
    for (byte x : name) {
      int u = x & 0xff;
      if (u == '\\') {
        out.append("\\\\");
      } else if (u >= 0x80) {
        out.append(String.format("\\x%02x", u));
      } else {
        out.append((char) u);
      }
    }
    return out.toString();
  }
}

package io.segscope.host.names;

import java.io.ByteArrayOutputStream;

/**
 * How segscope writes a kernel name (an interface name, a namespace file name: any bytes but NUL)
 * as a Java string, and back. Linux accepts as an interface name any 1..15 bytes except '/', ':'
 * and whitespace, so names are byte strings, not text: {@code $(reboot)}, {@code a'b}, ESC, 0x1c
 * or a lone 0xff are all valid.
 *
 * <p>The <b>name form</b> ({@link #decode}) keeps every valid UTF-8 character as it is, except:
 * <ul>
 *   <li>a backslash is written {@code \\};
 *   <li>a byte that is not part of a well-formed UTF-8 sequence is written {@code \xHH} (two
 *       lowercase hex digits).
 * </ul>
 * Two different byte strings never get the same name form, and {@link #encode} gives the exact
 * bytes back: it reads {@code \\} as a backslash, {@code \xHH} as that byte, any other character
 * as its UTF-8 bytes. Names of valid UTF-8 without a backslash (nearly all names) are unchanged.
 *
 * <p>The <b>display form</b> ({@link #display}) is for terminals and log lines: the name form with
 * every character that is not {@linkplain #isPrintable printable} (control characters such as
 * ESC, 0x1c, line and paragraph separators, format characters, spaces other than U+0020) also
 * written as its UTF-8 bytes in {@code \xHH}. It is in the same grammar, so {@link #encode} of
 * the display form gives the same bytes as {@code encode} of the name form.
 */
public final class NameCodec {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private NameCodec() {}

  /** The name form of {@code bytes} (all of them; a NUL is a byte like any other here). */
  public static String decode(byte[] bytes) {
    return decode(bytes, 0, bytes.length);
  }

  /** The name form of {@code length} bytes of {@code bytes} from {@code offset}. */
  public static String decode(byte[] bytes, int offset, int length) {
    StringBuilder out = new StringBuilder(length + 8);
    int end = offset + length;
    int i = offset;
    while (i < end) {
      int b = bytes[i] & 0xff;
      int n = sequenceLength(bytes, i, end);
      if (n == 0) {
        escapeByte(out, b);
        i++;
      } else if (n == 1) {
        if (b == '\\') {
          out.append("\\\\");
        } else {
          out.append((char) b);
        }
        i++;
      } else {
        out.appendCodePoint(codePoint(bytes, i, n));
        i += n;
      }
    }
    return out.toString();
  }

  /**
   * The bytes a name form (or display form) stands for.
   *
   * @throws IllegalArgumentException if {@code name} is not in the grammar: a backslash not
   *     followed by a backslash or by {@code x} and two hex digits, or an unpaired surrogate
   */
  public static byte[] encode(String name) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(name.length() + 4);
    int i = 0;
    while (i < name.length()) {
      char c = name.charAt(i);
      if (c == '\\') {
        if (i + 1 < name.length() && name.charAt(i + 1) == '\\') {
          out.write('\\');
          i += 2;
          continue;
        }
        if (i + 3 < name.length() && name.charAt(i + 1) == 'x') {
          int hi = Character.digit(name.charAt(i + 2), 16);
          int lo = Character.digit(name.charAt(i + 3), 16);
          if (hi >= 0 && lo >= 0 && name.charAt(i + 2) < 0x80 && name.charAt(i + 3) < 0x80) {
            out.write(hi << 4 | lo);
            i += 4;
            continue;
          }
        }
        throw new IllegalArgumentException("encode name " + display(quoteBackslashes(name))
            + ": backslash at " + i + " is neither \\\\ nor \\xHH");
      }
      int cp = name.codePointAt(i);
      if (cp < 0x10000 && Character.isSurrogate((char) cp)) {
        throw new IllegalArgumentException("encode name: unpaired surrogate at " + i);
      }
      writeUtf8(out, cp);
      i += Character.charCount(cp);
    }
    return out.toByteArray();
  }

  /**
   * The display form of a name form: non-printable characters as {@code \xHH} of their UTF-8
   * bytes. Safe to print on a terminal or in a one-line log record: the result holds no control
   * character, no line break and no bidirectional override. Applied to any other text (a log
   * message) it escapes the same characters and leaves the rest, backslashes included, alone.
   */
  public static String display(String text) {
    StringBuilder out = null;
    int i = 0;
    while (i < text.length()) {
      int cp = text.codePointAt(i);
      int n = Character.charCount(cp);
      if (isPrintable(cp)) {
        if (out != null) {
          out.appendCodePoint(cp);
        }
      } else {
        if (out == null) {
          out = new StringBuilder(text.length() + 16).append(text, 0, i);
        }
        if (cp < 0x10000 && Character.isSurrogate((char) cp)) {
          out.append("\\x3f"); // an unpaired surrogate has no bytes: shown as '?', escaped
        } else {
          ByteArrayOutputStream b = new ByteArrayOutputStream(4);
          writeUtf8(b, cp);
          for (byte x : b.toByteArray()) {
            escapeByte(out, x & 0xff);
          }
        }
      }
      i += n;
    }
    return out == null ? text : out.toString();
  }

  /**
   * Whether a code point is shown as it is in the display form: not a control character (C0, DEL,
   * C1), not a format character (bidirectional overrides, zero-width joiners, U+FEFF), not a line
   * or paragraph separator, not a space other than U+0020, not a surrogate, private-use or
   * unassigned code point.
   */
  public static boolean isPrintable(int codePoint) {
    if (codePoint == ' ') {
      return true;
    }
    switch (Character.getType(codePoint)) {
      case Character.CONTROL:
      case Character.FORMAT:
      case Character.LINE_SEPARATOR:
      case Character.PARAGRAPH_SEPARATOR:
      case Character.SPACE_SEPARATOR:
      case Character.SURROGATE:
      case Character.PRIVATE_USE:
      case Character.UNASSIGNED:
        return false;
      default:
        return true;
    }
  }

  /**
   * The length of the well-formed UTF-8 sequence (Unicode table 3-7: no overlong forms, no
   * surrogates, nothing above U+10FFFF) starting at {@code i}, or 0 if the byte there starts none.
   */
  private static int sequenceLength(byte[] b, int i, int end) {
    int b0 = b[i] & 0xff;
    if (b0 < 0x80) {
      return 1;
    }
    int n;
    int lo = 0x80;
    int hi = 0xbf;
    if (b0 >= 0xc2 && b0 <= 0xdf) {
      n = 2;
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
      n = 3;
      if (b0 == 0xe0) {
        lo = 0xa0;
      } else if (b0 == 0xed) {
        hi = 0x9f;
      }
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      n = 4;
      if (b0 == 0xf0) {
        lo = 0x90;
      } else if (b0 == 0xf4) {
        hi = 0x8f;
      }
    } else {
      return 0;
    }
    if (i + n > end) {
      return 0;
    }
    int b1 = b[i + 1] & 0xff;
    if (b1 < lo || b1 > hi) {
      return 0;
    }
    for (int k = 2; k < n; k++) {
      int bk = b[i + k] & 0xff;
      if (bk < 0x80 || bk > 0xbf) {
        return 0;
      }
    }
    return n;
  }

  private static int codePoint(byte[] b, int i, int n) {
    int cp = b[i] & (0xff >> (n + 1));
    for (int k = 1; k < n; k++) {
      cp = cp << 6 | (b[i + k] & 0x3f);
    }
    return cp;
  }

  private static void writeUtf8(ByteArrayOutputStream out, int cp) {
    if (cp < 0x80) {
      out.write(cp);
    } else if (cp < 0x800) {
      out.write(0xc0 | cp >> 6);
      out.write(0x80 | cp & 0x3f);
    } else if (cp < 0x10000) {
      out.write(0xe0 | cp >> 12);
      out.write(0x80 | cp >> 6 & 0x3f);
      out.write(0x80 | cp & 0x3f);
    } else {
      out.write(0xf0 | cp >> 18);
      out.write(0x80 | cp >> 12 & 0x3f);
      out.write(0x80 | cp >> 6 & 0x3f);
      out.write(0x80 | cp & 0x3f);
    }
  }

  private static void escapeByte(StringBuilder out, int b) {
    out.append('\\').append('x').append(HEX[b >> 4]).append(HEX[b & 0xf]);
  }

  /** For error messages about text that is not a name form: every backslash doubled. */
  private static String quoteBackslashes(String s) {
    return s.replace("\\", "\\\\");
  }
}

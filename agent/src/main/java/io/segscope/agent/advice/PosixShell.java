package io.segscope.agent.advice;

import io.segscope.host.names.NameCodec;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Quotes arguments for a POSIX shell ({@code sh -c}) so that the shell hands the program exactly
 * the original bytes, whatever they are (any byte but NUL). Only POSIX constructs are used:
 * <ul>
 *   <li>a word of only {@code A-Z a-z 0-9 _ . / : = + , @ % -} stays bare;
 *   <li>printable UTF-8 text (and newline) goes inside single quotes, where the shell interprets
 *       nothing; a single quote itself is {@code \'} outside them;
 *   <li>every other byte (control characters such as ESC, bytes that are not valid UTF-8, line
 *       separators, format characters) is produced by {@code "$(printf '\ooo')"}, octal escapes
 *       that POSIX printf turns into those bytes, so the command text itself holds no control
 *       character and stays readable in a terminal.
 * </ul>
 * Nothing of an argument is ever outside quotes unless it is in the bare set above: no {@code $},
 * backquote, {@code ;}, glob or {@code ~} of a name can reach the shell's parser.
 */
public final class PosixShell {
  private PosixShell() {}

  /** {@code argv} as one command line: each argument quoted, separated by spaces. */
  public static String command(List<byte[]> argv) {
    StringBuilder b = new StringBuilder();
    for (byte[] arg : argv) {
      if (b.length() > 0) {
        b.append(' ');
      }
      b.append(quote(arg));
    }
    return b.toString();
  }

  /** One argument as one shell word that expands to exactly {@code arg}. */
  public static String quote(byte[] arg) {
    if (arg.length == 0) {
      return "''";
    }
    boolean bare = true;
    for (byte x : arg) {
      bare &= isBare(x);
    }
    if (bare) {
      return new String(arg, StandardCharsets.US_ASCII);
    }
    for (byte x : arg) {
      if (x == 0) {
        throw new IllegalArgumentException("quote argument: it holds a NUL byte, which no argument can carry");
      }
    }
    StringBuilder word = new StringBuilder();
    StringBuilder text = new StringBuilder(); // pending printable text
    ByteArrayOutputStream raw = new ByteArrayOutputStream(); // pending bytes for printf
    String form = NameCodec.decode(arg);
    int i = 0;
    while (i < form.length()) {
      char c = form.charAt(i);
      if (c == '\\') { // the name form's escapes: \\ is a backslash, \xHH a byte outside UTF-8
        if (form.charAt(i + 1) == '\\') {
          flushRaw(word, raw);
          text.append('\\');
          i += 2;
        } else {
          flushText(word, text);
          raw.write(Integer.parseInt(form.substring(i + 2, i + 4), 16));
          i += 4;
        }
        continue;
      }
      int cp = form.codePointAt(i);
      int n = Character.charCount(cp);
      if (cp == '\n' || NameCodec.isPrintable(cp)) {
        flushRaw(word, raw);
        text.appendCodePoint(cp); // a newline inside single quotes is itself (printf's would be stripped at the end)
      } else {
        flushText(word, text);
        byte[] utf8 = form.substring(i, i + n).getBytes(StandardCharsets.UTF_8);
        raw.write(utf8, 0, utf8.length);
      }
      i += n;
    }
    flushRaw(word, raw);
    flushText(word, text);
    return word.toString();
  }

  private static boolean isBare(byte x) {
    return (x >= 'a' && x <= 'z') || (x >= 'A' && x <= 'Z') || (x >= '0' && x <= '9')
        || "_./:=+,@%-".indexOf(x) >= 0;
  }

  private static void flushText(StringBuilder word, StringBuilder text) {
    if (text.length() == 0) {
      return;
    }
    String[] pieces = text.toString().split("'", -1);
    for (int k = 0; k < pieces.length; k++) {
      if (k > 0) {
        word.append("\\'");
      }
      if (!pieces[k].isEmpty()) {
        word.append('\'').append(pieces[k]).append('\'');
      }
    }
    text.setLength(0);
  }

  private static void flushRaw(StringBuilder word, ByteArrayOutputStream raw) {
    if (raw.size() == 0) {
      return;
    }
    word.append("\"$(printf '");
    for (byte x : raw.toByteArray()) {
      int v = x & 0xff;
      word.append('\\').append((char) ('0' + (v >> 6))).append((char) ('0' + (v >> 3 & 7)))
          .append((char) ('0' + (v & 7)));
    }
    word.append("')\"");
    raw.reset();
  }
}

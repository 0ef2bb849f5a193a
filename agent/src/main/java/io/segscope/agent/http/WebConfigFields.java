package io.segscope.agent.http;

import io.segscope.agent.config.ConfigFile;
import io.segscope.agent.http.WebConfig.WebConfigException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reading the values of a {@link WebConfig} file: every value is checked for its type, every key
 * against the known ones, and each failure is a {@link WebConfigException} naming the field (keys
 * shown with their control characters escaped, so a message stays one line).
 */
final class WebConfigFields {
  private WebConfigFields() {}

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object o, String where) throws WebConfigException {
    if (o == null) {
      return Map.of();
    }
    if (!(o instanceof Map<?, ?> m)) {
      throw new WebConfigException(where + ": expected a mapping, got " + kind(o));
    }
    Map<String, Object> out = new LinkedHashMap<>();
    for (Map.Entry<?, ?> e : m.entrySet()) {
      Object k = e.getKey();
      if (k == null || k instanceof Map || k instanceof List) {
        throw new WebConfigException(where + ": keys must be strings, got " + kind(k));
      }
      out.put(String.valueOf(k), e.getValue());
    }
    return out;
  }

  static void known(Map<String, Object> m, Set<String> fields, String prefix) throws WebConfigException {
    for (String k : m.keySet()) {
      if (!fields.contains(k)) {
        throw new WebConfigException(prefix + printable(k) + ": unknown field (known: "
            + String.join(", ", new TreeSet<>(fields)) + ")");
      }
    }
  }

  static String str(Map<String, Object> m, String key, String prefix) throws WebConfigException {
    Object v = m.get(key);
    return v == null ? "" : scalar(v, prefix + key);
  }

  static String scalar(Object v, String where) throws WebConfigException {
    if (v instanceof String s) {
      return s;
    }
    if (v instanceof Number || v instanceof Boolean) {
      return String.valueOf(v);
    }
    throw new WebConfigException(where + ": expected a string, got " + kind(v));
  }

  static List<String> strings(Map<String, Object> m, String key, String prefix) throws WebConfigException {
    Object v = m.get(key);
    if (v == null) {
      return List.of();
    }
    if (!(v instanceof List<?> l)) {
      throw new WebConfigException(prefix + key + ": expected a list, got " + kind(v));
    }
    List<String> out = new ArrayList<>();
    for (Object x : l) {
      out.add(scalar(x, prefix + key + "[]"));
    }
    return out;
  }

  static boolean bool(Map<String, Object> m, String key, String prefix, boolean dflt)
      throws WebConfigException {
    Object v = m.get(key);
    if (v == null) {
      return dflt;
    }
    if (!(v instanceof Boolean b)) {
      throw new WebConfigException(prefix + key + ": expected true or false, got " + kind(v));
    }
    return b;
  }

  static String kind(Object o) {
    if (o == null) {
      return "nothing";
    }
    if (o instanceof Map) {
      return "a mapping";
    }
    if (o instanceof List) {
      return "a list";
    }
    return "'" + printable(String.valueOf(o)) + "'";
  }

  static byte[] read(Path file, String what) throws WebConfigException {
    try {
      return ConfigFile.read(file, WebConfig.MAX_FILE_BYTES);
    } catch (ConfigFile.RefusedException e) {
      throw new WebConfigException(what + ": " + file + ": " + e.reason());
    } catch (IOException e) {
      throw new WebConfigException(what + ": read " + file + ": " + oneLine(String.valueOf(e.getMessage())));
    }
  }

  static String utf8(byte[] bytes, String what) throws WebConfigException {
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw new WebConfigException(what + ": not UTF-8 text");
    }
  }

  static String oneLine(String s) {
    return s == null ? "" : s.replaceAll("\\s+", " ").strip();
  }

  /** Control characters of a key are shown escaped, so the one-line message stays one line. */
  static String printable(String s) {
    StringBuilder b = new StringBuilder();
    s.codePoints().forEach(c -> {
      if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == 0x2028 || c == 0x2029) {
        b.append(String.format(Locale.ROOT, "\\u%04x", c));
      } else {
        b.appendCodePoint(c);
      }
    });
    return b.toString();
  }
}

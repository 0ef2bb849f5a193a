package io.segscope.probes.wire;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Just enough of a C header for the map contract: integer {@code #define}s and {@code struct}s of
 * u8/u16/u32/u64/char fields and arrays (dimensions as numbers or macros), laid out with C's natural
 * alignment as clang lays them out for BPF. Written for {@code common.h}; anything else in the text
 * (functions, macros with arguments, tables) is ignored.
 */
final class CHeader {
  /** One struct member: its C name, element size, element count (1 for a scalar) and byte offset. */
  record Field(String name, String dimension, int elementSize, int count, int offset) {
    /** As the Java wire classes list it: {@code name}, or {@code name[DIM]} for an array. */
    String spelling() {
      return dimension.isEmpty() ? name : name + "[" + dimension + "]";
    }
  }

  record Struct(String name, List<Field> fields, int size) {
    Field field(String n) {
      return fields.stream().filter(f -> f.name().equals(n)).findFirst()
          .orElseThrow(() -> new AssertionError("struct " + name + " has no field " + n));
    }
  }

  private static final Pattern DEFINE = Pattern.compile("(?m)^\\s*#define\\s+([A-Z_][A-Z0-9_]*)\\s+(\\d+)\\s*$");
  private static final Pattern STRUCT = Pattern.compile("struct\\s+([a-z_][a-z0-9_]*)\\s*\\{([^}]*)\\}\\s*;");
  private static final Pattern MEMBER =
      Pattern.compile("^(u8|u16|u32|u64|char)\\s+([a-z_][a-z0-9_]*)\\s*(?:\\[\\s*([A-Za-z0-9_]+)\\s*\\])?$");
  private static final Map<String, Integer> SIZES = Map.of("u8", 1, "char", 1, "u16", 2, "u32", 4, "u64", 8);

  private final Map<String, Long> defines;
  /** Struct bodies by name: laid out when asked for (the header's internal structs hold pointers). */
  private final Map<String, String> structs;

  private CHeader(Map<String, Long> defines, Map<String, String> structs) {
    this.defines = defines;
    this.structs = structs;
  }

  /**
   * Parses {@code text}; {@code extra} supplies macros defined elsewhere (generated parts or -D flags).
   *
   * Struct layouts are computed by {@link #struct}.
   */
  static CHeader parse(String text, Map<String, Long> extra) {
    String code = text.replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("//[^\n]*", " ");
    Map<String, Long> defines = new LinkedHashMap<>(extra);
    Matcher d = DEFINE.matcher(code);
    while (d.find()) {
      defines.put(d.group(1), Long.parseLong(d.group(2)));
    }
    Map<String, String> structs = new LinkedHashMap<>();
    Matcher s = STRUCT.matcher(code);
    while (s.find()) {
      structs.put(s.group(1), s.group(2));
    }
    return new CHeader(defines, structs);
  }

  private static Struct layout(String name, String body, Map<String, Long> defines) {
    List<Field> fields = new ArrayList<>();
    int offset = 0;
    int align = 1;
    for (String raw : body.split(";")) {
      String m = raw.strip().replaceAll("\\s+", " ");
      if (m.isEmpty()) {
        continue;
      }
      Matcher f = MEMBER.matcher(m);
      if (!f.matches()) {
        throw new IllegalArgumentException("parse struct " + name + ": member '" + m + "' is not a u8/u16/u32/u64/char "
            + "scalar or array");
      }
      int size = SIZES.get(f.group(1));
      String dim = f.group(3) == null ? "" : f.group(3);
      int count;
      if (dim.isEmpty()) {
        count = 1;
      } else if (dim.matches("\\d+")) {
        count = Integer.parseInt(dim);
      } else if (defines.containsKey(dim)) {
        count = Math.toIntExact(defines.get(dim));
      } else {
        throw new IllegalArgumentException("parse struct " + name + ": dimension " + dim + " of " + f.group(2)
            + " is not defined");
      }
      offset = (offset + size - 1) / size * size;
      fields.add(new Field(f.group(2), dim, size, count, offset));
      offset += size * count;
      align = Math.max(align, size);
    }
    return new Struct(name, List.copyOf(fields), (offset + align - 1) / align * align);
  }

  Optional<Long> define(String name) {
    return Optional.ofNullable(defines.get(name));
  }

  /** Every macro whose name starts with {@code prefix}, by name. */
  Map<String, Long> definesStartingWith(String prefix) {
    Map<String, Long> out = new LinkedHashMap<>();
    defines.forEach((k, v) -> {
      if (k.startsWith(prefix)) {
        out.put(k, v);
      }
    });
    return out;
  }

  /**
   * The layout of struct {@code name}.
   *
   * @throws IllegalArgumentException for a member this parser does not understand
   */
  Struct struct(String name) {
    String body = structs.get(name);
    if (body == null) {
      throw new AssertionError("common.h has no struct " + name + " (has " + structs.keySet() + ")");
    }
    return layout(name, body, defines);
  }
}

package io.segscope.probes.btf;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Turns named BTF paths into byte offsets for C preprocessor defines, e.g.
 * {@code {"SKB_LEN_OFF": "sk_buff.len"}} → {@code {"SKB_LEN_OFF": 112}} →
 * {@code "#define SKB_LEN_OFF 112\n"}.
 */
public final class BtfOffsets {
  private static final Pattern MACRO = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private BtfOffsets() {
  }

  /**
   * Byte offsets of each path, keyed by macro name, in the iteration order of the input.
   *
   * @throws BtfException             when a path does not resolve, or names a bitfield (a byte
   *                                  offset alone cannot read a bitfield: use {@link Btf#field})
   * @throws IllegalArgumentException when a macro name is not a C identifier
   */
  public static Map<String, Long> byteOffsets(Btf btf, Map<String, String> macroToPath) throws BtfException {
    Objects.requireNonNull(btf, "btf");
    Map<String, Long> offsets = new LinkedHashMap<>();
    for (Map.Entry<String, String> entry : macroToPath.entrySet()) {
      String macro = entry.getKey();
      if (macro == null || !MACRO.matcher(macro).matches()) {
        throw new IllegalArgumentException("define " + macro + ": not a C identifier");
      }
      FieldOffset field = btf.field(entry.getValue());
      if (field.isBitfield()) {
        throw BtfException.resolve(field.path(), "is a " + field.bitfieldSize()
            + "-bit bitfield at bit " + field.bitOffset() + "; a byte offset cannot address it");
      }
      offsets.put(macro, field.byteOffset());
    }
    return offsets;
  }

  /** One {@code #define NAME value} line per entry, in iteration order. */
  public static String cDefines(Map<String, Long> values) {
    StringBuilder out = new StringBuilder();
    for (Map.Entry<String, Long> entry : values.entrySet()) {
      String macro = entry.getKey();
      if (macro == null || !MACRO.matcher(macro).matches()) {
        throw new IllegalArgumentException("define " + macro + ": not a C identifier");
      }
      out.append("#define ").append(macro).append(' ').append(Objects.requireNonNull(entry.getValue(), macro))
          .append('\n');
    }
    return out.toString();
  }
}

package io.segscope.vocabulary;

/**
 * One word of a vocabulary the BPF programs and the metrics share: the code the programs store (a
 * {@code <PREFIX>_<NAME>} macro of {@code bpf/common.h}) and the label value the metrics export (part of
 * the metric contract). Implemented by enums only.
 *
 * <p>The code is the constant's position in its enum (the C macros count 0, 1, 2, ... in the same
 * order; the probes' ContractTest fails on any difference, so a reordered constant cannot go unnoticed).
 * The label is the constant's name in lower case unless the enum says otherwise.
 */
public interface Term {
  /** The value the programs use: the constant's position ({@link Enum#ordinal()}). */
  int ordinal();

  /** The enum constant's name ({@link Enum#name()}). */
  String name();

  /** The value the programs use ({@code <PREFIX>_<NAME>} in {@code bpf/common.h}). */
  default int code() {
    return ordinal();
  }

  /** The metric label value: the name in lower case, unless the enum overrides it. */
  default String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /** The prefix of this vocabulary's C macros, e.g. {@code CAUSE_}. */
  String macroPrefix();

  /** The C macro naming this value in {@code bpf/common.h}. */
  default String macro() {
    return macroPrefix() + name();
  }

  /** The term of {@code type} whose code is {@code code}. */
  static <T extends Enum<T> & Term> T ofCode(Class<T> type, int code) {
    for (T t : type.getEnumConstants()) {
      if (t.code() == code) {
        return t;
      }
    }
    throw new IllegalArgumentException(type.getSimpleName() + " code " + code + " is not defined");
  }
}

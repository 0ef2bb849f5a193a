package io.segscope.exporters.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/** Validation helpers for the snapshot records: every message names the record, the field and the rule. */
final class Checks {
  private Checks() {}

  static <T> T notNull(T value, String what) {
    if (value == null) {
      throw new IllegalArgumentException(what + " must not be null");
    }
    return value;
  }

  static String notBlank(String value, String what) {
    notNull(value, what);
    if (value.isBlank()) {
      throw new IllegalArgumentException(what + " must not be blank");
    }
    return value;
  }

  static String notEmpty(String value, String what) {
    notNull(value, what);
    if (value.isEmpty()) {
      throw new IllegalArgumentException(what + " must not be empty");
    }
    return value;
  }

  static long notNegative(long value, String what) {
    if (value < 0) {
      throw new IllegalArgumentException(what + " must not be negative, got " + value);
    }
    return value;
  }

  /** The classes of {@link List#of}/{@link List#copyOf} lists: immutable, and never holding null. */
  private static final Set<Class<?>> IMMUTABLE_LISTS = Set.copyOf(List.of(
      List.of().getClass(), List.of(1).getClass(), List.of(1, 2, 3).getClass())); // List.of() and 3+ share one

  /**
   * {@link #immutableList}, except that a {@link List#copyOf} list (already immutable and free of
   * null) is taken as it is: for lists that stay the same from one snapshot to the next and are shared.
   */
  static <T> List<T> sharedList(List<T> list, String what) {
    notNull(list, what);
    return IMMUTABLE_LISTS.contains(list.getClass()) ? list : immutableList(list, what);
  }

  /** An unmodifiable copy of {@code list}, rejecting a null list or a null element with a message. */
  static <T> List<T> immutableList(List<T> list, String what) {
    notNull(list, what);
    List<T> copy = new ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      copy.add(notNull(list.get(i), what + "[" + i + "]"));
    }
    return Collections.unmodifiableList(copy);
  }
}

package io.segscope.agent.inventory.model;

import java.util.concurrent.ConcurrentHashMap;

/**
 * One shared instance per distinct value, for at most {@code limit} distinct values: beyond that a
 * value is used as it is, so input that keeps changing (tenants toggling features, a kernel sending
 * nonsense) cannot grow the table without bound. Thread-safe.
 */
final class Interner<T> {
  private final int limit;
  private final ConcurrentHashMap<T, T> table = new ConcurrentHashMap<>();

  Interner(int limit) {
    this.limit = limit;
  }

  /** The shared instance equal to {@code value} ({@code value} itself if it is the first, or the table is full). */
  T of(T value) {
    T known = table.get(value);
    if (known != null) {
      return known;
    }
    if (table.size() >= limit) {
      return value;
    }
    known = table.putIfAbsent(value, value);
    return known == null ? value : known;
  }

  int size() {
    return table.size();
  }
}

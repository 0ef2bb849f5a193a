package io.segscope.probes.btf;

import java.util.HashMap;
import java.util.Map;

/**
 * Name lookups over a {@link TypeTable}, each index built on first use in one pass over the types,
 * so parsing never pays for names nobody asks for. When a name occurs more than once (possible in
 * BTF merged from several compilation units), the lowest type id wins. Thread-safe.
 */
final class NameIndex {
  private final TypeTable types;
  private volatile Aggregates aggregates;
  private volatile Map<String, Long> enumerators;
  private volatile Map<String, Integer> functions;

  /** Struct/union names and typedef names, to their first type id. */
  private record Aggregates(Map<String, Integer> composites, Map<String, Integer> typedefs) {
  }

  NameIndex(TypeTable types) {
    this.types = types;
  }

  /** Type id of the first STRUCT or UNION with this name, or 0. */
  int composite(String name) {
    return aggregates().composites().getOrDefault(name, 0);
  }

  /** Type id of the first TYPEDEF with this name, or 0. */
  int typedef(String name) {
    return aggregates().typedefs().getOrDefault(name, 0);
  }

  /** True when a FWD (declaration without layout) of this name exists. */
  boolean isForwardDeclared(String name) {
    for (int id = 1; id <= types.count(); id++) {
      if (types.kind(id) == BtfKind.FWD && types.string(types.nameOff(id)).equals(name)) {
        return true;
      }
    }
    return false;
  }

  /** Value of the first enumerator (ENUM or ENUM64) with this name, or null. */
  Long enumerator(String name) {
    Map<String, Long> index = enumerators;
    if (index == null) {
      synchronized (this) {
        index = enumerators;
        if (index == null) {
          index = buildEnumerators();
          enumerators = index;
        }
      }
    }
    return index.get(name);
  }

  boolean function(String name) {
    return functionId(name) != 0;
  }

  /** Type id of the first FUNC with this name, or 0. */
  int functionId(String name) {
    Map<String, Integer> index = functions;
    if (index == null) {
      synchronized (this) {
        index = functions;
        if (index == null) {
          index = buildFunctions();
          functions = index;
        }
      }
    }
    return index.getOrDefault(name, 0);
  }

  private Aggregates aggregates() {
    Aggregates index = aggregates;
    if (index == null) {
      synchronized (this) {
        index = aggregates;
        if (index == null) {
          index = buildAggregates();
          aggregates = index;
        }
      }
    }
    return index;
  }

  private Aggregates buildAggregates() {
    Map<String, Integer> composites = new HashMap<>();
    Map<String, Integer> typedefs = new HashMap<>();
    for (int id = 1; id <= types.count(); id++) {
      BtfKind kind = types.kind(id);
      int nameOff = types.nameOff(id);
      if (types.isAnonymous(nameOff)) {
        continue;
      }
      if (kind.isComposite()) {
        composites.putIfAbsent(types.string(nameOff), id);
      } else if (kind == BtfKind.TYPEDEF) {
        typedefs.putIfAbsent(types.string(nameOff), id);
      }
    }
    return new Aggregates(Map.copyOf(composites), Map.copyOf(typedefs));
  }

  private Map<String, Long> buildEnumerators() {
    Map<String, Long> index = new HashMap<>();
    for (int id = 1; id <= types.count(); id++) {
      BtfKind kind = types.kind(id);
      if (kind != BtfKind.ENUM && kind != BtfKind.ENUM64) {
        continue;
      }
      int vlen = types.vlen(id);
      for (int i = 0; i < vlen; i++) {
        int nameOff = types.enumNameOff(id, i);
        if (!types.isAnonymous(nameOff)) {
          index.putIfAbsent(types.string(nameOff), types.enumValue(id, i));
        }
      }
    }
    return Map.copyOf(index);
  }

  private Map<String, Integer> buildFunctions() {
    Map<String, Integer> index = new HashMap<>();
    for (int id = 1; id <= types.count(); id++) {
      if (types.kind(id) == BtfKind.FUNC) {
        index.putIfAbsent(types.string(types.nameOff(id)), id);
      }
    }
    return Map.copyOf(index);
  }
}

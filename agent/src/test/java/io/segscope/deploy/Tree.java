package io.segscope.deploy;

import java.util.List;
import java.util.Map;

/**
 * Typed access into parsed YAML (maps, lists, scalars) that names the path when something is
 * missing or of the wrong type, so a failing manifest test says where.
 */
final class Tree {
  private Tree() {}

  /** The value at a dotted path ({@code spec.template.spec}); fails naming the path if absent. */
  static Object at(Object node, String path) {
    Object cur = node;
    StringBuilder walked = new StringBuilder();
    for (String key : path.split("\\.")) {
      if (walked.length() > 0) {
        walked.append('.');
      }
      walked.append(key);
      if (!(cur instanceof Map<?, ?> m) || !m.containsKey(key)) {
        throw new AssertionError("missing " + walked + " (looking for " + path + ")");
      }
      cur = m.get(key);
    }
    return cur;
  }

  /** The value at the path, or null when any part of it is absent. */
  static Object find(Object node, String path) {
    Object cur = node;
    for (String key : path.split("\\.")) {
      if (!(cur instanceof Map<?, ?> m) || !m.containsKey(key)) {
        return null;
      }
      cur = m.get(key);
    }
    return cur;
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object node, String path) {
    Object v = at(node, path);
    if (!(v instanceof Map)) {
      throw new AssertionError(path + " is not a mapping: " + v);
    }
    return (Map<String, Object>) v;
  }

  @SuppressWarnings("unchecked")
  static List<Object> list(Object node, String path) {
    Object v = at(node, path);
    if (!(v instanceof List)) {
      throw new AssertionError(path + " is not a list: " + v);
    }
    return (List<Object>) v;
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> maps(Object node, String path) {
    List<Object> l = list(node, path);
    for (Object o : l) {
      if (!(o instanceof Map)) {
        throw new AssertionError(path + " holds a non-mapping item: " + o);
      }
    }
    return (List<Map<String, Object>>) (List<?>) l;
  }

  static String str(Object node, String path) {
    Object v = at(node, path);
    if (v == null) {
      throw new AssertionError(path + " is null");
    }
    return String.valueOf(v);
  }
}

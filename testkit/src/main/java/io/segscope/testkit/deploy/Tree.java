package io.segscope.testkit.deploy;

import java.util.List;
import java.util.Map;

/**
 * Typed access into parsed YAML (maps, lists, scalars) that names the path when something is
 * missing or of the wrong type, so a failing manifest test says where.
 */
public final class Tree {
  private Tree() {}

  /** The value at a dotted path ({@code spec.template.spec}); fails naming the path if absent. */
  public static Object at(Object node, String path) {
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
  public static Object find(Object node, String path) {
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
  public static Map<String, Object> map(Object node, String path) {
    Object v = at(node, path);
    if (!(v instanceof Map)) {
      throw new AssertionError(path + " is not a mapping: " + v);
    }
    return (Map<String, Object>) v;
  }

  @SuppressWarnings("unchecked")
  public static List<Object> list(Object node, String path) {
    Object v = at(node, path);
    if (!(v instanceof List)) {
      throw new AssertionError(path + " is not a list: " + v);
    }
    return (List<Object>) v;
  }

  @SuppressWarnings("unchecked")
  public static List<Map<String, Object>> maps(Object node, String path) {
    List<Object> l = list(node, path);
    for (Object o : l) {
      if (!(o instanceof Map)) {
        throw new AssertionError(path + " holds a non-mapping item: " + o);
      }
    }
    return (List<Map<String, Object>>) (List<?>) l;
  }

  public static String str(Object node, String path) {
    Object v = at(node, path);
    if (v == null) {
      throw new AssertionError(path + " is null");
    }
    return String.valueOf(v);
  }
}

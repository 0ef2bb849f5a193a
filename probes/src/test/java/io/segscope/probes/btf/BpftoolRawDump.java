package io.segscope.probes.btf;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An independent reference for the reader: the text of {@code bpftool btf dump file <f> format raw},
 * parsed line by line, with its own (deliberately naive) member-path walk. Shares no code with the
 * reader beyond {@link BtfFixtureTest.Expected}.
 */
final class BpftoolRawDump {
  private static final Pattern TYPE_LINE = Pattern.compile("^\\[(\\d+)] (\\w+) '([^']*)'(.*)$");
  private static final Pattern MEMBER_LINE = Pattern.compile("^\\t'([^']*)' (.*)$");
  private static final Pattern ATTR = Pattern.compile("(\\w+)=([^ ,]+)");
  private static final Set<String> MODIFIERS = Set.of("TYPEDEF", "CONST", "VOLATILE", "RESTRICT", "TYPE_TAG");

  record Member(String name, Map<String, String> attrs) {
    long attr(String key) {
      String v = attrs.get(key);
      return v == null ? 0 : Long.parseLong(v);
    }
  }

  record Type(int id, String kind, String name, Map<String, String> attrs, List<Member> members) {
    long attr(String key) {
      return Long.parseLong(attrs.get(key));
    }

    boolean anonymous() {
      return name.equals("(anon)");
    }
  }

  private final Map<Integer, Type> types = new HashMap<>();
  private final Map<String, Integer> composites = new LinkedHashMap<>();
  private final Map<String, Integer> typedefs = new HashMap<>();
  private final Map<String, Long> enumerators = new LinkedHashMap<>();
  private final Set<String> functions = new HashSet<>();
  private int lastId;

  /** Runs bpftool on file and parses its raw dump. */
  static BpftoolRawDump of(String bpftool, Path file) throws IOException, InterruptedException {
    Path stderr = Files.createTempFile("bpftool", ".err");
    try {
      Process process = new ProcessBuilder(bpftool, "btf", "dump", "file", file.toString(), "format", "raw")
          .redirectError(stderr.toFile())
          .start();
      BpftoolRawDump dump = new BpftoolRawDump();
      try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
          StandardCharsets.UTF_8))) {
        dump.read(in);
      }
      int rc = process.waitFor();
      if (rc != 0) {
        throw new IOException("bpftool btf dump file " + file + " exited " + rc + ": "
            + Files.readString(stderr));
      }
      return dump;
    } finally {
      Files.deleteIfExists(stderr);
    }
  }

  private void read(BufferedReader in) throws IOException {
    Type current = null;
    String line;
    while ((line = in.readLine()) != null) {
      Matcher t = TYPE_LINE.matcher(line);
      if (t.matches()) {
        current = new Type(Integer.parseInt(t.group(1)), t.group(2), t.group(3), attrs(t.group(4)),
            new ArrayList<>());
        types.put(current.id(), current);
        lastId = Math.max(lastId, current.id());
        index(current);
        continue;
      }
      Matcher m = MEMBER_LINE.matcher(line);
      if (m.matches() && current != null) {
        Member member = new Member(m.group(1), attrs(m.group(2)));
        current.members().add(member);
        if (current.kind().startsWith("ENUM")) {
          enumerators.putIfAbsent(member.name(), enumValue(member.attrs().get("val")));
        }
      }
    }
  }

  private void index(Type type) {
    if (type.anonymous()) {
      return;
    }
    switch (type.kind()) {
      case "STRUCT", "UNION" -> composites.putIfAbsent(type.name(), type.id());
      case "TYPEDEF" -> typedefs.putIfAbsent(type.name(), type.id());
      case "FUNC" -> functions.add(type.name());
      default -> {
      }
    }
  }

  private static Map<String, String> attrs(String text) {
    Map<String, String> attrs = new HashMap<>();
    Matcher a = ATTR.matcher(text);
    while (a.find()) {
      attrs.put(a.group(1), a.group(2));
    }
    return attrs;
  }

  /** "16", "-1", "78187493530ULL", "-1LL". */
  private static long enumValue(String text) {
    if (text.endsWith("ULL")) {
      return Long.parseUnsignedLong(text.substring(0, text.length() - 3));
    }
    if (text.endsWith("LL")) {
      return Long.parseLong(text.substring(0, text.length() - 2));
    }
    return Long.parseLong(text);
  }

  int lastId() {
    return lastId;
  }

  Map<String, Long> enumerators() {
    return enumerators;
  }

  Set<String> functions() {
    return functions;
  }

  /** First STRUCT/UNION id for every name. */
  Map<String, Integer> composites() {
    return composites;
  }

  Type type(int id) {
    return types.get(id);
  }

  /** Size of the struct/union (or typedef of one) called name, or null. */
  Long structSize(String name) {
    Integer id = compositeId(name);
    return id == null ? null : types.get(id).attr("size");
  }

  /** Named members of a composite, including those reached through anonymous members. */
  List<String> memberNames(int id) {
    List<String> names = new ArrayList<>();
    for (Member m : types.get(id).members()) {
      if (!m.name().equals("(anon)")) {
        names.add(m.name());
      } else {
        Type inner = types.get(strip(Integer.parseInt(m.attrs().get("type_id"))));
        if (inner != null && (inner.kind().equals("STRUCT") || inner.kind().equals("UNION"))) {
          names.addAll(memberNames(inner.id()));
        }
      }
    }
    return names;
  }

  /** The offset bpftool's numbers give for path, or null when a segment is missing. */
  BtfFixtureTest.Expected resolve(String path) {
    String[] segments = path.split("\\.");
    Integer start = compositeId(segments[0]);
    if (start == null) {
      return null;
    }
    int type = start;
    long bits = 0;
    long bitfield = 0;
    for (int i = 1; i < segments.length; i++) {
      long[] found = find(strip(type), segments[i]);
      if (found == null) {
        return null;
      }
      bits += found[0];
      bitfield = found[1];
      type = (int) found[2];
    }
    return new BtfFixtureTest.Expected(path, bits, (int) bitfield, sizeOf(type));
  }

  private Integer compositeId(String name) {
    Integer id = composites.get(name);
    if (id == null && typedefs.containsKey(name)) {
      int target = strip(typedefs.get(name));
      Type t = types.get(target);
      if (t != null && (t.kind().equals("STRUCT") || t.kind().equals("UNION"))) {
        id = target;
      }
    }
    return id;
  }

  /** {bits_offset, bitfield_size, type_id} of member name in composite id, searching anonymous members. */
  private long[] find(int id, String name) {
    Type holder = types.get(id);
    if (holder == null || !(holder.kind().equals("STRUCT") || holder.kind().equals("UNION"))) {
      return null;
    }
    for (Member m : holder.members()) {
      long type = m.attr("type_id");
      if (m.name().equals(name)) {
        return new long[] {m.attr("bits_offset"), m.attr("bitfield_size"), type};
      }
      if (m.name().equals("(anon)")) {
        long[] inner = find(strip((int) type), name);
        if (inner != null) {
          return new long[] {m.attr("bits_offset") + inner[0], inner[1], inner[2]};
        }
      }
    }
    return null;
  }

  private int strip(int id) {
    int current = id;
    while (current != 0 && MODIFIERS.contains(types.get(current).kind())) {
      current = Integer.parseInt(types.get(current).attrs().get("type_id"));
    }
    return current;
  }

  private long sizeOf(int id) {
    Type t = types.get(strip(id));
    if (t == null) {
      return 0;
    }
    return switch (t.kind()) {
      case "PTR" -> 8;
      case "ARRAY" -> t.attr("nr_elems") * sizeOf(Integer.parseInt(t.attrs().get("type_id")));
      default -> t.attr("size");
    };
  }
}

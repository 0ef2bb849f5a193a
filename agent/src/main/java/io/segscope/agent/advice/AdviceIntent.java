package io.segscope.agent.advice;

import io.segscope.agent.config.ConfigFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * What the operator said is intended: findings matching an {@link AcceptEntry} are still measured and
 * exported, with state {@code accepted}, and never logged or alerted as open. From
 * {@code --advice-accept} (repeatable) and the {@code accept} list of {@code --advice-config FILE}
 * (YAML, read once at start, like {@code --web.config.file}):
 *
 * <pre>
 * accept:
 *   - offload_disabled:*&#47;vxlan.calico            # the flag's form
 *   - rule: gso_size_mismatch                        # or a map; netns defaults to *
 *     netns: root
 *     device: eth*
 *     reason: gso_max_size capped on purpose (NIC bug)
 * </pre>
 *
 * Unknown fields, a bad rule or glob, an unreadable file, or more than {@link #MAX_ENTRIES} entries (flags
 * and file together) are errors (exit 2 at start).
 */
public final class AdviceIntent {
  /** Larger configuration files are refused. */
  static final int MAX_FILE_BYTES = 1 << 20;
  /** At most this many entries in all: each finding is matched against every entry on every read. */
  public static final int MAX_ENTRIES = 1000;
  private static final Set<String> TOP = Set.of("accept");
  private static final Set<String> ENTRY = Set.of("rule", "netns", "device", "reason");

  public static final AdviceIntent NONE = new AdviceIntent(List.of());

  private final List<AcceptEntry> entries;

  public AdviceIntent(List<AcceptEntry> entries) {
    this.entries = List.copyOf(entries);
  }

  public List<AcceptEntry> entries() {
    return entries;
  }

  /** The first entry that accepts {@code f}, if any. */
  public Optional<AcceptEntry> acceptedBy(Finding f, long rootNetns) {
    return entries.stream().filter(e -> e.accepts(f, rootNetns)).findFirst();
  }

  /** A configuration problem, with the reason. */
  public static final class IntentException extends Exception {
    public IntentException(String message) {
      super(message);
    }
  }

  /**
   * The intent of {@code --advice-accept} ({@code flags}) and {@code --advice-config} ({@code file}, may be
   * null): the first bad entry, or more than {@link #MAX_ENTRIES} entries in all, throws with the reason.
   */
  public static AdviceIntent of(List<String> flags, Path file) throws IntentException {
    List<AcceptEntry> entries = new ArrayList<>(fromFlags(flags));
    if (file != null) {
      entries.addAll(load(file));
    }
    if (entries.size() > MAX_ENTRIES) {
      throw new IntentException(entries.size() + " accepted-finding entries in all (--advice-accept and "
          + "--advice-config " + file + "): the bound is " + MAX_ENTRIES);
    }
    return new AdviceIntent(entries);
  }

  /** The flags' entries; the first bad one, or more than {@link #MAX_ENTRIES} flags, throws with its reason. */
  public static List<AcceptEntry> fromFlags(List<String> flags) throws IntentException {
    if (flags.size() > MAX_ENTRIES) {
      throw new IntentException("--advice-accept is given " + flags.size() + " times: the bound is " + MAX_ENTRIES);
    }
    List<AcceptEntry> out = new ArrayList<>();
    for (String f : flags) {
      try {
        out.add(AcceptEntry.parse(f, "", "--advice-accept " + f));
      } catch (IllegalArgumentException e) {
        throw new IntentException("--advice-accept '" + f + "': " + e.getMessage());
      }
    }
    return out;
  }

  /** The {@code accept} entries of an advice configuration file. */
  public static List<AcceptEntry> load(Path file) throws IntentException {
    Object doc = document(file);
    if (doc == null) {
      return List.of();
    }
    if (!(doc instanceof Map<?, ?> top)) {
      throw new IntentException(file + ": the document must be a mapping with an 'accept' list");
    }
    for (Object k : top.keySet()) {
      if (!TOP.contains(String.valueOf(k))) {
        throw new IntentException(file + ": unknown field '" + k + "' (fields: accept)");
      }
    }
    Object accept = top.get("accept");
    if (accept == null) {
      return List.of();
    }
    if (!(accept instanceof List<?> list)) {
      throw new IntentException(file + ": accept must be a list");
    }
    if (list.size() > MAX_ENTRIES) {
      throw new IntentException(file + ": accept has " + list.size() + " entries: the bound is " + MAX_ENTRIES);
    }
    List<AcceptEntry> out = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      String where = file + ": accept[" + i + "]";
      try {
        out.add(entry(list.get(i), where));
      } catch (IllegalArgumentException x) {
        throw new IntentException(where + ": " + x.getMessage());
      }
    }
    return out;
  }

  /** The file's YAML document (null when empty): read, checked to be UTF-8, parsed safely. */
  private static Object document(Path file) throws IntentException {
    byte[] bytes;
    try {
      bytes = ConfigFile.read(file, MAX_FILE_BYTES);
    } catch (ConfigFile.RefusedException e) {
      throw new IntentException("read " + file + ": " + e.reason());
    } catch (IOException e) {
      throw new IntentException("read " + file + ": " + e.getMessage());
    }
    String text;
    try {
      text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw new IntentException("read " + file + ": not UTF-8");
    }
    try {
      LoaderOptions options = new LoaderOptions();
      options.setAllowDuplicateKeys(false);
      return new Yaml(new SafeConstructor(options)).load(text);
    } catch (MarkedYAMLException e) {
      throw new IntentException("parse " + file + ": line " + (e.getProblemMark().getLine() + 1) + ": "
          + e.getProblem());
    } catch (YAMLException e) {
      throw new IntentException("parse " + file + ": " + e.getMessage());
    }
  }

  /** One entry of the {@code accept} list: the flag's form or a mapping; a bad one throws its reason. */
  private static AcceptEntry entry(Object e, String where) {
    if (e instanceof String s) {
      return AcceptEntry.parse(s, "", where);
    }
    if (e instanceof Map<?, ?> m) {
      for (Object k : m.keySet()) {
        if (!ENTRY.contains(String.valueOf(k))) {
          throw new IllegalArgumentException("unknown field '" + k + "' (fields: rule, netns, device, reason)");
        }
      }
      return new AcceptEntry(string(m, "rule", null), string(m, "netns", "*"), string(m, "device", null),
          string(m, "reason", ""), where);
    }
    throw new IllegalArgumentException("an entry is RULE:NETNS/DEVICE-GLOB or a mapping with rule, netns, "
        + "device, reason");
  }

  private static String string(Map<?, ?> m, String key, String dflt) {
    Object v = m.get(key);
    if (v == null) {
      if (dflt == null) {
        throw new IllegalArgumentException("'" + key + "' is required");
      }
      return dflt;
    }
    if (v instanceof Map || v instanceof List) {
      throw new IllegalArgumentException("'" + key + "' must be a string");
    }
    return String.valueOf(v);
  }
}

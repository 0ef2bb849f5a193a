package io.segscope.lab;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Finds what is left of a lab: its namespaces by name, and its devices by interface alias. Read-only. */
final class Leftovers {
  /**
   * iproute2 prints interface names raw inside its JSON strings: a tenant's (or another lab's) name
   * with control bytes (ESC, ...) is valid Linux and must not break the search.
   */
  private static final ObjectMapper JSON = JsonMapper.builder()
      .enable(JsonReadFeature.ALLOW_UNESCAPED_CONTROL_CHARS).build();

  private Leftovers() {
  }

  static List<String> find(String ip, String prefix, String alias, List<Netns> made) {
    List<String> found = new ArrayList<>();
    for (String name : Netnses.names()) {
      if (name.startsWith(prefix + "-")) {
        found.add("namespace " + name);
      }
    }
    devicesWithAlias(List.of(ip, "-j", "link", "show"), alias)
        .forEach(d -> found.add("device " + d + " in the root namespace"));
    for (String name : Netnses.names()) {
      devicesWithAlias(List.of(ip, "-n", name, "-j", "link", "show"), alias)
          .forEach(d -> found.add("device " + d + " in namespace " + name));
    }
    for (Netns ns : made) {
      for (long pid : Netnses.processesIn(ns.inode())) {
        // the inode may since have been reused by an unrelated namespace: only the alias proves it ours
        List<String> devs = devicesWithAlias(List.of(Tools.require("nsenter"), "--net=/proc/" + pid + "/ns/net",
            ip, "-j", "link", "show"), alias);
        if (!devs.isEmpty()) {
          found.add("namespace " + ns.name() + " (deleted, held open by pid " + pid + ") with devices " + devs);
        }
      }
    }
    return found;
  }

  private static List<String> devicesWithAlias(List<String> argv, String alias) {
    Command.Result r = Command.attempt(argv, Duration.ofSeconds(10));
    if (!r.ok()) {
      return List.of(); // namespace vanished meanwhile, or process gone
    }
    try {
      return withAlias(r.stdout(), alias);
    } catch (IOException e) {
      throw new LabException("parse `" + Command.line(argv) + "` JSON: " + e.getMessage(), e);
    }
  }

  /** Names of the links in {@code ip -j link show} output whose alias is {@code alias}. */
  static List<String> withAlias(String ipJson, String alias) throws IOException {
    List<String> names = new ArrayList<>();
    for (JsonNode link : JSON.readTree(ipJson)) {
      if (alias.equals(link.path("ifalias").asText(null))) {
        names.add(link.path("ifname").asText());
      }
    }
    return names;
  }
}

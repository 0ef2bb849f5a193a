package io.segscope.agent.workload;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What a pod sandbox's verbose status says about its network namespace. containerd and CRI-O put a
 * JSON document under the info key {@code "info"}: the sandbox process' {@code pid} and its OCI
 * {@code runtimeSpec}, whose {@code linux.namespaces} entry of type {@code network} has the path of the
 * namespace's bind mount (e.g. /var/run/netns/cni-...). Either may be missing; nothing else is read.
 *
 * @param netnsPath the network namespace's path, when the spec names one
 * @param pid the sandbox process, when reported (0 is not a pid)
 * @param netnsClosed the runtime says the namespace is already gone (containerd's netNamespaceClosed)
 */
public record SandboxInfo(Optional<String> netnsPath, OptionalLong pid, boolean netnsClosed) {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final int MAX_INFO_CHARS = 1 << 20;

  public static SandboxInfo none() {
    return new SandboxInfo(Optional.empty(), OptionalLong.empty(), false);
  }

  /**
   * Reads the verbose info map of PodSandboxStatusResponse.
   *
   * @throws IllegalArgumentException naming what is wrong when the "info" value is not JSON
   */
  public static SandboxInfo parse(Map<String, String> info) {
    String doc = info.get("info");
    if (doc == null || doc.isBlank()) {
      return none();
    }
    if (doc.length() > MAX_INFO_CHARS) {
      throw new IllegalArgumentException("sandbox info is " + doc.length() + " characters, more than "
          + MAX_INFO_CHARS);
    }
    JsonNode root;
    try {
      root = JSON.readTree(doc);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("sandbox info is not JSON: " + e.getOriginalMessage(), e);
    }
    Optional<String> path = Optional.empty();
    for (JsonNode ns : root.path("runtimeSpec").path("linux").path("namespaces")) {
      if ("network".equals(ns.path("type").asText()) && ns.path("path").isTextual()
          && !ns.path("path").asText().isEmpty()) {
        path = Optional.of(ns.path("path").asText());
      }
    }
    JsonNode p = root.path("pid");
    OptionalLong pid = p.canConvertToLong() && p.asLong() > 0 ? OptionalLong.of(p.asLong()) : OptionalLong.empty();
    return new SandboxInfo(path, pid, root.path("netNamespaceClosed").asBoolean(false));
  }
}

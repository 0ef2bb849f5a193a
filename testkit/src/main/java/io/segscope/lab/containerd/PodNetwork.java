package io.segscope.lab.containerd;

import com.fasterxml.jackson.databind.JsonNode;
import io.segscope.lab.Netns;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Where a pod sandbox's network landed: its namespace, and the host side of its veth in the node. */
final class PodNetwork {
  private static final Pattern PEER = Pattern.compile("^\\d+: eth0@if(\\d+):", Pattern.MULTILINE);

  private PodNetwork() {}

  /** The network namespace path in a sandbox's OCI runtime spec (linux.namespaces, type network). */
  static String netnsPath(String id, JsonNode info) {
    for (JsonNode ns : info.path("runtimeSpec").path("linux").path("namespaces")) {
      if (ns.path("type").asText().equals("network") && !ns.path("path").asText().isEmpty()) {
        return ns.path("path").asText();
      }
    }
    throw new AssertionError("sandbox " + id + " has no netns path in its runtime spec");
  }

  /** The device in {@code node} that is the peer of the pod's eth0 (in namespace {@code netns}). */
  static String hostVeth(Netns node, Path netns, String pod) throws Exception {
    String links = PrivateContainerd.exec(List.of("nsenter", "--net=" + netns, "ip", "-o", "link", "show", "dev",
        "eth0"));
    Matcher m = PEER.matcher(links);
    if (!m.find()) {
      throw new AssertionError("pod " + pod + ": no veth eth0 in its namespace: " + links);
    }
    return deviceByIndex(node, Integer.parseInt(m.group(1)));
  }

  private static String deviceByIndex(Netns node, int ifindex) throws Exception {
    String all = PrivateContainerd.exec(List.of("ip", "-n", node.name(), "-o", "link", "show"));
    Matcher m = Pattern.compile("^" + ifindex + ": ([^:@]+)[@:]", Pattern.MULTILINE).matcher(all);
    if (!m.find()) {
      throw new AssertionError("no device " + ifindex + " in " + node.name() + ": " + all);
    }
    return m.group(1);
  }
}

package io.segscope.agent.inventory;

import com.fasterxml.jackson.databind.JsonNode;
import io.segscope.agent.inventory.model.Features;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import org.assertj.core.api.SoftAssertions;

/**
 * Compares {@link Features} with {@code ethtool --json -k DEV}. ethtool prints some kernel features
 * under their legacy ethtool(8) names (table off_flag_def in ethtool's source); group lines that
 * stand for several features have "fixed": null and are skipped.
 */
public final class EthtoolJson {
  public static final Map<String, String> LEGACY = Map.of(
      "rx-checksumming", "rx-checksum",
      "generic-segmentation-offload", "tx-generic-segmentation",
      "generic-receive-offload", "rx-gro",
      "large-receive-offload", "rx-lro",
      "rx-vlan-offload", "rx-vlan-hw-parse",
      "tx-vlan-offload", "tx-vlan-hw-insert",
      "ntuple-filters", "rx-ntuple-filter",
      "receive-hashing", "rx-hashing",
      "udp-fragmentation-offload", "tx-udp-fragmentation");

  private EthtoolJson() {}

  /** {@code ethtool} is the object for one device (the single element of ethtool's JSON array). */
  public static void assertMatches(SoftAssertions soft, String dev, Features f, JsonNode ethtool) {
    soft.assertThat(f.available()).as(dev + ": features available (" + f.error() + ")").isTrue();
    Set<String> listed = new HashSet<>();
    Iterator<Map.Entry<String, JsonNode>> it = ethtool.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode v = e.getValue();
      if (e.getKey().equals("ifname") || !v.isObject() || v.get("fixed") == null || v.get("fixed").isNull()) {
        continue;
      }
      String name = LEGACY.getOrDefault(e.getKey(), e.getKey());
      listed.add(name);
      soft.assertThat(f.isActive(name)).as(dev + ": " + name + " active").isEqualTo(v.get("active").asBoolean());
      soft.assertThat(f.isFixed(name)).as(dev + ": " + name + " fixed").isEqualTo(v.get("fixed").asBoolean());
      soft.assertThat(f.wanted().contains(name)).as(dev + ": " + name + " requested")
          .isEqualTo(v.get("requested").asBoolean());
    }
    soft.assertThat(new HashSet<>(f.known())).as(dev + ": known feature names").isEqualTo(listed);
  }
}

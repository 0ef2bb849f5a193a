package io.segscope.agent.inventory;

import com.fasterxml.jackson.databind.JsonNode;
import io.segscope.agent.inventory.model.Link;
import io.segscope.agent.inventory.model.XdpAttachment;
import io.segscope.agent.inventory.model.XdpMode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.assertj.core.api.SoftAssertions;

/**
 * Compares decoded {@link Link}s with what {@code ip -d -j link show} printed for the same
 * namespace, field by field. iproute2 6.1 prints no gso_ipv4_max_size / gro_ipv4_max_size; when
 * they are missing from the JSON the caller checks them separately.
 */
public final class IpJson {
  private IpJson() {}

  /** Asserts that {@code links} and the ip JSON list the same devices with the same values. */
  public static void assertMatches(SoftAssertions soft, List<Link> links, JsonNode ip) {
    Map<String, Integer> indexByName = new HashMap<>();
    Map<Integer, JsonNode> byIndex = new HashMap<>();
    for (JsonNode d : ip) {
      indexByName.put(d.get("ifname").asText(), d.get("ifindex").asInt());
      byIndex.put(d.get("ifindex").asInt(), d);
    }
    soft.assertThat(links.stream().map(Link::ifindex).sorted().toList())
        .as("ifindexes").isEqualTo(byIndex.keySet().stream().sorted().toList());
    for (Link l : links) {
      JsonNode d = byIndex.get(l.ifindex());
      if (d == null) {
        continue;
      }
      String dev = l.name() + ": ";
      JsonNode info = d.path("linkinfo");
      soft.assertThat(l.name()).as(dev + "name").isEqualTo(d.get("ifname").asText());
      soft.assertThat(l.mtu()).as(dev + "mtu").isEqualTo(d.get("mtu").asInt());
      soft.assertThat(l.kind()).as(dev + "kind").isEqualTo(info.path("info_kind").asText(""));
      soft.assertThat(l.slaveKind()).as(dev + "slave kind").isEqualTo(info.path("info_slave_kind").asText(""));
      soft.assertThat(l.master()).as(dev + "master").isEqualTo(byName(indexByName, d.get("master")));
      OptionalInt link = d.has("link_index") ? OptionalInt.of(d.get("link_index").asInt())
          : byName(indexByName, d.get("link"));
      soft.assertThat(l.link()).as(dev + "link").isEqualTo(link);
      soft.assertThat(l.linkNetnsId()).as(dev + "link_netnsid").isEqualTo(optInt(d.get("link_netnsid")));
      soft.assertThat(l.gsoMaxSize()).as(dev + "gso_max_size").isEqualTo(optLong(d.get("gso_max_size")));
      soft.assertThat(l.gsoMaxSegs()).as(dev + "gso_max_segs").isEqualTo(optLong(d.get("gso_max_segs")));
      soft.assertThat(l.tsoMaxSize()).as(dev + "tso_max_size").isEqualTo(optLong(d.get("tso_max_size")));
      soft.assertThat(l.tsoMaxSegs()).as(dev + "tso_max_segs").isEqualTo(optLong(d.get("tso_max_segs")));
      soft.assertThat(l.groMaxSize()).as(dev + "gro_max_size").isEqualTo(optLong(d.get("gro_max_size")));
      if (d.has("gso_ipv4_max_size")) {
        soft.assertThat(l.gsoIpv4MaxSize()).as(dev + "gso_ipv4_max_size")
            .isEqualTo(optLong(d.get("gso_ipv4_max_size")));
      }
      if (d.has("gro_ipv4_max_size")) {
        soft.assertThat(l.groIpv4MaxSize()).as(dev + "gro_ipv4_max_size")
            .isEqualTo(optLong(d.get("gro_ipv4_max_size")));
      }
      soft.assertThat(l.operstate()).as(dev + "operstate").isEqualTo(d.path("operstate").asText(""));
      soft.assertThat(l.minMtu()).as(dev + "min_mtu").isEqualTo(optLong(d.get("min_mtu")));
      soft.assertThat(l.maxMtu()).as(dev + "max_mtu").isEqualTo(optLong(d.get("max_mtu")));
      soft.assertThat(l.txQueueLength()).as(dev + "txqlen").isEqualTo(optLong(d.get("txqlen")));
      boolean up = false;
      for (JsonNode f : d.path("flags")) {
        up |= "UP".equals(f.asText());
      }
      soft.assertThat(l.up()).as(dev + "UP flag").isEqualTo(up);
      soft.assertThat(l.vxlanLink()).as(dev + "vxlan link")
          .isEqualTo("vxlan".equals(l.kind()) ? byName(indexByName, info.path("info_data").get("link"))
              : OptionalInt.empty());
      assertXdp(soft, dev, l.xdp(), d.get("xdp"));
    }
  }

  private static void assertXdp(SoftAssertions soft, String dev, XdpAttachment x, JsonNode xdp) {
    if (xdp == null) {
      soft.assertThat(x.mode()).as(dev + "xdp mode").isEqualTo(XdpMode.NONE);
      soft.assertThat(x.progId()).as(dev + "xdp prog").isEmpty();
      return;
    }
    soft.assertThat(x.mode().ordinal()).as(dev + "xdp mode").isEqualTo(xdp.get("mode").asInt());
    soft.assertThat(x.progId()).as(dev + "xdp prog id").isEqualTo(optInt(xdp.path("prog").get("id")));
    Map<Integer, OptionalInt> perMode = new HashMap<>();
    for (JsonNode a : xdp.path("attached")) {
      perMode.put(a.get("mode").asInt(), OptionalInt.of(a.path("prog").get("id").asInt()));
    }
    soft.assertThat(x.driverProgId()).as(dev + "xdp drv prog").isEqualTo(perMode.getOrDefault(1, OptionalInt.empty()));
    soft.assertThat(x.genericProgId()).as(dev + "xdp generic prog")
        .isEqualTo(perMode.getOrDefault(2, OptionalInt.empty()));
    soft.assertThat(x.hardwareProgId()).as(dev + "xdp hw prog").isEqualTo(perMode.getOrDefault(3, OptionalInt.empty()));
  }

  private static OptionalInt byName(Map<String, Integer> indexByName, JsonNode name) {
    if (name == null || name.isNull()) {
      return OptionalInt.empty();
    }
    Integer index = indexByName.get(name.asText());
    if (index == null) {
      throw new AssertionError("ip names device " + name.asText() + " that it did not list");
    }
    return OptionalInt.of(index);
  }

  private static OptionalInt optInt(JsonNode n) {
    return n == null || n.isNull() ? OptionalInt.empty() : OptionalInt.of(n.asInt());
  }

  private static OptionalLong optLong(JsonNode n) {
    return n == null || n.isNull() ? OptionalLong.empty() : OptionalLong.of(n.asLong());
  }
}

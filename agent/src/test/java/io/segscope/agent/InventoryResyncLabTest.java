package io.segscope.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.agent.inventory.DeviceInventory;
import io.segscope.agent.inventory.InventoryConfig;
import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.exporters.MetricsRegistry;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.lab.Lab;
import io.segscope.lab.LabTest;
import io.segscope.lab.Netns;
import io.segscope.testkit.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A burst of link changes overflows a namespace's notification socket (ENOBUFS, provoked with the
 * kernel's smallest receive buffer and 300 veth pairs made by one {@code ip -batch}): the inventory
 * reads the namespace again in full, counts it in segscope_inventory_resyncs_total{reason="overflow"}
 * and not as a malformed-bytes warning, and ends up with exactly the devices {@code ip -j link} lists.
 */
@LabTest
class InventoryResyncLabTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void anOverflowIsAResyncNotADecodeWarning(Lab lab) throws Exception {
    Netns ns = lab.namespace("flood");
    DecodeWarnings warnings = new DecodeWarnings();
    try (DeviceInventory inventory = DeviceInventory.start(InventoryConfig.defaults().withEventBufferBytes(1),
        warnings)) {
      TelemetrySnapshot empty = TelemetrySnapshot.builder().takenAt(Instant.now()).build();
      try (MetricsRegistry metrics = new MetricsRegistry(() -> empty)) {
        AgentRuntime.registerInventoryMeters(inventory, metrics);
        assertThat(inventory.resyncs("overflow")).isZero();
        assertThat(text(metrics)).contains("segscope_inventory_resyncs_total{reason=\"overflow\"} 0.0");
        long warningsBefore = warnings.count();

        StringBuilder batch = new StringBuilder();
        for (int i = 0; i < 300; i++) {
          batch.append("link add o").append(i).append(" type veth peer name p").append(i).append('\n');
        }
        Path file = lab.workDir().resolve("flood.batch");
        Files.writeString(file, batch);
        lab.exec(ns, "ip", "-batch", file.toString());

        Set<String> expected = ipLinkNames(lab, ns);
        assertThat(expected).hasSize(601);
        Supplier<Set<String>> names = () -> inventory.current().devices().stream()
            .filter(d -> d.netns() == ns.inode()).map(Device::name).collect(Collectors.toCollection(TreeSet::new));
        Await.atMost(Duration.ofSeconds(20)).every(Duration.ofMillis(50))
            .until(() -> inventory.resyncs("overflow") > 0 && names.get().equals(expected));
        Set<String> seen = names.get();
        assertThat(inventory.resyncs("overflow")).as("the burst overflowed the notification socket").isPositive();
        assertThat(seen).as("after the resync the inventory has exactly what ip -j link lists").isEqualTo(expected);
        assertThat(warnings.count()).as("no malformed bytes were counted for it (last: %s)", warnings.last())
            .isEqualTo(warningsBefore);
        assertThat(text(metrics)).containsPattern(
            "segscope_inventory_resyncs_total\\{reason=\"overflow\"\\} [1-9][0-9]*\\.0");
      }
    }
  }

  static String text(MetricsRegistry metrics) throws Exception {
    return new String(metrics.scrape("text/plain").body(), StandardCharsets.UTF_8);
  }

  static Set<String> ipLinkNames(Lab lab, Netns ns) throws Exception {
    JsonNode links = JSON.readTree(lab.exec(ns, "ip", "-j", "link", "show"));
    Set<String> names = new TreeSet<>();
    links.forEach(l -> names.add(l.path("ifname").asText()));
    return names;
  }
}

package io.segscope.agent.e2e;

import static io.segscope.testkit.PromText.labels;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.lab.Lab;
import io.segscope.lab.LabTest;
import io.segscope.lab.Netns;
import io.segscope.testkit.PromText;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * --device-include, --device-exclude and --max-devices on the real agent: the same devices in
 * /metrics and /api/v1/devices, the one over the limit counted, the excluded one nowhere.
 */
class DeviceSelectionEndToEndIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  @LabTest
  void theSelectionIsTheSameInMetricsAndApi(Lab lab) throws Exception {
    Netns a = lab.namespace("sel");
    Netns b = lab.namespace("selpeer");
    lab.veth(a, "sgkeep0", b, "sgpeer0");
    lab.veth(a, "sgkeep1", b, "sgpeer1");
    lab.veth(a, "sgkeep2", b, "sgpeer2");
    lab.veth(a, "sgdrop0", b, "sgpeer3");
    Instant labReady = Instant.now();
    // only this lab's devices (the host's others are not ours to count), one excluded, two of three kept
    try (AgentProcess agent = AgentProcess.start("--interval", "1s", "--device-include", "^sg(keep|drop)[0-9]$",
        "--device-exclude", "drop", "--max-devices", "2")) {
      agent.awaitReady(Duration.ofSeconds(90));
      // the condition, not a clock: a map read after an inventory refresh that saw every lab device
      PromText m = agent.scrapeAfterAnInventoryRefreshSince(labReady, Duration.ofSeconds(90));
      Set<String> metrics = new TreeSet<>();
      for (PromText.Sample s : m.samples("segscope_device_info")) {
        metrics.add(s.labels().get("netns") + "/" + s.labels().get("device"));
      }
      JsonNode api = JSON.readTree(agent.get("/api/v1/devices").body()).path("devices");
      Set<String> apiDevices = new TreeSet<>();
      api.forEach(d -> apiDevices.add(d.path("netns").asLong() + "/" + d.path("name").asText()));
      assertThat(metrics).as("devices in /metrics; devices_reported %s, dropped %s",
          m.sum("segscope_devices_reported", Map.of()), m.sum("segscope_devices_dropped_total", Map.of())).hasSize(2)
          .isEqualTo(apiDevices);
      List<String> names = new ArrayList<>();
      metrics.forEach(x -> names.add(x.substring(x.indexOf('/') + 1)));
      assertThat(names).allMatch(n -> n.startsWith("sgkeep")).doesNotContain("sgdrop0");
      assertThat(metrics).allMatch(x -> x.startsWith(a.inode() + "/"));
      assertThat(m.sum("segscope_devices_reported", Map.of())).isEqualTo(2.0);
      assertThat(m.sum("segscope_devices_dropped_total", Map.of()))
          .as("the third sgkeep device, over --max-devices 2").isEqualTo(1.0);
      assertThat(m.sum("segscope_device_info", labels("device", "sgdrop0"))).isZero();
    }
  }
}

package io.segscope.agent.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.model.Qdisc;
import io.segscope.agent.inventory.model.Routing;
import io.segscope.probes.wire.DeviceReading;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class DeviceSelectionTest {

  private static DeviceSelection.Config config(String include, String exclude, int max) {
    return new DeviceSelection.Config(Optional.ofNullable(include).map(Pattern::compile),
        Optional.ofNullable(exclude).map(Pattern::compile), max);
  }

  @Test
  void excludeWinsAndTheExpressionsSearchTheNameForm() {
    var c = config("veth", "^veth9", 10);
    assertThat(c.matches("veth0")).isTrue();
    assertThat(c.matches("lxcveth1")).as("found anywhere, like node_exporter's device filters").isTrue();
    assertThat(c.matches("veth9x")).isFalse();
    assertThat(c.matches("eth0")).isFalse();
    assertThat(config(null, null, 1).matches("\u001c")).isTrue();
    assertThat(config("\\\\xff", null, 1).matches("a\\xff")).as("a byte outside UTF-8 is \\xff in the name form")
        .isTrue();
  }

  @Test
  void aRefusedDeviceIsCountedOncePerAppearance() {
    DeviceSelection s = new DeviceSelection(config(null, null, 1));
    Device a = TelemetryPipelineTest.device(2, "a");
    Device b = TelemetryPipelineTest.device(3, "b");
    List<DeviceReading> none = List.of();
    s.select(TelemetryPipelineTest.inventory(List.of(a, b)), none);
    s.select(TelemetryPipelineTest.inventory(List.of(a, b)), none);
    assertThat(s.dropped()).isEqualTo(1);
    s.select(TelemetryPipelineTest.inventory(List.of(a)), none); // b gone
    Inventory back = s.select(TelemetryPipelineTest.inventory(List.of(a, b)), none).inventory();
    assertThat(s.dropped()).as("b came back and is refused again").isEqualTo(2);
    assertThat(back.devices()).extracting(Device::name).containsExactly("a");
    assertThat(s.view(TelemetryPipelineTest.inventory(List.of(b, a))).devices()).as("the API's view between reads")
        .extracting(Device::name).containsExactly("a");
    // a counted device unknown to the inventory is judged by the kernel's name and takes a place too
    DeviceSelection t = new DeviceSelection(config(null, "^b$", 5));
    var sel = t.select(TelemetryPipelineTest.inventory(List.of(a)), List.of(
        TelemetryPipelineTest.counters(4026531840L, 7, "b", 1),
        TelemetryPipelineTest.counters(4026531840L, 8, "c", 1)));
    assertThat(sel.counters()).extracting(DeviceReading::kernelName).containsExactly("c");
    assertThat(t.reported()).isEqualTo(2);
  }

  /**
   * A selection that leaves a device out keeps the namespaces' qdiscs and routes: mtu_mismatch and
   * qdisc_segmentation read them (they were dropped with the devices left out).
   */
  @Test
  void aSelectionThatLeavesDevicesOutKeepsQdiscsAndRoutes() {
    Device a = TelemetryPipelineTest.device(2, "a");
    Device b = TelemetryPipelineTest.device(3, "b");
    Inventory base = TelemetryPipelineTest.inventory(List.of(a, b));
    long ns = a.netns();
    Qdisc tbf = new Qdisc(2, 0x80010000, Qdisc.ROOT, "tbf", Optional.empty(), Optional.empty());
    Inventory shaped = new Inventory(base.namespaces(), base.devices(), Map.of(), Map.of(ns, Routing.UNREAD),
        Map.of(ns, List.of(tbf)), base.readAt());
    DeviceSelection s = new DeviceSelection(config(null, "^b$", 10));
    Inventory selected = s.select(shaped, List.of()).inventory();
    assertThat(selected.devices()).extracting(Device::name).containsExactly("a");
    assertThat(selected.qdiscs()).isEqualTo(shaped.qdiscs());
    assertThat(selected.routing()).isEqualTo(shaped.routing());
    assertThat(s.view(shaped).qdiscs()).as("the API's view too").isEqualTo(shaped.qdiscs());
  }

  @Test
  void theLimitHasBounds() {
    assertThatThrownBy(() -> config(null, null, 0)).hasMessageContaining("1..100000");
    assertThatThrownBy(() -> config(null, null, 100_001)).hasMessageContaining("1..100000");
  }
}

package io.segscope.agent.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Features;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.model.Link;
import io.segscope.agent.inventory.model.LinkLimit;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.inventory.model.XdpAttachment;
import io.segscope.agent.inventory.model.XdpMode;
import io.segscope.agent.telemetry.InventoryView;
import io.segscope.exporters.model.DeviceLimit;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * A device's limits as the API's {@code limits} object (docs/api.md, byte for byte) and as the
 * {@code segscope_device_*} limit families carry them: the same limits from one list.
 */
class ApiJsonLimitsTest {
  static final long ROOT = 4026531840L;

  /** A device whose kernel reports every limit but tso_max_size and gro_ipv4_max_size. */
  static Device device() {
    Link l = new Link(3, "eth0", "", "", 9000, OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty(),
        OptionalLong.of(65536), OptionalLong.of(64), OptionalLong.empty(), OptionalLong.of(65535),
        OptionalLong.of(131072), OptionalLong.of(0), OptionalLong.empty(),
        new XdpAttachment(XdpMode.NONE, OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty(),
            OptionalInt.empty()),
        "UP", OptionalLong.of(68), OptionalLong.of(9216), OptionalLong.of(1000), 1, OptionalInt.empty());
    return new Device(ROOT, "", l, Features.unavailable("not read in this test"));
  }

  static Inventory inventory(Device d) {
    return new Inventory(List.of(new Netns(ROOT, "", Path.of("/proc/1/ns/net"), true)), List.of(d), Map.of(),
        Instant.parse("2026-12-04T12:00:00Z"));
  }

  @Test
  void limitsListTheReportedOnesInTheKernelsOrderAndTheMtuLast() {
    Device d = device();
    assertThat(ApiJson.device(inventory(d), d, null).getJsonObject("limits").encode())
        .isEqualTo("{\"gso_max_size\":65536,\"gso_max_segs\":64,\"tso_max_segs\":65535,\"gro_max_size\":131072,"
            + "\"gso_ipv4_max_size\":0,\"mtu\":9000}");
  }

  @Test
  void theLimitFamiliesCarryTheSameLimits() {
    Device d = device();
    Map<DeviceLimit, Long> expected = new EnumMap<>(DeviceLimit.class);
    expected.put(DeviceLimit.GSO_MAX_SIZE, 65536L);
    expected.put(DeviceLimit.GSO_MAX_SEGS, 64L);
    expected.put(DeviceLimit.TSO_MAX_SEGS, 65535L);
    expected.put(DeviceLimit.GRO_MAX_SIZE, 131072L);
    expected.put(DeviceLimit.GSO_IPV4_MAX_SIZE, 0L);
    expected.put(DeviceLimit.MTU, 9000L);
    assertThat(InventoryView.info(inventory(d), d).limits()).containsExactlyEntriesOf(expected);
  }

  @Test
  void everyLimitHasTheExportedFamilyOfItsName() {
    assertThat(Arrays.stream(LinkLimit.values()).map(Enum::name))
        .containsExactlyElementsOf(Arrays.stream(DeviceLimit.values()).map(Enum::name).toList());
  }
}

package io.segscope.agent.telemetry;

import static io.segscope.agent.telemetry.VanishedDevicesTest.LAB;
import static io.segscope.agent.telemetry.VanishedDevicesTest.ROOT;
import static io.segscope.agent.telemetry.VanishedDevicesTest.T0;
import static io.segscope.agent.telemetry.VanishedDevicesTest.ns;
import static io.segscope.agent.telemetry.VanishedDevicesTest.reading;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.device.DeviceId;
import io.segscope.exporters.model.BuildInfo;
import io.segscope.exporters.model.DeviceRef;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.probes.ProbeReading;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * How a counted device is named when its namespace inode was reused, on keys as this host's probes
 * make them: namespace "blue" (cookie 4117) had inode LAB and a device at ifindex 2; it was destroyed
 * and namespace "green" (cookie 4121) got the same inode and a device at the same ifindex. The
 * inventory holds one of them under LAB (the older read or the newer one); the probes' map can hold
 * both keys for a moment.
 */
class InventoryViewTest {
  static final long BLUE = 4117;
  static final long GREEN = 4121;
  static final DeviceId BLUE_KEY = new DeviceId(BLUE, LAB, 2);
  static final DeviceId GREEN_KEY = new DeviceId(GREEN, LAB, 2);
  /** What /run/netns says of inode LAB now (a name the test can tell apart from the inventory's). */
  static final Map<Long, String> SCANNED = Map.of(LAB, "scanned");

  static Inventory blue() {
    return namespace("blue", BLUE, "veth-blue");
  }

  static Inventory green() {
    return namespace("green", GREEN, "veth-green");
  }

  /** An inventory that read namespace {@code name} (cookie {@code cookie}) under LAB with one device. */
  static Inventory namespace(String name, long cookie, String device) {
    Device d = TelemetryPipelineTest.device(2, device);
    return VanishedDevicesTest.inventory(List.of(ns(ROOT, "", 1), ns(LAB, name, cookie)),
        new Device(LAB, name, d.link(), d.features(), "", cookie));
  }

  @Test
  void eachNamespacesDeviceIsNamedFromItsOwnRecordNeverFromTheOthers() {
    // the exported record carries the id the probes counted the device under, cookie included
    assertThat(InventoryView.name(blue(), SCANNED, BLUE_KEY, "k-blue"))
        .isEqualTo(new DeviceRef(BLUE_KEY, "blue", "veth-blue"));
    assertThat(InventoryView.name(green(), SCANNED, GREEN_KEY, "k-green"))
        .isEqualTo(new DeviceRef(GREEN_KEY, "green", "veth-green"));
    // the inventory holds the other namespace under the same inode: none of its record (nor the
    // /run/netns name of that inode, which is that namespace's) names this device
    assertThat(InventoryView.name(blue(), SCANNED, GREEN_KEY, "k-green"))
        .as("green's device while the inventory still holds blue")
        .isEqualTo(new DeviceRef(GREEN_KEY, "", "k-green"));
    assertThat(InventoryView.name(green(), SCANNED, BLUE_KEY, "k-blue"))
        .as("blue's device once the inventory holds green")
        .isEqualTo(new DeviceRef(BLUE_KEY, "", "k-blue"));
  }

  @Test
  void theInventoryFindsADeviceByIdUnlessBothCookiesAreKnownAndDiffer() {
    Inventory inv = blue();
    Device d = inv.devices().stream().filter(x -> x.netns() == LAB).findFirst().orElseThrow();
    assertThat(d.id()).as("the device carries its namespace's cookie").isEqualTo(BLUE_KEY);
    assertThat(inv.device(BLUE_KEY)).contains(d);
    assertThat(inv.device(DeviceId.of(LAB, 2))).as("the probes of a kernel without cookies").contains(d);
    assertThat(inv.device(GREEN_KEY)).as("the namespace that had the inode next").isEmpty();
    assertThat(namespace("blue", 0, "veth-blue").device(GREEN_KEY)).as("the inventory lacks the cookie")
        .map(Device::name).contains("veth-blue");
    assertThat(inv.device(new DeviceId(BLUE, LAB, 3))).isEmpty();
  }

  @Test
  void bothKeysInOneReadAreNamedApartByTheAssembler() {
    // the read that meets both entries (report's path: nothing filters the old one before naming)
    ProbeReading r = new ProbeReading(0, List.of(reading(BLUE, LAB, 2, "k-blue", 500),
        reading(GREEN, LAB, 2, "k-green", 3)), Map.of());
    for (Inventory inv : List.of(blue(), green())) {
      TelemetrySnapshot s = new SnapshotAssembler(new BuildInfo("test", "0.26.0", "6.18")).assemble(T0, r,
          List.of(), SelfCost.Reading.NONE, "tracepoint", "",
          (key, kernelName) -> InventoryView.name(inv, SCANNED, key, kernelName));
      boolean blueRead = inv.namespace(LAB).orElseThrow().cookie() == BLUE;
      assertThat(s.gso()).extracting(g -> g.swSkbs(), g -> g.device().netnsName(), g -> g.device().device())
          .as(blueRead ? "inventory holds blue" : "inventory holds green")
          .containsExactlyInAnyOrder(
              blueRead ? tuple(500L, "blue", "veth-blue") : tuple(500L, "", "k-blue"),
              blueRead ? tuple(3L, "", "k-green") : tuple(3L, "green", "veth-green"));
    }
  }

  @Test
  void anUnknownCookieFallsBackToTheInode() {
    // the inventory has not read the namespace's cookie (0): matched by inode alone, so green's device
    // takes blue's record (the documented limit of the fallback)
    Inventory noCookie = namespace("blue", 0, "veth-blue");
    assertThat(InventoryView.name(noCookie, SCANNED, GREEN_KEY, "k-green"))
        .isEqualTo(new DeviceRef(GREEN_KEY, "blue", "veth-blue"));
    // a kernel without namespace cookies keys every device with cookie 0: by inode, as before cookies
    assertThat(InventoryView.name(green(), SCANNED, DeviceId.of(LAB, 2), "k"))
        .isEqualTo(new DeviceRef(DeviceId.of(LAB, 2), "green", "veth-green"));
  }

  @Test
  void aNamespaceTheInventoryLacksIsNamedFromTheKernelAndRunNetns() {
    Inventory rootOnly = VanishedDevicesTest.inventory(List.of(ns(ROOT, "", 1)));
    assertThat(InventoryView.name(rootOnly, SCANNED, GREEN_KEY, "k-green"))
        .isEqualTo(new DeviceRef(GREEN_KEY, "scanned", "k-green"));
    assertThat(InventoryView.name(rootOnly, Map.of(), GREEN_KEY, "k-green"))
        .isEqualTo(new DeviceRef(GREEN_KEY, "", "k-green"));
  }
}

package io.segscope.agent.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The driver of a root-namespace NIC from sysfs, laid out as a vmxnet3 VM's /sys/class/net shows it
 * ({@code device/driver} a link to {@code .../bus/pci/drivers/vmxnet3}): what the offload_disabled risk
 * text reads to say a vmxnet3 NIC runs with offloads off on purpose (DeliberateOffloads).
 */
class DriverNamesTest {
  @TempDir
  Path sys;

  private Path nic(String name, int ifindex, String driver) throws Exception {
    Path dir = Files.createDirectories(sys.resolve("class/net").resolve(name));
    Files.writeString(dir.resolve("ifindex"), ifindex + "\n");
    Path pci = Files.createDirectories(sys.resolve("devices/pci0000:00/0000:00:15.0/0000:0b:00.0"));
    Files.createDirectories(sys.resolve("bus/pci/drivers").resolve(driver));
    Files.deleteIfExists(pci.resolve("driver"));
    Files.createSymbolicLink(pci.resolve("driver"), Path.of("../../../../bus/pci/drivers").resolve(driver));
    Files.createSymbolicLink(dir.resolve("device"), Path.of("../../../devices/pci0000:00/0000:00:15.0/0000:0b:00.0"));
    return dir;
  }

  @Test
  void theDriverIsTheLastElementOfTheDevicesDriverLink() throws Exception {
    nic("ens192", 2, "vmxnet3");
    DriverNames names = new DriverNames(sys.resolve("class/net"));
    assertThat(names.driver(2, "ens192")).isEqualTo("vmxnet3");
  }

  @Test
  void anotherNamespacesDeviceOfThatNameAVirtualDeviceOrAHostileNameIsUnknown() throws Exception {
    nic("ens192", 2, "vmxnet3");
    Path veth = Files.createDirectories(sys.resolve("class/net/veth0"));
    Files.writeString(veth.resolve("ifindex"), "7\n"); // virtual: no device/ link
    DriverNames names = new DriverNames(sys.resolve("class/net"));
    assertThat(names.driver(5, "ens192")).as("sysfs shows the agent's namespace's ens192, ifindex 2").isEmpty();
    assertThat(names.driver(7, "veth0")).isEmpty();
    assertThat(names.driver(3, "absent")).isEmpty();
    for (String hostile : new String[] {"", ".", "..", "../net/ens192", "a\\x2fb", "e\u001bns"}) {
      assertThat(names.driver(2, hostile)).as(hostile).isEmpty();
    }
  }
}

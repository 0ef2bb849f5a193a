package io.segscope.bench.scale;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.lab.LabAddress;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DeviceFleetTest {
  @Test
  void everyPairHasItsOwnSlash30InsideTheBenchmarkRange() {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < DeviceFleet.MAX_PAIRS; i++) {
      String a = DeviceFleet.address(i, 1);
      String b = DeviceFleet.address(i, 2);
      assertThat(seen.add(a)).isTrue();
      assertThat(seen.add(b)).isTrue();
      assertThat(LabAddress.requireLab(a + "/30")).as(a).isEqualTo(a + "/30");
    }
    assertThat(DeviceFleet.address(0, 1)).isEqualTo("198.19.0.1");
    assertThat(DeviceFleet.address(64, 2)).isEqualTo("198.19.1.2");
    assertThat(DeviceFleet.address(DeviceFleet.MAX_PAIRS - 1, 2)).isEqualTo("198.19.255.254");
  }
}

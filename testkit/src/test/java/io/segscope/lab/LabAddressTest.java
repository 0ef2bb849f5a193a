package io.segscope.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LabAddressTest {
  @ParameterizedTest
  @ValueSource(strings = {"198.18.0.1/24", "198.19.255.254/24", "198.18.1.2/32", "198.18.0.0/15"})
  void acceptsAddressesInsideTheBenchmarkBlock(String cidr) {
    assertThat(LabAddress.requireLab(cidr)).isEqualTo(cidr);
  }

  @ParameterizedTest
  @ValueSource(strings = {"10.0.0.1/24", "198.17.255.1/24", "198.20.0.1/24", "192.168.1.1/24", "8.8.8.8/32"})
  void refusesAddressesOutsideTheBlock(String cidr) {
    assertThatThrownBy(() -> LabAddress.requireLab(cidr))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(cidr)
        .hasMessageContaining("outside 198.18.0.0/15");
  }

  @ParameterizedTest
  @ValueSource(strings = {"2001:2::1/64", "2001:2:0:46::2/64", "2001:2:0:ffff::1/128", "2001:2::/48"})
  void acceptsIpv6AddressesInsideTheIpv6BenchmarkBlock(String cidr) {
    assertThat(LabAddress.requireLab(cidr)).isEqualTo(cidr);
  }

  @ParameterizedTest
  @ValueSource(strings = {"2001:3::1/64", "2001:db8::1/64", "::1/128", "fe80::1/64", "2001:2:1::1/64"})
  void refusesIpv6AddressesOutsideTheIpv6Block(String cidr) {
    assertThatThrownBy(() -> LabAddress.requireLab(cidr))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(cidr)
        .hasMessageContaining("outside 2001:2::/48");
  }

  @Test
  void refusesAnIpv6PrefixThatReachesOutsideTheBlock() {
    assertThatThrownBy(() -> LabAddress.requireLab("2001:2::1/32"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("prefix /32");
  }

  @Test
  void refusesAPrefixThatReachesOutsideTheBlock() {
    assertThatThrownBy(() -> LabAddress.requireLab("198.18.0.1/8"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("prefix /8");
  }

  @ParameterizedTest
  @ValueSource(strings = {"198.18.0.1", "198.18.0.300/24", "fd00::1/64", "2001:2::1", "2001:2::g/64", "lab", ""})
  void refusesMalformedInput(String cidr) {
    assertThatThrownBy(() -> LabAddress.requireLab(cidr))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("check lab address");
  }

  @Test
  void hostDropsThePrefixLength() {
    assertThat(LabAddress.host("198.18.1.2/24")).isEqualTo("198.18.1.2");
    assertThat(LabAddress.host("198.18.1.2")).isEqualTo("198.18.1.2");
  }
}

package io.segscope.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class DeviceIdTest {
  private static final long NS = 4026532301L;

  @Test
  void equalityIsExactSoTwoNamespacesOfOneInodeStayApart() {
    DeviceId old = new DeviceId(0x812f, NS, 2);
    DeviceId reused = new DeviceId(0x6f89, NS, 2);
    assertThat(old).isNotEqualTo(reused).isNotEqualTo(DeviceId.of(NS, 2));
    assertThat(Map.of(old, "a", reused, "b")).hasSize(2);
    assertThat(new DeviceId(0x812f, NS, 2)).isEqualTo(old).hasSameHashCodeAs(old);
  }

  @Test
  void sameDeviceToleratesAnUnknownCookieOnEitherSide() {
    DeviceId known = new DeviceId(0x812f, NS, 2);
    assertThat(known.sameDevice(DeviceId.of(NS, 2))).isTrue();
    assertThat(DeviceId.of(NS, 2).sameDevice(known)).isTrue();
    assertThat(known.sameDevice(new DeviceId(0x812f, NS, 2))).isTrue();
    assertThat(known.sameDevice(new DeviceId(0x6f89, NS, 2))).as("another namespace under the inode").isFalse();
    assertThat(known.sameDevice(new DeviceId(0x812f, NS, 3))).as("another ifindex").isFalse();
    assertThat(known.sameDevice(new DeviceId(0x812f, NS + 1, 2))).as("another inode").isFalse();
  }

  @Test
  void withoutCookieIsTheLabelledDevice() {
    assertThat(new DeviceId(7, NS, 2).withoutCookie()).isEqualTo(DeviceId.of(NS, 2));
    assertThat(DeviceId.of(NS, 2).cookieKnown()).isFalse();
    assertThat(DeviceId.of(NS, 2).withCookie(7)).isEqualTo(new DeviceId(7, NS, 2));
    assertThat(new DeviceId(7, NS, 2).cookieKnown()).isTrue();
  }

  @Test
  void ordersByInodeThenIfindexThenUnsignedCookie() {
    DeviceId a = DeviceId.of(1, 9);
    DeviceId b = DeviceId.of(2, 1);
    DeviceId c = new DeviceId(5, 2, 2);
    DeviceId d = new DeviceId(-1L, 2, 2); // 2^64-1 as the kernel's u64
    DeviceId e = DeviceId.of(2, 2);
    List<DeviceId> sorted = new ArrayList<>(new TreeSet<>(List.of(d, c, b, e, a)));
    assertThat(sorted).containsExactly(a, b, e, c, d);
  }

  @Test
  void refusesAnInodeOutsideWhatTheKernelHands() {
    assertThatThrownBy(() -> DeviceId.of(-1, 2)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("DeviceId.netns must be a namespace inode (0 to 4294967295), got -1");
    assertThatThrownBy(() -> DeviceId.of(1L << 32, 2)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("got 4294967296");
    assertThat(DeviceId.of(DeviceId.MAX_NETNS, 2).netns()).isEqualTo(4294967295L);
  }

  @Test
  void toStringGivesTheLabelsAndTheCookieWhereKnown() {
    assertThat(DeviceId.of(NS, 2)).hasToString("4026532301/2");
    assertThat(new DeviceId(4097, NS, 2)).hasToString("4026532301/2 (netns cookie 4097)");
    assertThat(new DeviceId(-1L, NS, 2)).hasToString("4026532301/2 (netns cookie 18446744073709551615)");
  }
}

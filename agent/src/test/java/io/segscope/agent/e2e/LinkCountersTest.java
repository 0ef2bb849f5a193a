package io.segscope.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.lab.DeviceAt;
import io.segscope.lab.Lab;
import io.segscope.lab.LabTest;
import io.segscope.lab.Netns;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LinkCountersTest {
  /** A /proc/net/dev of this machine's kernel (6.18), two devices. */
  private static final String RECORDED =
      """
          Inter-|   Receive                                                |  Transmit
           face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
              lo: 32347099835 8233778    0    0    0     0          0         0 32347099835 8233778    0    0    0     0       0          0
          sga0-x0: 1196      14    0    1    0     0          0         0   183500     132    0    7    0     0       0          0
          """;

  @Test
  void readsEachDevicesRxAndTxPacketsBytesAndTxDrops() {
    Map<String, LinkCounters.Stats> s = LinkCounters.parse(RECORDED, Map.of("lo", 65536, "sga0-x0", 1500));
    assertThat(s).containsOnlyKeys("lo", "sga0-x0");
    assertThat(s.get("lo")).isEqualTo(new LinkCounters.Stats(8233778, 32347099835L, 8233778, 32347099835L, 0, 65536));
    assertThat(s.get("sga0-x0")).isEqualTo(new LinkCounters.Stats(14, 1196, 132, 183500, 7, 1500));
  }

  @Test
  void aTruncatedLineIsAnErrorNotAZero() {
    assertThatThrownBy(() -> LinkCounters.parse("  x0: 1 2 3\n", Map.of()))
        .hasMessageContaining("parse /proc/net/dev line").hasMessageContaining("3 fields, not 16");
  }

  private static Map<DeviceAt, JsonNode> ip(Lab lab, List<DeviceAt> devices) throws Exception {
    Map<DeviceAt, JsonNode> out = new java.util.HashMap<>();
    for (DeviceAt d : devices) {
      out.put(d, new ObjectMapper().readTree(lab.exec(d.ns(), "ip", "-s", "-j", "link", "show", "dev", d.name()))
          .get(0).path("stats64"));
    }
    return out;
  }

  /** What a read shows inside a namespace is what iproute2 shows for it. */
  @Test
  @LabTest
  void aReadAgreesWithIproute2InTheNamespace(Lab lab) throws Exception {
    Netns a = lab.namespace("a");
    Netns b = lab.namespace("b");
    lab.veth(a, "x0", b, "y0");
    lab.address(a, "x0", "198.18.90.1/24");
    lab.address(b, "y0", "198.18.90.2/24");
    lab.exec(a, "ip", "link", "set", "dev", "x0", "mtu", "1400");
    lab.exec(a, "ping", "-c", "3", "-i", "0.2", "-q", "198.18.90.2");
    List<DeviceAt> devices = List.of(new DeviceAt(a, "x0"), new DeviceAt(b, "y0"));
    // IPv6 keeps sending (neighbour and router solicitations): iproute2's readings before and after bracket ours
    Map<DeviceAt, JsonNode> before = ip(lab, devices);
    LinkCounters c = LinkCounters.read(lab, devices);
    Map<DeviceAt, JsonNode> after = ip(lab, devices);
    for (DeviceAt d : devices) {
      LinkCounters.Stats s = c.of(d);
      JsonNode b0 = before.get(d);
      JsonNode b1 = after.get(d);
      assertThat(s.txPackets()).as("%s tx packets", d.name()).isGreaterThanOrEqualTo(3)
          .isBetween(b0.at("/tx/packets").asLong(), b1.at("/tx/packets").asLong());
      assertThat(s.txBytes()).as("%s tx bytes", d.name())
          .isBetween(b0.at("/tx/bytes").asLong(), b1.at("/tx/bytes").asLong());
      assertThat(s.rxPackets()).as("%s rx packets", d.name()).isGreaterThanOrEqualTo(3)
          .isBetween(b0.at("/rx/packets").asLong(), b1.at("/rx/packets").asLong());
      assertThat(s.rxBytes()).as("%s rx bytes", d.name())
          .isBetween(b0.at("/rx/bytes").asLong(), b1.at("/rx/bytes").asLong());
      assertThat(s.mtu()).as("%s mtu", d.name()).isEqualTo(d.name().equals("x0") ? 1400 : 1500);
    }
  }
}

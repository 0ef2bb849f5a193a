package io.segscope.lab;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

/** The lab scenarios (docs/lab.md) carry traffic and have the settings they claim; each beside its healthy control. */
@LabTest
class ScenariosTest {
  private static final Duration RUN = Duration.ofSeconds(2);
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void s1BadAndHealthyBothCarryMeasuredTraffic(Lab lab) {
    Topology bad = Scenarios.s1GsoMismatch(lab, false);
    Topology healthy = Scenarios.s1GsoMismatch(lab, true);

    IperfResult b = reachAndMeasure(lab, bad);
    IperfResult h = reachAndMeasure(lab, healthy);

    report(bad, b);
    report(healthy, h);
    assertMeasured(b);
    assertMeasured(h);
  }

  @Test
  void s1UplinkHasTheSmallGsoMaxSizeAndTheControlKeepsTheDefault(Lab lab) {
    Topology bad = Scenarios.s1GsoMismatch(lab, false);
    Topology healthy = Scenarios.s1GsoMismatch(lab, true);

    assertThat(link(lab, bad.device("uplink")).path("gso_max_size").asLong()).isEqualTo(16384);
    assertThat(link(lab, bad.device("sender")).path("gso_max_size").asLong()).isEqualTo(65536);
    assertThat(link(lab, healthy.device("uplink")).path("gso_max_size").asLong()).isEqualTo(65536);
    JsonNode uplink = link(lab, bad.device("uplink"));
    assertThat(uplink.path("master").asText()).isEqualTo("br0");
    assertThat(link(lab, bad.device("senderPeer")).path("master").asText()).isEqualTo("br0");
    assertThat(bad.sender()).isNotEqualTo(bad.device("uplink").ns());
    assertThat(bad.receiverAddr()).isEqualTo("198.18.1.2");
  }

  @Test
  void s2LowerHasTsoOffAndBothVariantsCarryMeasuredTraffic(Lab lab) {
    Topology bad = Scenarios.s2OffloadLost(lab, false);
    Topology healthy = Scenarios.s2OffloadLost(lab, true);

    assertThat(tso(lab, bad.device("lower"))).isEqualTo("off");
    assertThat(tso(lab, healthy.device("lower"))).isEqualTo("on");
    JsonNode macvlan = link(lab, bad.device("macvlan"));
    assertThat(macvlan.path("linkinfo").path("info_kind").asText()).isEqualTo("macvlan");
    assertThat(macvlan.path("linkinfo").path("info_data").path("mode").asText()).isEqualTo("bridge");
    assertThat(bad.device("macvlan").ns()).isEqualTo(bad.sender());
    assertThat(bad.device("lower").ns()).isNotIn(bad.sender(), bad.receiver());

    IperfResult b = reachAndMeasure(lab, bad);
    IperfResult h = reachAndMeasure(lab, healthy);

    report(bad, b);
    report(healthy, h);
    assertMeasured(b);
    assertMeasured(h);
  }

  @Test
  void s3ReceiverRunsGenericXdpAndStillCarriesTraffic(Lab lab) {
    Prerequisites.requireClang();
    Topology bad = Scenarios.s3GenericXdp(lab, false);
    Topology healthy = Scenarios.s3GenericXdp(lab, true);

    DeviceAt rcv = bad.device("receiver");
    assertThat(lab.exec(rcv.ns(), "ip", "-d", "link", "show", "dev", rcv.name())).contains("xdpgeneric");
    DeviceAt control = healthy.device("receiver");
    assertThat(lab.exec(control.ns(), "ip", "-d", "link", "show", "dev", control.name())).doesNotContain("xdp");

    IperfResult b = reachAndMeasure(lab, bad);
    IperfResult h = reachAndMeasure(lab, healthy);

    report(bad, b);
    report(healthy, h);
    assertMeasured(b);
    assertMeasured(h);
  }

  private static IperfResult reachAndMeasure(Lab lab, Topology t) {
    Prerequisites.requireTool("ping", "checking that " + t.name() + " carries traffic");
    String ping = lab.exec(t.sender(), "ping", "-c", "2", "-i", "0.2", "-W", "2", "-n", "-q", t.receiverAddr());
    assertThat(ping).as("ping %s in %s", t.receiverAddr(), t.name()).contains(" 0% packet loss");
    return lab.iperf(t.sender(), t.receiver(), t.receiverAddr(), RUN);
  }

  private static void assertMeasured(IperfResult r) {
    assertThat(r.sentBytes()).isPositive();
    assertThat(r.bitsPerSecond()).isPositive();
    // the rate is the bytes over the run's own duration (end.sum_sent.seconds): a rate without
    // bytes behind it would be a parsing error
    double seconds;
    try {
      seconds = JSON.readTree(r.rawJson()).path("end").path("sum_sent").path("seconds").asDouble();
    } catch (IOException e) {
      throw new AssertionError("parse iperf3 JSON: " + e.getMessage(), e);
    }
    assertThat(seconds).as("iperf3's sending time").isPositive();
    assertThat(r.sentBytes() * 8.0 / r.bitsPerSecond()).as("bytes * 8 / rate vs iperf3's %.3f s", seconds)
        .isCloseTo(seconds, Assertions.withinPercentage(0.1));
  }

  private static void report(Topology t, IperfResult r) {
    System.out.println(String.format(Locale.ROOT, "lab throughput %-26s %6.2f Gbit/s (%d bytes in %d s)",
        t.name(), r.gbitsPerSecond(), r.sentBytes(), RUN.toSeconds()));
  }

  private static JsonNode link(Lab lab, DeviceAt d) {
    try {
      JsonNode all = JSON.readTree(lab.exec(d.ns(), "ip", "-j", "-d", "link", "show", "dev", d.name()));
      assertThat(all.size()).as("links named %s in %s", d.name(), d.ns().name()).isEqualTo(1);
      return all.get(0);
    } catch (IOException e) {
      throw new AssertionError("parse ip -j link output for " + d, e);
    }
  }

  private static String tso(Lab lab, DeviceAt d) {
    String features = lab.exec(d.ns(), "ethtool", "-k", d.name());
    return features.lines().filter(l -> l.startsWith("tcp-segmentation-offload:"))
        .map(l -> l.substring("tcp-segmentation-offload:".length()).trim())
        .findFirst().orElseThrow(() -> new AssertionError("no tcp-segmentation-offload in ethtool -k " + d));
  }
}

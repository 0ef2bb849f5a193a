package io.segscope.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The lab's UDP GSO sender: builds, sends super-packets that arrive as gso-sized datagrams, reports its CPU. */
@LabTest
class UdpGsoSenderTest {

  @Test
  void superPacketsArriveCutIntoGsoSizedDatagrams(Lab lab) {
    Netns a = lab.namespace("a");
    Netns b = lab.namespace("b");
    lab.veth(a, "va0", b, "vb0");
    lab.address(a, "va0", "198.18.201.1/24");
    lab.address(b, "vb0", "198.18.201.2/24");
    // the veth cannot segment UDP itself: every super-packet is cut in software on transmit
    lab.ethtoolK(a, "va0", "tx-udp-segmentation", "off");
    UdpGsoSender udp = UdpGsoSender.build(lab.workDir());

    UdpGsoSender.Received got;
    UdpGsoSender.Sent sent;
    try (UdpGsoSender.Sink sink = udp.sink(b, "198.18.201.2", 5201, lab.workDir())) {
      sent = udp.send(a, "198.18.201.2", 5201, 1400, 63000, Duration.ofSeconds(1));
      got = sink.stop();
    }

    assertThat(sent.sends()).isPositive();
    assertThat(sent.segments()).isEqualTo(sent.sends() * 45); // ceil(63000 / 1400)
    assertThat(sent.bytes()).isEqualTo(sent.sends() * 63000);
    assertThat(sent.cpuNanos()).isPositive();
    assertThat(sent.cpuNanosPerSegment()).isBetween(1.0, 1e6);
    // UDP may drop under load at the receiver, never invent: at most what was sent, most of it here
    assertThat(got.datagrams()).isPositive().isLessThanOrEqualTo(sent.segments());
    assertThat(got.bytes()).isEqualTo(got.datagrams() * 1400);
    String stats = lab.exec(a, "ip", "-s", "-j", "link", "show", "dev", "va0");
    assertThat(stats).contains("\"packets\"");
  }

  @Test
  void badArgumentsExitTwoWithTheReason(Lab lab) {
    Netns a = lab.namespace("a");
    UdpGsoSender udp = UdpGsoSender.build(lab.workDir());
    assertThatThrownBy(() -> Command.run(List.of(udp.binary().toString(), "send", "--dst",
        "198.18.201.2", "--port", "0", "--seconds", "1")))
        .isInstanceOf(LabException.class).hasMessageContaining("exit 2")
        .hasMessageContaining("--port must be 1..65535");
    assertThat(a.name()).startsWith(lab.prefix());
  }
}

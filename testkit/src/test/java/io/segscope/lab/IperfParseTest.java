package io.segscope.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class IperfParseTest {
  @Test
  void readsSentBytesAndRateFromSumSent() {
    String json = """
        {"start": {}, "intervals": [],
         "end": {"sum_sent": {"start": 0, "end": 2.0, "seconds": 2.0, "bytes": 3858759680,
                              "bits_per_second": 15435038720.5, "retransmits": 0},
                 "sum_received": {"bytes": 3858000000, "bits_per_second": 15432000000.0}}}
        """;
    IperfResult r = Iperf.parse(json);
    assertThat(r.sentBytes()).isEqualTo(3858759680L);
    assertThat(r.bitsPerSecond()).isEqualTo(15435038720.5);
    assertThat(r.gbitsPerSecond()).isBetween(15.43, 15.44);
    assertThat(r.rawJson()).isEqualTo(json);
  }

  @Test
  void reportsTheIperfErrorField() {
    assertThatThrownBy(
        () -> Iperf.parse("{\"start\":{}, \"error\": \"unable to connect to server: Connection refused\"}"))
        .isInstanceOf(LabException.class)
        .hasMessage("run iperf3: unable to connect to server: Connection refused");
  }

  @Test
  void namesTheMissingFields() {
    assertThatThrownBy(() -> Iperf.parse("{\"end\": {\"sum_received\": {\"bytes\": 1}}}"))
        .isInstanceOf(LabException.class)
        .hasMessageContaining("end.sum_sent.bytes");
  }

  @Test
  void refusesNonJson() {
    assertThatThrownBy(() -> Iperf.parse("iperf3: error - the server is busy"))
        .isInstanceOf(LabException.class)
        .hasMessageStartingWith("parse iperf3 JSON");
  }
}

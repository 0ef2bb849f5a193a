package io.segscope.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class PromTextTest {
  private static final String TEXT = """
      # HELP segscope_gso_sw_skbs_total Super-packets.
      # TYPE segscope_gso_sw_skbs_total counter
      segscope_gso_sw_skbs_total{device="up0",mode="tracepoint",netns="4026532300"} 12959.0
      segscope_gso_sw_skbs_total{device="low0",mode="tracepoint",netns="4026532301"} 15094.0
      segscope_gso_sw_duration_seconds_bucket{device="up0",netns="4026532300",le="+Inf"} 12959
      segscope_build_info{kernel="6.18",libbcc="0.26.0",version="a \\"quoted\\", b"} 1
      process_cpu_seconds_total 2.5
      """;

  @Test
  void sumsTheSeriesWhoseLabelsMatch() {
    PromText p = PromText.parse(TEXT);
    assertThat(p.sum("segscope_gso_sw_skbs_total", Map.of())).isEqualTo(12959.0 + 15094.0);
    assertThat(p.sum("segscope_gso_sw_skbs_total", Map.of("device", "up0", "netns", "4026532300")))
        .isEqualTo(12959.0);
    assertThat(p.sum("segscope_gso_sw_skbs_total", Map.of("device", "nope"))).isZero();
    assertThat(p.sum("process_cpu_seconds_total", Map.of())).isEqualTo(2.5);
  }

  @Test
  void readsEscapedLabelValuesAndInfinity() {
    PromText p = PromText.parse(TEXT);
    assertThat(p.samples("segscope_build_info").get(0).labels()).containsEntry("version", "a \"quoted\", b");
    assertThat(p.samples("segscope_gso_sw_duration_seconds_bucket").get(0).labels()).containsEntry("le", "+Inf");
    assertThat(p.samples()).hasSize(5);
    assertThat(p.seriesCount("segscope_")).isEqualTo(4);
  }

  @Test
  void aMalformedLineIsAnErrorNamingIt() {
    assertThatThrownBy(() -> PromText.parse("ok 1\nbroken{device=\"x} 1\n"))
        .hasMessageContaining("line 2").hasMessageContaining("broken");
    assertThatThrownBy(() -> PromText.parse("novalue")).hasMessageContaining("no value");
  }
}

package io.segscope.bench.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.testkit.PromText;
import org.junit.jupiter.api.Test;

class AgentProcessTest {
  @Test
  void aScrapeCountsAsStartedOnlyWithAnAttachedProgram() {
    assertThat(AgentProcess.probesAttached(PromText.parse(
        """
            segscope_probe_attached{path="gso_tx",program="tp_btf__net_dev_queue",mode="tracepoint",attach="tp_btf"} 1
            segscope_probe_attached{path="xdp_generic",program="tp_btf__netif_receive_skb",mode="tracepoint",attach="tp_btf"} 0
            """)))
        .isTrue();
    assertThat(AgentProcess.probesAttached(PromText.parse("""
        segscope_probe_attached{path="gso_tx",program="tp_btf__net_dev_queue",mode="tracepoint",attach="tp_btf"} 0
        segscope_build_info{version="x"} 1
        """))).isFalse();
  }

  @Test
  void thePrometheusAcceptHeaderPrefersOpenMetricsAndEndsWithAnything() {
    // what Prometheus 3 sends with its default scrape_protocols (scrape.go acceptHeader)
    assertThat(AgentProcess.PROMETHEUS_ACCEPT).startsWith("application/openmetrics-text;version=1.0.0;")
        .contains("text/plain;version=0.0.4;q=0.3").endsWith("*/*;q=0.2");
  }
}

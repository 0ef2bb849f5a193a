package io.segscope.bench.part;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.segscope.lab.DeviceAt;
import io.segscope.lab.Netns;
import io.segscope.lab.Topology;
import io.segscope.testkit.PromText;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KernelPartTest {
  static final String ATTACHED =
      """
          segscope_probe_attached{attach="tp_btf",mode="tracepoint",path="gso_tx",program="tp_btf__net_dev_queue"} 1
          segscope_probe_attached{attach="tp_btf",mode="tracepoint",path="gso_tx",program="tp_btf__consume_skb"} 1
          segscope_probe_attached{attach="tp_btf",mode="tracepoint",path="gso_tx",program="tp_btf__qdisc_dequeue"} 0
          segscope_probe_attached{attach="tp_btf",mode="tracepoint",path="xdp_generic",program="tp_btf__netif_receive_skb"} 0
          """;

  @Test
  void theDurationOraclesEndAggregatesWhatIsPendingOnEveryPossibleCpu() {
    String end = SampledPart.flushPending(3);
    for (int c = 0; c < 3; c++) {
      assertThat(end).contains("if (@pend_end[" + c + "] > 0) {")
          .contains("@sum[ksym(@pend_loc[" + c + "])] = sum((@pend_end[" + c + "] - @pend_start[" + c + "]));");
    }
    assertThat(end).doesNotContain("@pend_end[3]");
    assertThat(SampledPart.possibleCpus()).isGreaterThanOrEqualTo(Runtime.getRuntime().availableProcessors());
  }

  @Test
  void everyTracepointProgramIsListedWithItsEventAttachedOrNot() {
    PromText m = PromText.parse(ATTACHED);
    assertThat(KernelPart.attachedPrograms(m)).containsExactly(Map.entry("tp_btf__consume_skb", "consume_skb"),
        Map.entry("tp_btf__net_dev_queue", "net_dev_queue"), Map.entry("tp_btf__netif_receive_skb",
            "netif_receive_skb"),
        Map.entry("tp_btf__qdisc_dequeue", "qdisc_dequeue"));
    assertThat(KernelPart.label(m, "attach")).isEqualTo("tp_btf");
    assertThat(KernelPart.label(m, "mode")).isEqualTo("tracepoint");
  }

  @Test
  void eventsComeFromEveryTracepointFlavourAndFunctionProgramsHaveNone() {
    assertThat(KernelPart.event("tp_btf__consume_skb")).isEqualTo("consume_skb");
    assertThat(KernelPart.event("raw_tp__net_dev_queue")).isEqualTo("net_dev_queue");
    assertThat(KernelPart.event("tp__kfree_skb")).isEqualTo("kfree_skb");
    assertThat(KernelPart.event("kprobe____skb_gso_segment")).isEmpty();
    assertThatThrownBy(() -> KernelPart.attachedPrograms(PromText.parse("segscope_build_info{v=\"1\"} 1\n")))
        .hasMessageContaining("names no tracepoint program");
  }

  @Test
  void mixedAttachTypesAreAnError() {
    PromText m = PromText.parse(ATTACHED + "segscope_probe_attached{attach=\"raw_tp\",mode=\"tracepoint\","
        + "path=\"gso_tx\",program=\"raw_tp__kfree_skb\"} 1\n");
    assertThatThrownBy(() -> KernelPart.label(m, "attach")).hasMessageContaining("[tp_btf, raw_tp]");
  }

  @Test
  void theOracleCountsOnlyFreesAtTheSegmentationSiteAndItsClones() {
    Map<String, Long> freed = new LinkedHashMap<>();
    freed.put("validate_xmit_skb,4026532315,up0", 100L);
    freed.put("validate_xmit_skb.isra.0,4026532315,up0", 5L);
    freed.put("skb_defer_free_flush,4026532315,up0", 7000L);
    freed.put("validate_xmit_skbx,4026532315,up0", 1L);
    assertThat(KernelPart.segmented(freed)).containsExactly(Map.entry("4026532315,up0", 105L));
    assertThat(KernelPart.segmented(null)).isEmpty();
    assertThatThrownBy(() -> KernelPart.segmented(Map.of("nocommas", 1L))).hasMessageContaining("site,netns,device");
  }

  @Test
  void accuracyIsPerLabDeviceFromTheAgentsDeltasAndTheOraclesMaps() {
    Netns sw = new Netns("sg0001-s1sw", 4026532315L);
    Netns snd = new Netns("sg0001-s1snd", 4026532314L);
    Map<String, DeviceAt> devices = new LinkedHashMap<>();
    devices.put("sender", new DeviceAt(snd, "snd0"));
    devices.put("uplink", new DeviceAt(sw, "up0"));
    Topology s1 = new Topology("s1-gso-mismatch", snd, snd, "198.18.1.2", devices);
    PromText before = PromText.parse("""
        segscope_gso_sw_skbs_total{device="up0",netns="4026532315"} 10
        segscope_gso_sw_segments_total{device="up0",netns="4026532315"} 400
        segscope_gso_sw_bytes_total{device="up0",netns="4026532315"} 600000
        segscope_gso_offloaded_skbs_total{device="snd0",netns="4026532314"} 50
        segscope_probe_diagnostic_total{kind="segmented_untracked"} 2
        """);
    PromText after = PromText.parse("""
        segscope_gso_sw_skbs_total{device="up0",netns="4026532315"} 1010
        segscope_gso_sw_segments_total{device="up0",netns="4026532315"} 45400
        segscope_gso_sw_bytes_total{device="up0",netns="4026532315"} 65600000
        segscope_gso_offloaded_skbs_total{device="up0",netns="4026532315"} 3
        segscope_gso_offloaded_skbs_total{device="snd0",netns="4026532314"} 1150
        segscope_probe_diagnostic_total{kind="segmented_untracked"} 2
        """);
    Map<String, Map<String, Long>> oracle = Map.of(
        "@freed_skbs", Map.of("validate_xmit_skb,4026532315,up0", 1000L),
        "@freed_segs", Map.of("validate_xmit_skb,4026532315,up0", 45000L),
        "@freed_bytes", Map.of("validate_xmit_skb,4026532315,up0", 65000000L),
        "@xmit_gso_skbs", Map.of("4026532315,up0", 3L, "4026532314,snd0", 1099L));
    AccuracyResult a = KernelPart.accuracy(List.of(s1), before, after, oracle);
    assertThat(a.devices()).hasSize(2);
    AccuracyResult.DeviceCount up = a.devices().get(1);
    assertThat(up).isEqualTo(new AccuracyResult.DeviceCount("s1-gso-mismatch", "uplink", 4026532315L, "up0", 1000,
        1000, 45000, 45000, 65000000, 65000000, 3, 3));
    assertThat(up.worstError()).isZero();
    AccuracyResult.DeviceCount sender = a.devices().get(0);
    assertThat(sender.agentOffloaded()).isEqualTo(1100);
    assertThat(sender.worstError()).isEqualTo(1.0 / 1100);
    assertThat(a.worstError()).isEqualTo(1.0 / 1100);
    assertThat(a.untracked()).isZero();
  }
}

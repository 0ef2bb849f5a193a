package io.segscope.bench.part;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class CostAccuracyPartTest {
  @Test
  void onlyValidateXmitSkbAndItsClonesCountAsSegmentation() {
    Map<String, Long> oracle = Map.of(
        "validate_xmit_skb.isra.0,4026532315,up0", 100L,
        "validate_xmit_skb,4026532315,up0", 5L,
        "validate_xmit_skb_list,4026532315,up0", 7L,
        "skb_defer_free_flush,4026532315,up0", 9L,
        "tcp_recvmsg,4026532999,rcv0", 3L,
        "validate_xmit_skb.isra.0,4026532316,dev,with,commas", 2L);
    Map<String, Long> seg = new HashMap<>();
    Map<String, Long> other = new TreeMap<>();
    CostAccuracyPart.fold(oracle, seg, other, Set.of(4026532315L));
    assertThat(seg).containsOnly(Map.entry("4026532315,up0", 105L), Map.entry("4026532316,dev,with,commas", 2L));
    // other sites only on lab namespaces
    assertThat(other).containsOnly(Map.entry("validate_xmit_skb_list on up0", 7L),
        Map.entry("skb_defer_free_flush on up0", 9L));
  }

  @Test
  void aKeyOfTheWrongShapeIsAnError() {
    assertThatThrownBy(() -> CostAccuracyPart.fold(Map.of("justone", 1L), new HashMap<>(), new HashMap<>(), Set.of()))
        .hasMessageContaining("justone");
  }

  @Test
  void theEquivalentScriptTemplateHasItsPlaceholderAndTheOracleCountsBySite() throws Exception {
    assertThat(CostAccuracyPart.resource("equivalent.bt")).contains("@VXS_CHECK@")
        .contains("tracepoint:net:net_dev_queue").contains("tracepoint:qdisc:qdisc_dequeue")
        .contains("tracepoint:skb:consume_skb").contains("tracepoint:net:net_dev_start_xmit");
    assertThat(CostAccuracyPart.resource("oracle.bt")).contains("ksym(args->location)").doesNotContain("@VXS_CHECK@");
  }
}

package io.segscope.bench.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** bpftrace v0.17 -f json output, as recorded on the development machine. */
class BpftraceRunTest {
  @Test
  void readsKeyedAndScalarMapsAndSkipsTheRest() {
    String out =
        """
            {"type": "attached_probes", "data": {"probes": 2}}


            {"type": "map", "data": {"@freed_skbs": {"skb_defer_free_flush,0,": 3126, "validate_xmit_skb.isra.0,4026532315,up0": 24745}}}
            {"type": "hist", "data": {"@h": [{"min": 1, "max": 1, "count": 4}]}}
            {"type": "map", "data": {"@untracked": 0}}
            """;
    Map<String, Map<String, Long>> maps = BpftraceRun.parseMaps(out);
    assertThat(maps).containsOnlyKeys("@freed_skbs", "@untracked");
    assertThat(maps.get("@freed_skbs")).containsEntry("validate_xmit_skb.isra.0,4026532315,up0", 24745L)
        .containsEntry("skb_defer_free_flush,0,", 3126L);
    assertThat(maps.get("@untracked")).containsEntry("", 0L);
  }
}

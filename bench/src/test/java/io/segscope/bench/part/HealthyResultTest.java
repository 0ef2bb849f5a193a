package io.segscope.bench.part;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class HealthyResultTest {
  private static HealthyResult result(long queueRuns) {
    return new HealthyResult(10, 15.2, List.of(
        new KernelResult.ProgramCost("tp_btf__consume_skb", "consume_skb", 200_000, 200_000L * 44),
        new KernelResult.ProgramCost("tp_btf__kfree_skb", "kfree_skb", 10, 10L * 50),
        new KernelResult.ProgramCost("tp_btf__net_dev_queue", "net_dev_queue", queueRuns, queueRuns * 40)),
        List.of(new KernelResult.EventRate("consume_skb", true, 200_000, 200_000L * 40),
            new KernelResult.EventRate("net_dev_start_xmit", false, 1_000_000, 1_000_000L * 38)));
  }

  @Test
  void onlyTheProgramsThatRanAreListedAndTheirRatioIsAgainstTheEmptyProgramOfTheirEvent() {
    HealthyResult h = result(0);
    assertThat(h.ran()).containsExactly("consume_skb", "kfree_skb");
    assertThat(h.ratioToEmpty("consume_skb")).isCloseTo(1.1, within(1e-12));
    assertThat(h.ratioToEmpty("net_dev_queue")).as("did not run").isNaN();
    assertThat(h.runsPerTransmittedSkb()).isCloseTo(200_010 / 1e6, within(1e-12));
    assertThat(result(5).ran()).containsExactly("consume_skb", "kfree_skb", "net_dev_queue");
  }
}

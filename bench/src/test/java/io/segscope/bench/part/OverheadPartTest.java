package io.segscope.bench.part;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.segscope.lab.IperfResult;
import java.util.List;
import org.junit.jupiter.api.Test;

class OverheadPartTest {
  private static OverheadResult.Run run(int pair, String s, boolean with, double gbps) {
    return new OverheadResult.Run(pair, s, with, gbps, with ? 50 : 40, 30);
  }

  @Test
  void ratiosArePerPairWithOverWithout() {
    List<OverheadResult.Run> runs = List.of(run(0, "S1", true, 9), run(0, "S1", false, 10),
        run(1, "S1", false, 10), run(1, "S1", true, 10), run(2, "S1", true, 11), run(2, "S1", false, 10),
        run(0, "S0", true, 1), run(0, "S0", false, 100));
    OverheadResult.Summary s = OverheadPart.summary(runs, "S1");
    assertThat(s.pairs()).isEqualTo(3);
    assertThat(s.throughputRatio().median()).isCloseTo(1.0, within(1e-12));
    assertThat(s.throughputRatio().min()).isCloseTo(0.9, within(1e-12));
    assertThat(s.throughputRatio().max()).isCloseTo(1.1, within(1e-12));
    assertThat(s.senderCpuRatio().median()).isCloseTo(1.25, within(1e-12));
    assertThat(s.gbpsWith()).isEqualTo(10.0);
  }

  @Test
  void aScenarioWithoutACompletePairIsAnError() {
    assertThatThrownBy(() -> OverheadPart.summary(List.of(run(0, "S1", true, 9)), "S1"))
        .hasMessageContaining("no complete pair");
  }

  @Test
  void cpuComesFromIperfsOwnAccounting() {
    String json = "{\"end\":{\"cpu_utilization_percent\":{\"host_total\":41.5,\"remote_total\":63.25}}}";
    assertThat(OverheadPart.cpu(new IperfResult(1, 1, json))).containsExactly(41.5, 63.25);
    assertThatThrownBy(() -> OverheadPart.cpu(new IperfResult(1, 1, "{\"end\":{}}")))
        .hasMessageContaining("cpu_utilization_percent");
  }
}

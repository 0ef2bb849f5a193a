package io.segscope.bench.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.agent.advice.AdviceContext;
import io.segscope.agent.advice.Finding;
import io.segscope.agent.advice.Recommender;
import io.segscope.agent.cost.CostModel;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.probes.gso.DeviceCounters;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The JMH input is what the hot paths would see on a real host: checked here, so the timings mean something. */
class FleetTest {
  @Test
  void mapEntriesDecodeToTheIntendedCountersSummedOverCpus() {
    Fleet f = new Fleet(40, 2);
    List<DeviceCounters> c = f.decode(f.values);
    assertThat(c).hasSize(40);
    DeviceCounters sw = c.get(1); // fb0: every tenth b-side device segments in software
    assertThat(sw.kernelName()).isEqualTo("fb0");
    assertThat(sw.netns()).isEqualTo(Fleet.NS_B);
    assertThat(sw.swSkbs()).isEqualTo(2000);
    assertThat(sw.swSegments()).isEqualTo(2000 * 45);
    assertThat(sw.cause(DeviceCounters.Cause.GSO_MAX_SIZE)).isEqualTo(2000);
    assertThat(sw.durationSlots()[14]).isEqualTo(2000);
    assertThat(sw.segmentSlots()[6]).isEqualTo(2000);
    DeviceCounters off = c.get(2);
    assertThat(off.swSkbs()).isZero();
    assertThat(off.offloadedSkbs()).isEqualTo(2 * (2000 + 2));
    assertThat(c.stream().filter(d -> d.swSkbs() > 0)).hasSize(2);
  }

  @Test
  void snapshotsNameEveryDeviceAndTheRecommenderFindsTheMismatches() {
    Fleet f = new Fleet(40, 2);
    TelemetrySnapshot a = f.snapshot(f.decode(f.values), Fleet.T0);
    TelemetrySnapshot b = f.snapshot(f.decode(f.valuesAt(2)), Fleet.T0.plusSeconds(5));
    assertThat(a.gso()).hasSize(40);
    assertThat(a.devices()).hasSize(40 + 2); // plus a macvlan on each software-segmenting device
    assertThat(a.gso().get(0).device().device()).startsWith("f");
    List<Finding> findings = new Recommender().evaluate(CostModel.window(a, b).values(),
        new AdviceContext(f.inventory, AdviceContext.Thresholds.DEFAULT, true));
    assertThat(findings).hasSize(2).allSatisfy(x -> assertThat(x.rule()).isEqualTo("gso_size_mismatch"));
  }
}

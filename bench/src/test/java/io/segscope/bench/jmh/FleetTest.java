package io.segscope.bench.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.segscope.agent.telemetry.TelemetryPipeline;
import io.segscope.exporters.RecordErrors;
import io.segscope.exporters.SelfMetrics;
import io.segscope.exporters.model.GsoDeviceStats;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.probes.ProbeReading;
import io.segscope.probes.wire.Counts;
import io.segscope.probes.wire.DeviceReading;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** The JMH input is what the hot paths would see on a real host: checked here, so the timings mean something. */
class FleetTest {
  @Test
  void readingsHaveOffloadedTrafficEverywhereAndSoftwareSegmentationOnEveryTenthBSideDevice() {
    Fleet f = new Fleet(40, 2);
    ProbeReading r = f.reading(2);
    assertThat(r.devices()).hasSize(40);
    DeviceReading sw = r.devices().get(1); // fb0
    assertThat(sw.kernelName()).isEqualTo("fb0");
    assertThat(sw.id().netns()).isEqualTo(Fleet.NS_B);
    assertThat(sw.counts().swSkbs()).isEqualTo(2000);
    assertThat(sw.counts().swSegments()).isEqualTo(2000 * 45);
    assertThat(sw.gso()).isPresent();
    assertThat(sw.gso().get().timed()).isEqualTo(2000);
    DeviceReading off = r.devices().get(2);
    assertThat(off.counts().swSkbs()).isZero();
    assertThat(off.gso()).isEmpty();
    assertThat(off.offloadedSkbs()).isEqualTo(4002);
    assertThat(r.devices().stream().filter(d -> d.counts().swSkbs() > 0)).hasSize(2);
    // inventory: every device, plus a macvlan on each software-segmenting one
    assertThat(f.inventory.devices()).hasSize(42);
  }

  @Test
  void theMapBytesSumBackToTheCountersOverTheCpus() {
    Fleet f = new Fleet(20, 3);
    byte[][] values = f.counterValues(1);
    for (int i = 0; i < 20; i++) {
      Counts sum = Counts.sumPerCpu(ByteBuffer.wrap(values[i]).order(ByteOrder.nativeOrder()), 0, 3, Counts.SIZE);
      assertThat(sum).as("device %d", i).isEqualTo(f.reading(1).devices().get(i).counts());
    }
  }

  @Test
  void theReaderNamesEveryDeviceAndTheRecommenderFindsTheMismatches() {
    Fleet f = new Fleet(40, 2);
    Fleet.Probes probes = new Fleet.Probes(f.reading(1), f.attachments);
    Fleet.StepClock clock = new Fleet.StepClock();
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    RecordErrors errors = new RecordErrors(meters);
    TelemetryPipeline t = f.service(probes, clock, new SelfMetrics(meters), errors);
    // past the advice window and the open-after hold, one read interval at a time
    for (int read = 1; read <= 14; read++) {
      probes.reading = f.reading(read);
      clock.now = Fleet.T0.plusSeconds(5L * read);
      t.turn();
    }
    TelemetrySnapshot s = t.latest();
    assertThat(s.gso()).hasSize(40);
    assertThat(s.gso().stream().filter(g -> g.swSkbs() > 0).map(GsoDeviceStats::device).map(d -> d.device()))
        .containsExactlyInAnyOrder("fb0", "fb10");
    assertThat(s.devices()).hasSize(42);
    assertThat(RecordErrors.KINDS.stream().mapToDouble(errors::count).sum()).as("no record refused").isZero();
    assertThat(s.recommendations()).isNotEmpty();
  }
}

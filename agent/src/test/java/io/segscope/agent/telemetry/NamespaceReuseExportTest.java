package io.segscope.agent.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.segscope.agent.advice.AdviceContext;
import io.segscope.agent.advice.Advisor;
import io.segscope.agent.workload.Workloads;
import io.segscope.exporters.RecordErrors;
import io.segscope.exporters.SelfMetrics;
import io.segscope.exporters.model.BuildInfo;
import io.segscope.exporters.model.GsoDeviceStats;
import io.segscope.probes.ProbeReading;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The read that meets a reused namespace inode exports only the new namespace's counters: the
 * destroyed namespace's entry is left out of that very snapshot (and forgotten once it has been still
 * for the grace), so no scrape ever shows its total under the labels (netns inode, ifindex, device) the
 * new namespace now has.
 */
class NamespaceReuseExportTest {
  @Test
  void theNewNamespaceStartsAtZeroInTheFirstSnapshotThatSeesIt() {
    var probes = new TelemetryPipelineTest.RecordedProbes();
    var inv = VanishedDevicesTest.inventory(List.of(VanishedDevicesTest.ns(VanishedDevicesTest.ROOT, "", 1),
        VanishedDevicesTest.ns(VanishedDevicesTest.LAB, "c", 4121)),
        VanishedDevicesTest.device(VanishedDevicesTest.LAB, 2, "a0"));
    probes.reading = new ProbeReading(1, List.of(
        VanishedDevicesTest.reading(4117, VanishedDevicesTest.LAB, 2, "a0", 500),
        VanishedDevicesTest.reading(4121, VanishedDevicesTest.LAB, 2, "a0", 3)), Map.of());
    var meters = new SimpleMeterRegistry();
    var t = new TelemetryPipeline(probes, new SelfCost(SelfCost.Mode.OFF, Duration.ofSeconds(1),
        Duration.ofSeconds(60), List::of), () -> inv, Workloads::none,
        new Advisor(Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofMinutes(2),
            AdviceContext.Thresholds.DEFAULT, false),
        new BuildInfo("test", "0.26.0", "6.18"), new SelfMetrics(meters), new RecordErrors(meters),
        DeviceSelection.Config.DEFAULT, VanishedDevices.GRACE,
        Clock.fixed(VanishedDevicesTest.T0, ZoneOffset.UTC));
    t.turn();
    assertThat(t.latest().gso()).singleElement().satisfies(g -> {
      assertThat(g.device().netns()).isEqualTo(VanishedDevicesTest.LAB);
      assertThat(g.device().ifindex()).isEqualTo(2);
      assertThat(g.swSkbs()).as("the new namespace's own count, not the old total").isEqualTo(3);
    });
    assertThat(probes.forgotten).as("kept in the maps until still for the grace").isEmpty();
    assertThat(t.latest().gso()).extracting(GsoDeviceStats::swSkbs).doesNotContain(500L);
  }
}

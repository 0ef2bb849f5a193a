package io.segscope.agent.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.exporters.model.BuildInfo;
import io.segscope.exporters.model.DeviceRef;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.probes.ProbeAttachment;
import io.segscope.probes.ProbeReading;
import io.segscope.probes.gso.DeviceCounters;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each path's series carry that path's mode; an unmeasured path (mode "") yields none. */
class SnapshotAssemblerTest {
  private static final BuildInfo BUILD = new BuildInfo("test", "0.26.0", "6.1.0");

  private static DeviceCounters counters(long swSkbs, long xdpCopied) {
    long[] causes = new long[5];
    causes[1] = swSkbs;
    return new DeviceCounters(4026531840L, 3, "up0", swSkbs, swSkbs * 10, swSkbs * 65000, swSkbs, swSkbs * 5000,
        0, 0, causes, new long[40], new long[18], xdpCopied, 0, xdpCopied * 60000, xdpCopied, xdpCopied * 900,
        new long[40]);
  }

  private static TelemetrySnapshot assemble(Map<String, String> modes, DeviceCounters c) {
    ProbeReading reading = new ProbeReading(0, List.of(c), Map.of());
    List<ProbeAttachment> attachments = List.of(
        new ProbeAttachment("gso_tx", "kprobe____skb_gso_segment", "kprobe", "kprobe:__skb_gso_segment", true, ""));
    return new SnapshotAssembler(BUILD).assemble(Instant.EPOCH, reading, attachments, List.of(),
        modes.getOrDefault("gso_tx", ""), modes.getOrDefault("xdp_generic", ""),
        (netns, ifindex, name) -> new DeviceRef(netns, "", ifindex, name));
  }

  @Test
  void gsoAndXdpSeriesCarryTheirOwnPathsMode() {
    TelemetrySnapshot s = assemble(Map.of("gso_tx", "kprobe", "xdp_generic", "fentry"), counters(7, 5));
    assertThat(s.gso()).singleElement().satisfies(g -> assertThat(g.mode()).isEqualTo("kprobe"));
    assertThat(s.xdp()).singleElement().satisfies(x -> assertThat(x.mode()).isEqualTo("fentry"));
    assertThat(s.probes()).singleElement().satisfies(p -> assertThat(p.mode()).isEqualTo("kprobe"));
  }

  @Test
  void anUnmeasuredPathYieldsNoSeries() {
    TelemetrySnapshot s = assemble(Map.of("xdp_generic", "tracepoint"), counters(7, 5));
    assertThat(s.gso()).isEmpty();
    assertThat(s.xdp()).singleElement().satisfies(x -> assertThat(x.mode()).isEqualTo("tracepoint"));
  }
}

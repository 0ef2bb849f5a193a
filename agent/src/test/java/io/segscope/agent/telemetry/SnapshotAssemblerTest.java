package io.segscope.agent.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.device.DeviceId;
import io.segscope.exporters.model.BuildInfo;
import io.segscope.exporters.model.DeviceRef;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.probes.ProbeAttachment;
import io.segscope.probes.ProbeReading;
import io.segscope.probes.wire.Counts;
import io.segscope.probes.wire.DeviceReading;
import io.segscope.probes.wire.DurationBuckets;
import io.segscope.probes.wire.GsoDetail;
import io.segscope.probes.wire.XdpDetail;
import io.segscope.vocabulary.Cause;
import io.segscope.vocabulary.GsoType;
import io.segscope.vocabulary.Site;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Each path's series carry that path's mode; an unmeasured path (mode "") yields none; enums map by table. */
class SnapshotAssemblerTest {
  private static final BuildInfo BUILD = new BuildInfo("test", "0.26.0", "6.1.0");

  private static DeviceReading reading(long swSkbs, long xdpCopied) {
    Counts c = new Counts(swSkbs + 3, (swSkbs + 3) * 65000, 0, swSkbs, swSkbs * 10, swSkbs * 65000, swSkbs,
        xdpCopied, xdpCopied * 60000, 0, 0);
    long[] causes = new long[Cause.values().length];
    causes[Cause.GSO_MAX_SIZE.ordinal()] = swSkbs;
    long[] sites = new long[Site.values().length];
    sites[Site.XMIT.ordinal()] = swSkbs;
    long[] types = new long[GsoType.values().length];
    types[GsoType.TCP4.ordinal()] = swSkbs;
    long[] dur = new long[DurationBuckets.SLOTS];
    dur[DurationBuckets.slotOf(5000)] = swSkbs;
    long[] seg = new long[GsoDetail.SEG_SLOTS];
    seg[5] = swSkbs; // native index 4 = (8, 16] segments
    Optional<GsoDetail> gso = swSkbs == 0 ? Optional.empty()
        : Optional.of(new GsoDetail("up0", swSkbs, swSkbs * 5000, causes, sites, types, seg, dur));
    long[] xdur = new long[DurationBuckets.SLOTS];
    xdur[DurationBuckets.slotOf(900)] = xdpCopied;
    Optional<XdpDetail> xdp = xdpCopied == 0 ? Optional.empty()
        : Optional.of(new XdpDetail("up0", xdpCopied, xdpCopied * 900, xdur));
    return new DeviceReading(new DeviceId(7, 4026531840L, 3), "up0", c, 3, gso, xdp);
  }

  private static TelemetrySnapshot assemble(Map<String, String> modes, DeviceReading r) {
    ProbeReading reading = new ProbeReading(0, List.of(r), Map.of());
    List<ProbeAttachment> attachments = List.of(new ProbeAttachment("gso_tx", "kprobe____skb_gso_segment", "kprobe",
        "kprobe:__skb_gso_segment", "kprobe", true, false, ""));
    return new SnapshotAssembler(BUILD).assemble(Instant.EPOCH, reading, attachments, SelfCost.Reading.NONE,
        modes.getOrDefault("gso_tx", ""), modes.getOrDefault("xdp_generic", ""),
        (key, name) -> new DeviceRef(DeviceId.of(key.netns(), key.ifindex()), "", name));
  }

  @Test
  void gsoAndXdpSeriesCarryTheirOwnPathsMode() {
    TelemetrySnapshot s = assemble(Map.of("gso_tx", "kprobe", "xdp_generic", "fentry"), reading(7, 5));
    assertThat(s.gso()).singleElement().satisfies(g -> assertThat(g.mode()).isEqualTo("kprobe"));
    assertThat(s.xdp()).singleElement().satisfies(x -> assertThat(x.mode()).isEqualTo("fentry"));
    assertThat(s.probes()).singleElement().satisfies(p -> {
      assertThat(p.mode()).isEqualTo("kprobe");
      assertThat(p.attach()).isEqualTo("kprobe");
    });
  }

  @Test
  void anUnmeasuredPathYieldsNoSeries() {
    TelemetrySnapshot s = assemble(Map.of("xdp_generic", "tracepoint"), reading(7, 5));
    assertThat(s.gso()).isEmpty();
    assertThat(s.xdp()).singleElement().satisfies(x -> assertThat(x.mode()).isEqualTo("tracepoint"));
  }

  @Test
  void countsCausesSitesAndHistogramsArriveAsCounted() {
    TelemetrySnapshot s = assemble(Map.of("gso_tx", "tracepoint", "xdp_generic", "kprobe"), reading(7, 5));
    var g = s.gso().get(0);
    assertThat(g.swSkbs()).isEqualTo(7);
    assertThat(g.offloadedSkbs()).isEqualTo(3);
    assertThat(g.cause(Cause.GSO_MAX_SIZE)).isEqualTo(7);
    assertThat(g.site(Site.XMIT)).isEqualTo(7);
    assertThat(g.type(io.segscope.vocabulary.GsoType.TCP4)).isEqualTo(7);
    assertThat(g.duration().count()).isEqualTo(7);
    assertThat(g.duration().sum()).isEqualTo(35_000 / 1e9);
    assertThat(g.duration().quantile(0.5) * 1e9).isBetween(4700.0, 5200.0);
    assertThat(g.segmentsPerSkb().count(4)).isEqualTo(7);
    assertThat(s.xdp().get(0).copyDuration()).hasValueSatisfying(h -> assertThat(h.count()).isEqualTo(5));
  }

}

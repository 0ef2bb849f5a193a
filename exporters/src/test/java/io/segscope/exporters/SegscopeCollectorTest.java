package io.segscope.exporters;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.segscope.exporters.model.BuildInfo;
import io.segscope.exporters.model.GsoDeviceStats;
import io.segscope.exporters.model.ProbeStatus;
import io.segscope.exporters.model.TelemetrySnapshot;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

class SegscopeCollectorTest {
  private final List<String> errors = new ArrayList<>();

  private SegscopeCollector collector(TelemetrySnapshot snapshot) {
    return new SegscopeCollector(
        () -> snapshot, (kind, record, cause) -> errors.add(kind + ": " + cause.getMessage()));
  }

  private static String openMetrics(MetricSnapshots snapshots) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    OpenMetricsTextFormatWriter.create().write(out, snapshots, EscapingScheme.DEFAULT);
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void fullSnapshotMatchesGoldenOpenMetrics() throws IOException {
    GoldenFiles.assertMatches("full.om.txt", openMetrics(collector(Fixtures.full()).collect()));
    assertThat(errors).isEmpty();
  }

  @Test
  void snapshotWithoutDevicesStillExportsProbesAndBuildInfo() throws IOException {
    String text = openMetrics(collector(Fixtures.noDevices()).collect());
    GoldenFiles.assertMatches("no-devices.om.txt", text);
    assertThat(text)
        .contains(
            "segscope_probe_attached{attach=\"tp_btf\",mode=\"tracepoint\",path=\"gso_tx\",program=\"tp_btf__consume_skb\",schedule=\"always\"} 0")
        .contains("segscope_build_info{kernel=\"6.18.0-test\",libbcc=\"0.26.0\",version=\"0.1.0\"} 1")
        .doesNotContain("segscope_gso_");
  }

  @Test
  void emptySnapshotExportsUnknownBuildInfoAndZeroTimestamp() throws IOException {
    String text = openMetrics(collector(TelemetrySnapshot.empty()).collect());
    assertThat(text)
        .contains("segscope_build_info{kernel=\"unknown\",libbcc=\"unknown\",version=\"unknown\"} 1")
        .contains("segscope_snapshot_timestamp_seconds 0.0");
  }

  @Test
  void duplicateRecordIsSkippedWholeAndReportedWhileTheRestIsExported() throws IOException {
    GsoDeviceStats first = Fixtures.uplinkGso();
    GsoDeviceStats sameLabels =
        new GsoDeviceStats(
            Fixtures.UPLINK, "tracepoint", 99, 99, 99,
            Fixtures.EMPTY_DURATION, Fixtures.EMPTY_SEGMENTS, 99, Map.of(), Map.of(), Map.of());
    TelemetrySnapshot snapshot =
        TelemetrySnapshot.builder()
            .addGso(first)
            .addGso(sameLabels)
            .addGso(Fixtures.healthyVethGso())
            .addProbe(new ProbeStatus("gso_tx", "p", "tracepoint", "tp_btf", true))
            .build();

    String text = openMetrics(collector(snapshot).collect());

    assertThat(errors).singleElement().asString().startsWith("gso: add series segscope_gso_sw_skbs");
    assertThat(text)
        .contains("segscope_gso_sw_skbs_total{device=\"uplink0\",mode=\"tracepoint\",netns=\"4026532281\"} 10.0")
        .contains(
            "segscope_gso_offloaded_skbs_total{device=\"veth-s1\",mode=\"tracepoint\",netns=\"4026531840\"} 1200.0")
        .contains("segscope_probe_attached{attach=\"tp_btf\",mode=\"tracepoint\",path=\"gso_tx\",program=\"p\",schedule=\"always\"} 1")
        .doesNotContain(" 99.0");
  }

  @Test
  void sameDeviceInTwoModesCollidesOnTheCauseFamilyWhichHasNoModeLabel() {
    GsoDeviceStats kprobe =
        new GsoDeviceStats(
            Fixtures.UPLINK, "kprobe", 1, 1, 1,
            Fixtures.EMPTY_DURATION, Fixtures.EMPTY_SEGMENTS, 1, Map.of(), Map.of(), Map.of());
    TelemetrySnapshot snapshot =
        TelemetrySnapshot.builder().addGso(Fixtures.uplinkGso()).addGso(kprobe).build();

    MetricSnapshots result = collector(snapshot).collect();

    assertThat(errors).singleElement().asString().contains("segscope_gso_sw_cause_skbs");
    assertThat(family(result, "segscope_gso_sw_skbs").getDataPoints()).hasSize(1);
  }

  @Test
  void failingSourceYieldsNoSegscopeFamiliesAndIsReported() {
    SegscopeCollector failing =
        new SegscopeCollector(
            () -> {
              throw new IllegalStateException("read map gso_stats: EPERM");
            },
            (kind, record, cause) -> errors.add(kind + ": " + cause.getMessage()));
    assertThat(failing.collect().size()).isZero();
    assertThat(errors).containsExactly("snapshot: read map gso_stats: EPERM");

    errors.clear();
    assertThat(collector(null).collect().size()).isZero();
    assertThat(errors).containsExactly("snapshot: snapshot source returned null");
  }

  @Test
  void everyCauseIsExportedForEveryGsoDeviceMissingOnesAsZero() {
    MetricSnapshots result =
        collector(TelemetrySnapshot.builder().addGso(Fixtures.uplinkGso()).build()).collect();
    CounterSnapshot causes = (CounterSnapshot) family(result, "segscope_gso_sw_cause_skbs");
    assertThat(causes.getDataPoints())
        .extracting(p -> p.getLabels().get("cause") + "=" + p.getValue())
        .containsExactlyInAnyOrder(
            "feature_missing=0.0", "gso_max_size=9.0", "gso_max_segs=0.0",
            "checksum=0.0", "other=1.0", "mtu=0.0", "qdisc=0.0", "tunnel_feature_missing=0.0");
    CounterSnapshot sites = (CounterSnapshot) family(result, "segscope_gso_sw_site_skbs");
    assertThat(sites.getDataPoints()).extracting(p -> p.getLabels().get("site") + "=" + p.getValue())
        .containsExactlyInAnyOrder("xmit=10.0", "ip_output_mtu=0.0", "qdisc=0.0", "xfrm=0.0", "udp_rx=0.0",
            "other=0.0");
    CounterSnapshot types = (CounterSnapshot) family(result, "segscope_gso_sw_type_skbs");
    assertThat(types.getDataPoints()).extracting(p -> p.getLabels().get("gso_type") + "=" + p.getValue())
        .contains("tcp4=10.0", "tcp6=0.0", "udp_l4=0.0", "udp_tunnel=0.0").hasSize(8);
  }

  @Test
  void untimedXdpDeviceHasCountersButNoDurationSeries() {
    MetricSnapshots result =
        collector(TelemetrySnapshot.builder().addXdp(Fixtures.untimedXdp()).build()).collect();
    assertThat(result.stream().map(s -> s.getMetadata().getName()))
        .contains("segscope_xdp_generic_skbs", "segscope_xdp_generic_copied_bytes")
        .doesNotContain("segscope_xdp_generic_copy_duration_seconds");
  }

  @Test
  void collectorDeclaresEveryFamilySoTheRegistryRejectsAConflictingName() {
    assertThat(collector(TelemetrySnapshot.empty()).getMetricFamilyDescriptors())
        .extracting(d -> d.getPrometheusName())
        .contains("segscope_gso_sw_skbs", "segscope_probe_attached", "segscope_build");
    PrometheusRegistry registry = new PrometheusRegistry();
    registry.register(collector(TelemetrySnapshot.empty()));
    Assertions.assertThatThrownBy(
        () -> registry.register(
            Gauge.builder()
                .name("segscope_probe_attached")
                .labelNames("path", "program", "mode")
                .build()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void buildInfoIsAlwaysPresent() {
    MetricSnapshots result =
        collector(TelemetrySnapshot.builder().buildInfo(new BuildInfo("1", "2", "3")).build())
            .collect();
    assertThat(family(result, "segscope_build").getDataPoints()).hasSize(1);
  }

  private static MetricSnapshot family(MetricSnapshots snapshots, String name) {
    return snapshots.stream()
        .filter(s -> s.getMetadata().getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no family " + name));
  }
}

package io.segscope.exporters;

import static io.segscope.exporters.Families.BUILD_INFO;
import static io.segscope.exporters.Families.GSO_OFFLOADED_SKBS;
import static io.segscope.exporters.Families.GSO_SW_BYTES;
import static io.segscope.exporters.Families.GSO_SW_CAUSE_SKBS;
import static io.segscope.exporters.Families.GSO_SW_DURATION;
import static io.segscope.exporters.Families.GSO_SW_SEGMENTS;
import static io.segscope.exporters.Families.GSO_SW_SEGMENTS_PER_SKB;
import static io.segscope.exporters.Families.GSO_SW_SITE_SKBS;
import static io.segscope.exporters.Families.GSO_SW_SKBS;
import static io.segscope.exporters.Families.GSO_SW_TYPE_SKBS;
import static io.segscope.exporters.Families.PROBE_ATTACHED;
import static io.segscope.exporters.Families.PROBE_CALL_SITE_RESOLVED;
import static io.segscope.exporters.Families.PROBE_RUNS;
import static io.segscope.exporters.Families.PROBE_RUN_SECONDS;
import static io.segscope.exporters.Families.SELF_COST_SAMPLED_SECONDS;
import static io.segscope.exporters.Families.SNAPSHOT_TIMESTAMP;
import static io.segscope.exporters.Families.XDP_GENERIC_COPIED_BYTES;
import static io.segscope.exporters.Families.XDP_GENERIC_COPY_DURATION;
import static io.segscope.exporters.Families.XDP_GENERIC_PASSED_BYTES;
import static io.segscope.exporters.Families.XDP_GENERIC_SKBS;

import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot.InfoDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.segscope.exporters.model.BuildInfo;
import io.segscope.exporters.model.CallSiteStatus;
import io.segscope.exporters.model.DeviceInfo;
import io.segscope.exporters.model.DeviceWorkload;
import io.segscope.exporters.model.GsoDeviceStats;
import io.segscope.exporters.model.NetnsInfo;
import io.segscope.exporters.model.ProbeStatus;
import io.segscope.exporters.model.ProgramStats;
import io.segscope.exporters.model.RecommendationInfo;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.exporters.model.VerifiedSaving;
import io.segscope.exporters.model.WorkloadInfo;
import io.segscope.exporters.model.XdpDeviceStats;
import io.segscope.vocabulary.Cause;
import io.segscope.vocabulary.GsoType;
import io.segscope.vocabulary.Site;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/** Pure translation of one {@link TelemetrySnapshot} into metric families. Stateless. */
final class SnapshotTranslator {
  private SnapshotTranslator() {}

  static MetricSnapshots translate(TelemetrySnapshot snapshot, TranslationErrorListener errors) {
    SeriesSet series = new SeriesSet(Families.ALL);
    addAll(series, snapshot.gso(), TranslationErrorListener.GSO, SnapshotTranslator::gso, errors);
    addAll(series, snapshot.xdp(), TranslationErrorListener.XDP, SnapshotTranslator::xdp, errors);
    addAll(
        series, snapshot.probes(), TranslationErrorListener.PROBE, SnapshotTranslator::probe, errors);
    addAll(
        series, snapshot.callSites(), TranslationErrorListener.PROBE, SnapshotTranslator::callSite, errors);
    addAll(
        series,
        snapshot.programs(),
        TranslationErrorListener.PROGRAM,
        SnapshotTranslator::program,
        errors);
    addAll(
        series,
        List.of(snapshot.build()),
        TranslationErrorListener.BUILD,
        SnapshotTranslator::build,
        errors);
    addAll(series, snapshot.devices(), TranslationErrorListener.DEVICE, SnapshotTranslator::device, errors);
    addAll(
        series,
        snapshot.recommendations(),
        TranslationErrorListener.RECOMMENDATION,
        SnapshotTranslator::recommendation,
        errors);
    addAll(
        series,
        snapshot.verifiedSavings(),
        TranslationErrorListener.RECOMMENDATION,
        SnapshotTranslator::verifiedSaving,
        errors);
    addAll(series, snapshot.namespaces(), TranslationErrorListener.NETNS, SnapshotTranslator::netns, errors);
    addAll(
        series,
        snapshot.deviceWorkloads(),
        TranslationErrorListener.DEVICE_WORKLOAD,
        SnapshotTranslator::deviceWorkload,
        errors);
    series.addRecord(
        List.of(
            new Sample(
                SELF_COST_SAMPLED_SECONDS,
                CounterDataPointSnapshot.builder()
                    .labels(Labels.EMPTY)
                    .value(snapshot.selfCostSampledSeconds())
                    .build())));
    series.addRecord(
        List.of(
            new Sample(
                SNAPSHOT_TIMESTAMP,
                GaugeDataPointSnapshot.builder()
                    .labels(Labels.EMPTY)
                    .value(snapshot.takenAt().toEpochMilli() / 1000.0)
                    .build())));
    return series.toSnapshots();
  }

  private static <R> void addAll(
      SeriesSet series,
      List<R> records,
      String kind,
      Function<R, List<Sample>> translate,
      TranslationErrorListener errors) {
    for (R record : records) {
      try {
        series.addRecord(translate.apply(record));
      } catch (RuntimeException e) {
        errors.translationFailed(kind, record, e);
      }
    }
  }

  static List<Sample> gso(GsoDeviceStats r) {
    String netns = r.device().netnsLabel();
    String device = r.device().device();
    List<Sample> samples = new ArrayList<>();
    samples.add(counter(GSO_SW_SKBS, r.swSkbs(), netns, device, r.mode()));
    samples.add(counter(GSO_SW_SEGMENTS, r.swSegments(), netns, device, r.mode()));
    samples.add(counter(GSO_SW_BYTES, r.swBytes(), netns, device, r.mode()));
    if (r.swSkbs() == 0) {
      // a device that only hands super-packets to its driver: its histograms and causes would be all
      // zero (docs/metrics.md); they appear, with every bucket, once it segments in software
      samples.add(counter(GSO_OFFLOADED_SKBS, r.offloadedSkbs(), netns, device, r.mode()));
      return samples;
    }
    samples.add(
        new Sample(
            GSO_SW_DURATION,
            HistogramBuckets.dataPoint(
                r.duration(),
                HistogramBuckets.DURATION_BOUNDS,
                GSO_SW_DURATION.labels(netns, device, r.mode()))));
    samples.add(
        new Sample(
            GSO_SW_SEGMENTS_PER_SKB,
            HistogramBuckets.dataPoint(
                r.segmentsPerSkb(),
                HistogramBuckets.SEGMENT_BOUNDS,
                GSO_SW_SEGMENTS_PER_SKB.labels(netns, device, r.mode()))));
    for (Cause cause : Cause.values()) {
      samples.add(counter(GSO_SW_CAUSE_SKBS, r.cause(cause), netns, device, cause.label()));
    }
    for (Site site : Site.values()) {
      samples.add(counter(GSO_SW_SITE_SKBS, r.site(site), netns, device, site.label()));
    }
    for (GsoType type : GsoType.values()) {
      samples.add(counter(GSO_SW_TYPE_SKBS, r.type(type), netns, device, type.label()));
    }
    samples.add(counter(GSO_OFFLOADED_SKBS, r.offloadedSkbs(), netns, device, r.mode()));
    return samples;
  }

  static List<Sample> xdp(XdpDeviceStats r) {
    String netns = r.device().netnsLabel();
    String device = r.device().device();
    List<Sample> samples = new ArrayList<>();
    samples.add(counter(XDP_GENERIC_SKBS, r.copiedSkbs(), netns, device, r.mode(), "copied"));
    samples.add(counter(XDP_GENERIC_SKBS, r.passedSkbs(), netns, device, r.mode(), "passed"));
    samples.add(counter(XDP_GENERIC_COPIED_BYTES, r.copiedBytes(), netns, device, r.mode()));
    samples.add(counter(XDP_GENERIC_PASSED_BYTES, r.passedBytes(), netns, device, r.mode()));
    r.copyDuration().ifPresent(d -> samples.add(
        new Sample(
            XDP_GENERIC_COPY_DURATION,
            HistogramBuckets.dataPoint(
                d, HistogramBuckets.DURATION_BOUNDS, XDP_GENERIC_COPY_DURATION.labels(netns, device, r.mode())))));
    return samples;
  }

  static List<Sample> probe(ProbeStatus r) {
    return List.of(
        new Sample(
            PROBE_ATTACHED,
            GaugeDataPointSnapshot.builder()
                .labels(PROBE_ATTACHED.labels(r.path(), r.program(), r.mode(), r.attach(), r.schedule()))
                .value(r.attached() ? 1 : 0)
                .build()));
  }

  static List<Sample> callSite(CallSiteStatus r) {
    return List.of(
        new Sample(
            PROBE_CALL_SITE_RESOLVED,
            GaugeDataPointSnapshot.builder()
                .labels(PROBE_CALL_SITE_RESOLVED.labels(r.callSite(), r.site(), r.function()))
                .value(r.resolved() ? 1 : 0)
                .build()));
  }

  static List<Sample> program(ProgramStats r) {
    return List.of(
        new Sample(
            PROBE_RUN_SECONDS,
            CounterDataPointSnapshot.builder()
                .labels(PROBE_RUN_SECONDS.labels(r.program()))
                .value(r.runTimeNanos() / 1e9)
                .build()),
        counter(PROBE_RUNS, r.runCount(), r.program()));
  }

  static List<Sample> build(BuildInfo r) {
    return List.of(
        new Sample(
            BUILD_INFO,
            InfoDataPointSnapshot.builder()
                .labels(BUILD_INFO.labels(r.version(), r.libbcc(), r.kernel()))
                .build()));
  }

  static List<Sample> device(DeviceInfo r) {
    String netns = r.device().netnsLabel();
    String device = r.device().device();
    List<Sample> samples = new ArrayList<>();
    samples.add(
        new Sample(
            Families.DEVICE_INFO,
            InfoDataPointSnapshot.builder()
                .labels(
                    Families.DEVICE_INFO.labels(
                        netns,
                        r.device().netnsName(),
                        device,
                        Integer.toString(r.device().ifindex()),
                        r.kind(),
                        r.master(),
                        r.link(),
                        r.linkNetns(),
                        r.xdpMode()))
                .build()));
    r.limits()
        .forEach(
            (limit, value) -> samples.add(gauge(Families.DEVICE_LIMITS.get(limit), value, netns, device)));
    r.features()
        .forEach(
            (name, f) -> samples.add(
                gauge(
                    Families.DEVICE_FEATURE_ACTIVE,
                    f.active() ? 1 : 0,
                    netns,
                    device,
                    name,
                    Boolean.toString(f.fixed()))));
    return samples;
  }

  static List<Sample> recommendation(RecommendationInfo r) {
    String netns = r.device().netnsLabel();
    String device = r.device().device();
    return List.of(
        new Sample(
            Families.RECOMMENDATION_INFO,
            InfoDataPointSnapshot.builder()
                .labels(
                    Families.RECOMMENDATION_INFO.labels(r.id(), r.rule(), r.severity(), netns, device, r.state()))
                .build()),
        gauge(Families.RECOMMENDATION_CPU_SAVING, r.cpuSavingCores(), r.id(), r.rule(), netns, device, r.state()));
  }

  static List<Sample> verifiedSaving(VerifiedSaving v) {
    String netns = v.device().netnsLabel();
    String device = v.device().device();
    List<Sample> samples = new ArrayList<>();
    samples.add(
        new Sample(
            Families.RECOMMENDATION_VERIFICATION,
            InfoDataPointSnapshot.builder()
                .labels(Families.RECOMMENDATION_VERIFICATION.labels(v.id(), v.rule(), netns, device, v.state(),
                    v.verdict()))
                .build()));
    if (v.verdict().equals("verified") || v.verdict().equals("worse")) {
      samples.add(gauge(Families.RECOMMENDATION_VERIFIED_SAVING, v.savingCores(), v.id(), v.rule(), netns, device,
          v.state()));
    }
    return samples;
  }

  static List<Sample> netns(NetnsInfo r) {
    return List.of(
        new Sample(
            Families.NETNS_INFO,
            InfoDataPointSnapshot.builder()
                .labels(
                    Families.NETNS_INFO.labels(
                        workloadLabels(r.workload(), r.netnsLabel(), r.netnsName())))
                .build()));
  }

  static List<Sample> deviceWorkload(DeviceWorkload r) {
    return List.of(
        new Sample(
            Families.DEVICE_WORKLOAD_INFO,
            InfoDataPointSnapshot.builder()
                .labels(
                    Families.DEVICE_WORKLOAD_INFO.labels(
                        workloadLabels(
                            r.workload(),
                            r.device().netnsLabel(),
                            r.device().device(),
                            Long.toString(r.workloadNetns()))))
                .build()));
  }

  /** {@code leading} values, then the workload's in the order of {@link Families#WORKLOAD_LABELS}. */
  private static String[] workloadLabels(
      WorkloadInfo w, String... leading) {
    String[] v = Arrays.copyOf(leading, leading.length + Families.WORKLOAD_LABELS.length);
    int i = leading.length;
    v[i++] = w.pod();
    v[i++] = w.podNamespace();
    v[i++] = w.podUid();
    v[i++] = w.container();
    v[i++] = w.kind();
    v[i] = w.name();
    return v;
  }

  private static Sample gauge(Family family, double value, String... labelValues) {
    return new Sample(
        family,
        GaugeDataPointSnapshot.builder().labels(family.labels(labelValues)).value(value).build());
  }

  private static Sample counter(Family family, long value, String... labelValues) {
    return new Sample(
        family,
        CounterDataPointSnapshot.builder()
            .labels(family.labels(labelValues))
            .value(value)
            .build());
  }
}

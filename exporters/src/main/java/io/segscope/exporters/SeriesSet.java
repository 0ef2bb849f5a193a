package io.segscope.exporters;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot.InfoDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The series of one scrape, grouped by family. A record's samples are added all or none, so a
 * record that collides with an earlier one (same family, same labels) is rejected whole.
 */
final class SeriesSet {
  private final Map<Family, Map<Labels, DataPointSnapshot>> byFamily = new LinkedHashMap<>();

  SeriesSet(List<Family> families) {
    for (Family family : families) {
      byFamily.put(family, new LinkedHashMap<>());
    }
  }

  /**
   * Adds every sample of one record.
   *
   * @throws IllegalArgumentException naming the series if one already exists (nothing is added)
   */
  void addRecord(List<Sample> samples) {
    Set<String> seen = new HashSet<>();
    for (Sample sample : samples) {
      Map<Labels, DataPointSnapshot> series = byFamily.get(sample.family());
      if (series == null) {
        throw new IllegalStateException("add series: unknown family " + sample.family().name());
      }
      Labels labels = sample.point().getLabels();
      if (series.containsKey(labels) || !seen.add(sample.family().name() + labels)) {
        throw new IllegalArgumentException(
            "add series "
                + sample.family().name()
                + labels
                + ": duplicate, another record already has these labels");
      }
    }
    for (Sample sample : samples) {
      byFamily.get(sample.family()).put(sample.point().getLabels(), sample.point());
    }
  }

  /** The families that have at least one series. */
  MetricSnapshots toSnapshots() {
    MetricSnapshots.Builder result = MetricSnapshots.builder();
    byFamily.forEach(
        (family, series) -> {
          if (!series.isEmpty()) {
            result.metricSnapshot(snapshot(family, series.values()));
          }
        });
    return result.build();
  }

  private static MetricSnapshot snapshot(
      Family family, Collection<DataPointSnapshot> points) {
    switch (family.type()) {
      case COUNTER:
        return new CounterSnapshot(family.metadata(), cast(points, CounterDataPointSnapshot.class));
      case GAUGE:
        return new GaugeSnapshot(family.metadata(), cast(points, GaugeDataPointSnapshot.class));
      case HISTOGRAM:
        return new HistogramSnapshot(
            family.metadata(), cast(points, HistogramDataPointSnapshot.class));
      case INFO:
        return new InfoSnapshot(family.metadata(), cast(points, InfoDataPointSnapshot.class));
      default:
        throw new IllegalStateException(
            "build snapshot " + family.name() + ": unsupported type " + family.type());
    }
  }

  private static <T> List<T> cast(Collection<DataPointSnapshot> points, Class<T> type) {
    List<T> result = new ArrayList<>(points.size());
    for (DataPointSnapshot point : points) {
      result.add(type.cast(point));
    }
    return result;
  }
}

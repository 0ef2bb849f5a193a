package io.segscope.exporters;

import io.prometheus.metrics.model.registry.MetricType;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricFamilyDescriptor;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.List;

/**
 * The contract of one metric family: type, name as client_java models it (without the
 * {@code _total} / {@code _info} suffix the writers append), help, unit and label names in order.
 */
record Family(MetricType type, String name, String help, Unit unit, List<String> labelNames) {
  Family {
    labelNames = List.copyOf(labelNames);
  }

  static Family counter(String name, String help, Unit unit, String... labelNames) {
    return new Family(MetricType.COUNTER, name, help, unit, List.of(labelNames));
  }

  static Family gauge(String name, String help, Unit unit, String... labelNames) {
    return new Family(MetricType.GAUGE, name, help, unit, List.of(labelNames));
  }

  static Family histogram(String name, String help, Unit unit, String... labelNames) {
    return new Family(MetricType.HISTOGRAM, name, help, unit, List.of(labelNames));
  }

  static Family info(String name, String help, String... labelNames) {
    return new Family(MetricType.INFO, name, help, null, List.of(labelNames));
  }

  MetricMetadata metadata() {
    return new MetricMetadata(name, help, unit);
  }

  MetricFamilyDescriptor descriptor() {
    return MetricFamilyDescriptor.of(type, metadata(), labelNames);
  }

  /** The labels of one series; values in the order of {@link #labelNames()}. */
  Labels labels(String... values) {
    if (values.length != labelNames.size()) {
      throw new IllegalArgumentException(
          "label " + name + ": expected values for " + labelNames + ", got " + values.length);
    }
    return Labels.of(labelNames, List.of(values));
  }
}

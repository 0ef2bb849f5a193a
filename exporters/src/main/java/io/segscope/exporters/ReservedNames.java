package io.segscope.exporters;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.config.MeterFilterReply;
import io.prometheus.metrics.model.snapshots.MetricFamilyDescriptor;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Refuses (and logs) a Micrometer meter whose exposed name is one of a snapshot family's: the two
 * are rendered apart ({@link MetricsRegistry}), so such a meter would repeat the family in the body.
 */
final class ReservedNames implements MeterFilter {
  private final Set<String> names;
  private final MeterRegistry meters;

  ReservedNames(MeterRegistry meters, List<MetricFamilyDescriptor> families) {
    this.meters = meters;
    this.names = reserved(families);
  }

  private static Set<String> reserved(List<MetricFamilyDescriptor> families) {
    Set<String> out = new HashSet<>();
    for (MetricFamilyDescriptor d : families) {
      for (String suffix : List.of("", "_total", "_info", "_created", "_bucket", "_count", "_sum", "_gcount",
          "_gsum")) {
        out.add(d.getPrometheusName() + suffix);
      }
    }
    return Set.copyOf(out);
  }

  @Override
  public MeterFilterReply accept(Meter.Id id) {
    String name = meters.config().namingConvention().name(id.getName(), id.getType(), id.getBaseUnit());
    if (names.contains(name)) {
      System.getLogger(MetricsRegistry.class.getName()).log(System.Logger.Level.WARNING,
          "register meter " + id.getName() + ": " + name + " is a segscope telemetry family; not exported");
      return MeterFilterReply.DENY;
    }
    return MeterFilterReply.NEUTRAL;
  }
}

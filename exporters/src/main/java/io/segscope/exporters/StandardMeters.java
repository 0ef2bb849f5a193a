package io.segscope.exporters;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmInfoMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import java.lang.management.ManagementFactory;

/**
 * The JVM and process meters every scrape carries, named so that {@code promtool check metrics}
 * has nothing to say: Micrometer's {@code process.cpu.time} (exported as
 * {@code process_cpu_time_ns_total}, an abbreviated unit) is replaced by the conventional
 * {@code process_cpu_seconds_total}, and {@code system.cpu.count} (a gauge with a {@code _count}
 * suffix) is exported as {@code system_cpus}. {@code process_cpu_usage} and {@code system_cpu_usage}
 * are left out: each costs more per scrape than the rest of the scrape (see {@link #bind}).
 */
final class StandardMeters {
  private StandardMeters() {}

  /**
   * Binds the meters to {@code meters}; must run before anything else registers on it.
   *
   * @return the GC binder, which must be closed to remove its notification listeners
   */
  static JvmGcMetrics bind(MeterRegistry meters) {
    meters.config().meterFilter(MeterFilter.denyNameStartsWith("process.cpu.time"));
    // ProcessorMetrics' two "recent CPU load" gauges ask the OperatingSystemMXBean, which on JDK 17 reads
    // /proc and the cgroup files on every call: 0.1-1 ms each per scrape, most of a scrape's own cost.
    // rate(process_cpu_seconds_total[1m]) is the agent's CPU; the host's is node_exporter's job.
    meters.config().meterFilter(MeterFilter.deny(id -> id.getName().equals("process.cpu.usage")
        || id.getName().equals("system.cpu.usage")));
    meters.config().meterFilter(new MeterFilter() {
      @Override
      public Meter.Id map(Meter.Id id) {
        return id.getName().equals("system.cpu.count") ? id.withName("system.cpus") : id;
      }
    });
    new JvmMemoryMetrics().bindTo(meters);
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(meters);
    new JvmThreadMetrics().bindTo(meters);
    new ClassLoaderMetrics().bindTo(meters);
    new JvmInfoMetrics().bindTo(meters);
    new ProcessorMetrics().bindTo(meters);
    new UptimeMetrics().bindTo(meters);
    new FileDescriptorMetrics().bindTo(meters);
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      FunctionCounter.builder("process.cpu", os, o -> Math.max(0, o.getProcessCpuTime()) / 1e9)
          .baseUnit("seconds")
          .description("CPU time used by the agent process (user and system)")
          .register(meters);
    }
    return gc;
  }
}

package io.segscope.exporters;

import com.sun.management.OperatingSystemMXBean;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
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
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.ToDoubleBiFunction;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * The one place that registers the agent's own meters (docs/metrics.md, <i>Exporter health</i>,
 * <i>JVM and process families</i> and <i>Agent self-metrics</i>): every name, tag, unit and
 * description is here; the parts that own the state (the map reader, the device selection, the
 * inventory, the workload resolver) hand it their state and keep the meters it returns. The
 * {@code segscope_*} telemetry families are not meters: {@link SnapshotTranslator} translates them
 * from each snapshot.
 *
 * <p>Gauges and function counters hold their state object weakly (Micrometer's rule): the caller
 * keeps it alive for as long as the meter should report.
 */
public final class SelfMetrics {
  /** Micrometer name of the skipped-record counter; exported as segscope_exporter_errors_total. */
  static final String EXPORTER_ERRORS = "segscope.exporter.errors";

  private final MeterRegistry meters;

  /** Meters on {@code meters} (the agent's: {@link MetricsRegistry#self()}; a test's: any registry). */
  public SelfMetrics(MeterRegistry meters) {
    this.meters = meters;
  }

  /**
   * The JVM and process meters every scrape carries, named so that {@code promtool check metrics}
   * has nothing to say: Micrometer's {@code process.cpu.time} (exported as
   * {@code process_cpu_time_ns_total}, an abbreviated unit) is replaced by the conventional
   * {@code process_cpu_seconds_total}, and {@code system.cpu.count} (a gauge with a {@code _count}
   * suffix) is exported as {@code system_cpus}. {@code process_cpu_usage} and
   * {@code system_cpu_usage} are left out: each costs more per scrape than the rest of the scrape.
   * Must run before anything else registers on the registry.
   *
   * @return the GC binder, which must be closed to remove its notification listeners
   */
  JvmGcMetrics bindJvmAndProcess() {
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
    if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os) {
      FunctionCounter.builder("process.cpu", os, o -> Math.max(0, o.getProcessCpuTime()) / 1e9)
          .baseUnit("seconds")
          .description("CPU time used by the agent process (user and system)")
          .register(meters);
    }
    return gc;
  }

  /** segscope_exporter_errors_total{kind}: records left out of a map read or a scrape. */
  Counter exporterErrors(String kind) {
    return Counter.builder(EXPORTER_ERRORS)
        .description("Records left out of a map read or a scrape (any name, any value): one bad record never "
            + "stops the rest. Logged once per record (see the agent log).")
        .tag("kind", kind)
        .register(meters);
  }

  /** segscope_map_read_seconds: one read of the BPF maps into a snapshot. */
  public Timer mapRead() {
    return Timer.builder("segscope.map.read")
        .description("Time to read the BPF maps once and build the snapshot")
        .register(meters);
  }

  /**
   * segscope_map_read_errors_total: failures while turning one map read into a snapshot. A read or an
   * assembly that fails as a whole keeps the previous snapshot; a failed forget of vanished devices
   * and a namespace's or device's workload left out still publish the new snapshot.
   */
  public Counter mapReadErrors() {
    return Counter.builder("segscope.map.read.errors")
        .description("Failures while turning a map read into a snapshot: a map read or snapshot assembly that "
            + "failed as a whole (the previous snapshot is kept); a failed removal of vanished devices' entries, "
            + "or a namespace's or device's workload left out (the new snapshot is still published). Each logged")
        .register(meters);
  }

  /**
   * segscope_probe_diagnostic_total{kind}, one series per kind.
   *
   * @param label the {@code kind} label of a kind
   * @param count the count of a kind so far, read from {@code state}
   */
  public <T, K> void probeDiagnostics(T state, List<K> kinds, Function<K, String> label,
      ToDoubleBiFunction<T, K> count) {
    String description = "Events the programs could not fully attribute, by kind (docs/metrics.md): "
        + kinds.stream().map(label).collect(Collectors.joining(", "));
    for (K k : kinds) {
      FunctionCounter.builder("segscope.probe.diagnostic", state, s -> count.applyAsDouble(s, k))
          .tag("kind", label.apply(k))
          .description(description)
          .register(meters);
    }
  }

  /**
   * segscope_timing_sampled_seconds_total and segscope_timing_sampled_ratio: how long the timing programs
   * (durations, quantiles, offloaded) ran, and that share of the probes' time (1 with --timing-window always).
   */
  public <T> void timingSampled(T state, ToDoubleFunction<T> seconds, ToDoubleFunction<T> ratio) {
    FunctionCounter.builder("segscope.timing.sampled.seconds", state, seconds)
        .description("How long the timing programs ran (sampling windows): the segmentation durations, their "
            + "quantiles and the offloaded count come from these windows only; counts are exact")
        .register(meters);
    Gauge.builder("segscope.timing.sampled.ratio", state, ratio)
        .description("Share of the time since the probes opened that the timing programs ran (1 = always: every "
            + "segmentation timed)")
        .register(meters);
  }

  /** segscope_devices_dropped_total and segscope_devices_reported, read from the device selection. */
  public <T> void deviceSelection(T selection, ToDoubleFunction<T> dropped, ToDoubleFunction<T> reported) {
    FunctionCounter.builder("segscope.devices.dropped", selection, dropped)
        .description("Devices left out of metrics, API and advice because --max-devices was reached; each "
            + "counted once when it appears")
        .register(meters);
    Gauge.builder("segscope.devices.reported", selection, reported)
        .description("Devices reported in metrics, API and advice (after --device-include/--device-exclude, at most "
            + "--max-devices)")
        .register(meters);
  }

  /**
   * segscope_netlink_decode_warnings_total, read from the inventory's warning count: every problem
   * the inventory worked around, not only malformed bytes.
   */
  public <T> void netlinkDecodeWarnings(T warnings, ToDoubleFunction<T> count) {
    FunctionCounter.builder("segscope.netlink.decode.warnings", warnings, count)
        .description("Problems the device inventory worked around, each logged: netlink attributes, messages "
            + "or replies skipped because they were malformed or unexpected; namespaces it could not open or "
            + "read (links, features, routes, qdiscs, nsids; tried again on the next refresh); link notifications "
            + "it could not apply; failed turns of the thread that follows devices; overflowed route/qdisc "
            + "notifications")
        .register(meters);
  }

  /**
   * segscope_inventory_last_refresh_timestamp_seconds, segscope_inventory_running and
   * segscope_inventory_resyncs_total{reason} (one series per reason), read from the inventory.
   *
   * @param lastRefreshSeconds Unix time of the last complete refresh
   * @param running 1 while the follower thread runs, else 0
   */
  public <T> void inventory(T inventory, ToDoubleFunction<T> lastRefreshSeconds, ToDoubleFunction<T> running,
      List<String> resyncReasons, ToDoubleBiFunction<T, String> resyncs) {
    Gauge.builder("segscope.inventory.last.refresh.timestamp", inventory, lastRefreshSeconds)
        .baseUnit("seconds")
        .description("When the device inventory last refreshed every namespace's links (it does every second; "
            + "a stale value means the inventory is stuck)")
        .register(meters);
    Gauge.builder("segscope.inventory.running", inventory, running)
        .description("1 while the thread that follows devices runs, 0 after it died (device names and "
            + "settings then stop changing; see the agent log and /readyz)")
        .register(meters);
    for (String reason : resyncReasons) {
      FunctionCounter.builder("segscope.inventory.resyncs", inventory, i -> resyncs.applyAsDouble(i, reason))
          .tag("reason", reason)
          .description("Times a namespace's devices were read again in full: reason=overflow when a burst of "
              + "link changes overflowed its notification socket (ENOBUFS); nothing is lost, the full read "
              + "repairs it")
          .register(meters);
    }
  }

  /** segscope_workload_errors_total{source}: {@code cri} or {@code proc}. */
  public Counter workloadErrors(String source) {
    return Counter.builder("segscope.workload.errors").tag("source", source)
        .description("Failed attempts to learn who a network namespace belongs to: CRI calls that failed or"
            + " timed out (source=cri), /proc scans that failed (source=proc)")
        .register(meters);
  }

  /** segscope_workload_refresh_seconds: one round of workload resolution. */
  public Timer workloadRefresh() {
    return Timer.builder("segscope.workload.refresh")
        .description("Time of one round of workload resolution (CRI calls and the /proc scan)")
        .register(meters);
  }

  /**
   * segscope_cri_up{endpoint}: the caller sets the returned value (1 answered, 0 not) and keeps it
   * for as long as the endpoint is asked.
   */
  public AtomicInteger criUp(String endpoint) {
    AtomicInteger up = new AtomicInteger();
    Gauge.builder("segscope.cri.up", up, AtomicInteger::get).tag("endpoint", endpoint)
        .description("1 if the container runtime at this CRI socket answered the last ListPodSandbox, else 0")
        .register(meters);
    return up;
  }
}

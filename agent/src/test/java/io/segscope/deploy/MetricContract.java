package io.segscope.deploy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The series names and labels dashboards and alert rules may use: the segscope families of the
 * metric contract (docs/metrics.md), the agent's Micrometer meters, the JVM/process
 * families the dashboards read, and the series Prometheus itself adds to every target. Every series
 * also carries the target labels {@code job} and {@code instance}.
 */
final class MetricContract {
  private static final Set<String> TARGET_LABELS = Set.of("job", "instance");
  private static final Map<String, Set<String>> SERIES = new HashMap<>();

  static {
    Set<String> dev = Set.of("netns", "device");
    Set<String> devMode = Set.of("netns", "device", "mode");
    for (String c : List.of("segscope_gso_sw_skbs_total", "segscope_gso_sw_segments_total",
        "segscope_gso_sw_bytes_total", "segscope_gso_offloaded_skbs_total",
        "segscope_xdp_generic_copied_bytes_total")) {
      SERIES.put(c, devMode);
    }
    histogram("segscope_gso_sw_duration_seconds", devMode);
    histogram("segscope_gso_sw_segments_per_skb", devMode);
    histogram("segscope_xdp_generic_copy_duration_seconds", devMode);
    SERIES.put("segscope_gso_sw_cause_skbs_total", Set.of("netns", "device", "cause"));
    SERIES.put("segscope_xdp_generic_skbs_total", Set.of("netns", "device", "mode", "outcome"));
    SERIES.put("segscope_device_info", Set.of("netns", "netns_name", "device", "ifindex", "kind", "master",
        "link", "link_netns", "xdp_mode"));
    for (String g : List.of("segscope_device_gso_max_size_bytes", "segscope_device_gso_max_segments",
        "segscope_device_tso_max_size_bytes", "segscope_device_tso_max_segments",
        "segscope_device_gro_max_size_bytes", "segscope_device_gso_ipv4_max_size_bytes",
        "segscope_device_gro_ipv4_max_size_bytes", "segscope_device_mtu_bytes")) {
      SERIES.put(g, dev);
    }
    SERIES.put("segscope_device_feature_active", Set.of("netns", "device", "feature", "fixed"));
    SERIES.put("segscope_recommendation_info", Set.of("id", "rule", "severity", "netns", "device", "state"));
    SERIES.put("segscope_recommendation_cpu_saving_ratio", Set.of("id", "rule", "netns", "device", "state"));
    SERIES.put("segscope_recommendation_verified_saving_cores", Set.of("id", "rule", "netns", "device", "state"));
    SERIES.put("segscope_recommendation_verification_info", Set.of("id", "rule", "netns", "device", "state",
        "verdict"));
    SERIES.put("segscope_probe_attached", Set.of("path", "program", "mode", "attach", "schedule"));
    SERIES.put("segscope_probe_call_site_resolved", Set.of("call_site", "site", "function"));
    SERIES.put("segscope_probe_run_seconds_total", Set.of("program"));
    SERIES.put("segscope_probe_runs_total", Set.of("program"));
    SERIES.put("segscope_build_info", Set.of("version", "libbcc", "kernel"));
    SERIES.put("segscope_snapshot_timestamp_seconds", Set.of());
    SERIES.put("segscope_exporter_errors_total", Set.of("kind"));
    Set<String> workload = Set.of("pod", "pod_namespace", "pod_uid", "container", "workload_kind", "workload");
    Set<String> netnsInfo = new TreeSet<>(workload);
    netnsInfo.addAll(Set.of("netns", "netns_name"));
    SERIES.put("segscope_netns_info", netnsInfo);
    Set<String> deviceWorkload = new TreeSet<>(workload);
    deviceWorkload.addAll(Set.of("netns", "device", "workload_netns"));
    SERIES.put("segscope_device_workload_info", deviceWorkload);
    SERIES.put("segscope_cri_up", Set.of("endpoint"));
    SERIES.put("segscope_workload_errors_total", Set.of("source"));
    // Micrometer meters of the agent
    SERIES.put("segscope_probe_diagnostic_total", Set.of("kind"));
    SERIES.put("segscope_map_read_seconds_count", Set.of());
    SERIES.put("segscope_map_read_seconds_sum", Set.of());
    SERIES.put("segscope_map_read_seconds_max", Set.of());
    SERIES.put("segscope_map_read_errors_total", Set.of());
    SERIES.put("segscope_devices_reported", Set.of());
    SERIES.put("segscope_devices_dropped_total", Set.of());
    // Micrometer binders (docs/metrics.md)
    SERIES.put("process_cpu_seconds_total", Set.of());
    SERIES.put("process_files_open_files", Set.of());
    SERIES.put("jvm_memory_used_bytes", Set.of("area", "id"));
    // added by Prometheus to every target
    SERIES.put("up", Set.of());
    SERIES.put("scrape_duration_seconds", Set.of());
    SERIES.put("scrape_samples_scraped", Set.of());
  }

  private MetricContract() {}

  private static void histogram(String base, Set<String> labels) {
    Set<String> withLe = new TreeSet<>(labels);
    withLe.add("le");
    SERIES.put(base + "_bucket", withLe);
    SERIES.put(base + "_sum", labels);
    SERIES.put(base + "_count", labels);
    SERIES.put(base, labels); // the native histogram (a Prometheus with native histograms stores only this)
  }

  /** The labels a series of this name has (target labels included), empty if the name is unknown. */
  static Optional<Set<String>> labels(String series) {
    Set<String> own = SERIES.get(series);
    if (own == null) {
      return Optional.empty();
    }
    Set<String> all = new TreeSet<>(own);
    all.addAll(TARGET_LABELS);
    return Optional.of(all);
  }

  static boolean known(String series) {
    return SERIES.containsKey(series);
  }
}

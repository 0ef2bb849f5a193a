package io.segscope.exporters;

import io.prometheus.metrics.model.snapshots.Unit;
import io.segscope.exporters.model.DeviceLimit;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Every family {@link SegscopeCollector} emits. Names and labels are the metric contract;
 * {@code docs/metrics.md} documents each one.
 */
final class Families {
  private Families() {}

  static final String NETNS = "netns";
  static final String DEVICE = "device";
  static final String MODE = "mode";

  static final Family GSO_SW_SKBS =
      Family.counter(
          "segscope_gso_sw_skbs",
          "GSO super-packets segmented in software (by the CPU) on their way out of the device.",
          null, NETNS, DEVICE, MODE);
  static final Family GSO_SW_SEGMENTS =
      Family.counter(
          "segscope_gso_sw_segments",
          "Segments produced by software GSO on the device.",
          null, NETNS, DEVICE, MODE);
  static final Family GSO_SW_BYTES =
      Family.counter(
          "segscope_gso_sw_bytes",
          "Bytes of the GSO super-packets segmented in software on the device.",
          Unit.BYTES, NETNS, DEVICE, MODE);
  static final Family GSO_SW_DURATION =
      Family.histogram(
          "segscope_gso_sw_duration_seconds",
          "Time to segment one GSO super-packet in software on the device.",
          Unit.SECONDS, NETNS, DEVICE, MODE);
  static final Family GSO_SW_SEGMENTS_PER_SKB =
      Family.histogram(
          "segscope_gso_sw_segments_per_skb",
          "Segments per GSO super-packet segmented in software on the device.",
          null, NETNS, DEVICE, MODE);
  static final Family GSO_SW_CAUSE_SKBS =
      Family.counter(
          "segscope_gso_sw_cause_skbs",
          "GSO super-packets segmented in software on the device, by the reason the device could"
              + " not take them whole.",
          null, NETNS, DEVICE, "cause");
  static final Family GSO_SW_SITE_SKBS =
      Family.counter(
          "segscope_gso_sw_site_skbs",
          "GSO super-packets segmented in software on the device, by the kernel call site that"
              + " segmented them (xmit, ip_output_mtu, qdisc, xfrm, udp_rx, other).",
          null, NETNS, DEVICE, "site");
  static final Family GSO_SW_TYPE_SKBS =
      Family.counter(
          "segscope_gso_sw_type_skbs",
          "GSO super-packets segmented in software on the device, by GSO type (tcp4, tcp6, udp_l4,"
              + " udp_tunnel, gre, ipip, fraglist, other).",
          null, NETNS, DEVICE, "gso_type");
  static final Family GSO_OFFLOADED_SKBS =
      Family.counter(
          "segscope_gso_offloaded_skbs",
          "GSO super-packets handed intact to the device's driver (segmented by the NIC or not at"
              + " all).",
          null, NETNS, DEVICE, MODE);
  static final Family XDP_GENERIC_SKBS =
      Family.counter(
          "segscope_xdp_generic_skbs",
          "Received skbs that ran through a generic (skb-mode) XDP program on the device;"
              + " outcome=copied if the kernel had to copy or linearize them first.",
          null, NETNS, DEVICE, MODE, "outcome");
  static final Family XDP_GENERIC_COPIED_BYTES =
      Family.counter(
          "segscope_xdp_generic_copied_bytes",
          "Bytes copied or linearized so a generic XDP program could run on the device.",
          Unit.BYTES, NETNS, DEVICE, MODE);
  static final Family XDP_GENERIC_PASSED_BYTES =
      Family.counter(
          "segscope_xdp_generic_passed_bytes",
          "Bytes of the skbs that reached a generic XDP program on the device without a copy.",
          Unit.BYTES, NETNS, DEVICE, MODE);
  static final Family XDP_GENERIC_COPY_DURATION =
      Family.histogram(
          "segscope_xdp_generic_copy_duration_seconds",
          "Time of one generic-XDP copy or linearization on the device (only in probe modes that"
              + " can time it).",
          Unit.SECONDS, NETNS, DEVICE, MODE);
  static final Family PROBE_ATTACHED =
      Family.gauge(
          "segscope_probe_attached",
          "1 if the probe program for this kernel path is attached in this mode, 0 if it is not;"
              + " attach is how (tp_btf, raw_tp, tracepoint, kprobe, kretprobe, fentry, fexit); schedule"
              + " is always or on_demand (attached only while needed, e.g. in the timing windows: 0 is normal).",
          null, "path", "program", MODE, "attach", "schedule");
  static final Family PROBE_CALL_SITE_RESOLVED =
      Family.gauge(
          "segscope_probe_call_site_resolved",
          "1 if the kernel call site where segscope recognises software segmentation was found in this"
              + " kernel (function: the kernel function that holds it, where it may be inlined), 0 if not:"
              + " segmentations there are not seen in tracepoint mode and carry site other in kprobe mode.",
          null, "call_site", "site", "function");
  static final Family PROBE_RUN_SECONDS =
      Family.counter(
          "segscope_probe_run_seconds",
          "CPU time the kernel spent running this segscope BPF program (bpf_stats; with --self-cost"
              + " sampled, extrapolated from the sampled windows).",
          Unit.SECONDS, "program");
  static final Family PROBE_RUNS =
      Family.counter(
          "segscope_probe_runs",
          "Times the kernel ran this segscope BPF program (bpf_stats; with --self-cost sampled,"
              + " extrapolated from the sampled windows).",
          null, "program");
  static final Family SELF_COST_SAMPLED_SECONDS =
      Family.counter(
          "segscope_self_cost_sampled_seconds",
          "Time bpf_stats was on to measure the agent's own programs (all the time with --self-cost"
              + " always, about 1 s per minute with sampled, never with off).",
          Unit.SECONDS);
  static final Family BUILD_INFO =
      Family.info(
          "segscope_build",
          "The segscope version, the libbcc version it runs with and the running kernel.",
          "version", "libbcc", "kernel");
  static final Family SNAPSHOT_TIMESTAMP =
      Family.gauge(
          "segscope_snapshot_timestamp_seconds",
          "Unix time at which the exported telemetry was read from the kernel (0 before the first"
              + " read).",
          Unit.SECONDS);

  static final Family DEVICE_INFO =
      Family.info(
          "segscope_device",
          "One series per network device in every namespace: its kind, bridge/bond master, linked"
              + " device (veth peer or lower device) and that device's namespace, and XDP attach mode.",
          NETNS, "netns_name", DEVICE, "ifindex", "kind", "master", "link", "link_netns", "xdp_mode");
  static final Map<DeviceLimit, Family> DEVICE_LIMITS = deviceLimits();
  static final Family DEVICE_FEATURE_ACTIVE =
      Family.gauge(
          "segscope_device_feature_active",
          "1 if the offload feature (ethtool name) is on for the device, 0 if off; fixed=\"true\" if"
              + " the user cannot change it.",
          null, NETNS, DEVICE, "feature", "fixed");
  static final Family RECOMMENDATION_INFO =
      Family.info(
          "segscope_recommendation",
          "One series per recommendation, state open or accepted (--advice-accept: measured, not alerted); "
              + "details: GET /api/v1/recommendations.",
          "id", "rule", "severity", NETNS, DEVICE, "state");
  static final Family RECOMMENDATION_CPU_SAVING =
      Family.gauge(
          "segscope_recommendation_cpu_saving_ratio",
          "Estimated CPU the recommendation would save, in cores (CPU seconds per second).",
          null, "id", "rule", NETNS, DEVICE, "state");
  static final Family RECOMMENDATION_VERIFIED_SAVING =
      Family.gauge(
          "segscope_recommendation_verified_saving_cores",
          "CPU a closed recommendation was measured to save: the host's kernel CPU per byte through its device "
              + "before minus after, times the traffic before; for verdict verified, and negative for worse.",
          null, "id", "rule", NETNS, DEVICE, "state");
  static final Family RECOMMENDATION_VERIFICATION =
      Family.info(
          "segscope_recommendation_verification",
          "One series per recommendation that closed because its evidence stopped: verdict verified, worse, "
              + "inconclusive, traffic_changed or no_traffic_after.",
          "id", "rule", NETNS, DEVICE, "state", "verdict");

  /** The workload labels, in the order of both workload families. */
  static final String[] WORKLOAD_LABELS = {"pod", "pod_namespace", "pod_uid", "container", "workload_kind", "workload"};

  static final Family NETNS_INFO =
      Family.info(
          "segscope_netns",
          "One series per network namespace: the pod (from the container runtime's CRI), container,"
              + " service or process it belongs to. Join it on netns; it is never copied onto other series.",
          concat(new String[] {NETNS, "netns_name"}, WORKLOAD_LABELS));
  static final Family DEVICE_WORKLOAD_INFO =
      Family.info(
          "segscope_device_workload",
          "One series per network device: the workload it serves, that of its own namespace or, for the"
              + " host side of a pod's or container's veth, that of its peer's (workload_netns). Join it on"
              + " netns and device.",
          concat(new String[] {NETNS, DEVICE, "workload_netns"}, WORKLOAD_LABELS));

  private static String[] concat(String[] a, String[] b) {
    String[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static Map<DeviceLimit, Family> deviceLimits() {
    Map<DeviceLimit, Family> m =
        new EnumMap<>(DeviceLimit.class);
    for (DeviceLimit l : DeviceLimit.values()) {
      m.put(l, Family.gauge(l.metric(), l.help(), null, NETNS, DEVICE));
    }
    return Collections.unmodifiableMap(m);
  }

  /** In the order they are translated. */
  static final List<Family> ALL =
      List.of(
          GSO_SW_SKBS,
          GSO_SW_SEGMENTS,
          GSO_SW_BYTES,
          GSO_SW_DURATION,
          GSO_SW_SEGMENTS_PER_SKB,
          GSO_SW_CAUSE_SKBS,
          GSO_SW_SITE_SKBS,
          GSO_SW_TYPE_SKBS,
          GSO_OFFLOADED_SKBS,
          XDP_GENERIC_SKBS,
          XDP_GENERIC_COPIED_BYTES,
          XDP_GENERIC_PASSED_BYTES,
          XDP_GENERIC_COPY_DURATION,
          PROBE_ATTACHED,
          PROBE_CALL_SITE_RESOLVED,
          PROBE_RUN_SECONDS,
          PROBE_RUNS,
          SELF_COST_SAMPLED_SECONDS,
          BUILD_INFO,
          SNAPSHOT_TIMESTAMP,
          DEVICE_INFO,
          DEVICE_LIMITS.get(DeviceLimit.GSO_MAX_SIZE),
          DEVICE_LIMITS.get(DeviceLimit.GSO_MAX_SEGS),
          DEVICE_LIMITS.get(DeviceLimit.TSO_MAX_SIZE),
          DEVICE_LIMITS.get(DeviceLimit.TSO_MAX_SEGS),
          DEVICE_LIMITS.get(DeviceLimit.GRO_MAX_SIZE),
          DEVICE_LIMITS.get(DeviceLimit.GSO_IPV4_MAX_SIZE),
          DEVICE_LIMITS.get(DeviceLimit.GRO_IPV4_MAX_SIZE),
          DEVICE_LIMITS.get(DeviceLimit.MTU),
          DEVICE_FEATURE_ACTIVE,
          RECOMMENDATION_INFO,
          RECOMMENDATION_CPU_SAVING,
          RECOMMENDATION_VERIFIED_SAVING,
          RECOMMENDATION_VERIFICATION,
          NETNS_INFO,
          DEVICE_WORKLOAD_INFO);
}

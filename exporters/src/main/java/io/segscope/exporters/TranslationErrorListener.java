package io.segscope.exporters;

import java.util.List;

/**
 * Told about every record {@link SegscopeCollector} could not translate and skipped, so the rest
 * of the scrape survives. {@link MetricsRegistry} counts these in
 * {@code segscope_exporter_errors_total{kind}} and logs them.
 */
@FunctionalInterface
public interface TranslationErrorListener {
  /** The kinds of input a failure can concern: the {@code kind} label of the error counter. */
  String SNAPSHOT = "snapshot";
  String GSO = "gso";
  String XDP = "xdp";
  String PROBE = "probe";
  String PROGRAM = "program";
  String BUILD = "build";
  String DEVICE = "device";
  String RECOMMENDATION = "recommendation";
  String NETNS = "netns";
  String DEVICE_WORKLOAD = "device_workload";

  /** Every kind, for pre-registering counters at 0. */
  List<String> KINDS = List.of(SNAPSHOT, GSO, XDP, PROBE, PROGRAM, BUILD, DEVICE, RECOMMENDATION, NETNS,
      DEVICE_WORKLOAD);

  /**
   * Called once per skipped record (or once per scrape if the snapshot source itself failed).
   *
   * @param kind one of {@link #KINDS}
   * @param record the record that was skipped, or null when the snapshot could not be obtained
   * @param cause why
   */
  void translationFailed(String kind, Object record, RuntimeException cause);
}

package io.segscope.exporters;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricFamilyDescriptor;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.segscope.exporters.model.TelemetrySnapshot;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Translates the current {@link TelemetrySnapshot} into the {@code segscope_*} metric families of
 * docs/metrics.md on every scrape. It only translates: it keeps no state between scrapes, so keeping
 * counters monotonic across kernel-side resets is the snapshot producer's job.
 *
 * <p>A record that cannot be translated (in practice: a second record with the same labels as an
 * earlier one) is skipped whole and reported to the {@link TranslationErrorListener}; the rest of
 * the scrape is unaffected. If the source throws or returns null, the scrape carries no
 * {@code segscope_*} families and the listener hears of it with kind {@code snapshot}.
 *
 * <p>Thread-safe if the source is.
 */
public final class SegscopeCollector implements MultiCollector {
  private static final System.Logger LOG = System.getLogger(SegscopeCollector.class.getName());
  private static final List<MetricFamilyDescriptor> DESCRIPTORS =
      Families.ALL.stream().map(Family::descriptor).toList();

  private final Supplier<TelemetrySnapshot> source;
  private final TranslationErrorListener errors;

  /** A collector that logs records it skips. */
  public SegscopeCollector(Supplier<TelemetrySnapshot> source) {
    this(source, SegscopeCollector::log);
  }

  /** A collector that reports records it skips to {@code errors} (which should log them). */
  public SegscopeCollector(Supplier<TelemetrySnapshot> source, TranslationErrorListener errors) {
    this.source = Objects.requireNonNull(source, "source");
    this.errors = Objects.requireNonNull(errors, "errors");
  }

  @Override
  public MetricSnapshots collect() {
    TelemetrySnapshot snapshot;
    try {
      snapshot = source.get();
      if (snapshot == null) {
        throw new IllegalStateException("snapshot source returned null");
      }
    } catch (RuntimeException e) {
      errors.translationFailed(TranslationErrorListener.SNAPSHOT, null, e);
      return MetricSnapshots.of();
    }
    return SnapshotTranslator.translate(snapshot, errors);
  }

  /**
   * The families this collector can emit, so the registry rejects a conflicting registration
   * (e.g. a Micrometer meter of the same name) up front.
   */
  @Override
  public List<MetricFamilyDescriptor> getMetricFamilyDescriptors() {
    return DESCRIPTORS;
  }

  /** Logs a skipped record at WARNING: "skip gso record GsoDeviceStats[...]: cause". */
  static void log(String kind, Object record, RuntimeException cause) {
    if (record == null) {
      LOG.log(Level.WARNING, "collect " + kind + ": " + cause.getMessage(), cause);
    } else {
      LOG.log(Level.WARNING, "skip " + kind + " record " + record + ": " + cause.getMessage());
    }
  }
}

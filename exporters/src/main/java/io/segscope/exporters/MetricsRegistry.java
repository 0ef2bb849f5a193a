package io.segscope.exporters;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.segscope.exporters.model.TelemetrySnapshot;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The agent's one metrics registry: the {@code segscope_*} families translated from telemetry
 * snapshots, and Micrometer meters (JVM memory, GC, threads, class loading, JVM info, process CPU,
 * uptime, open files, and whatever the agent registers on {@link #meters()}) in the same
 * {@link PrometheusRegistry}, so one scrape returns everything.
 *
 * <p>Records the collector (or the agent's snapshot assembly) has to skip are counted in
 * {@code segscope_exporter_errors_total{kind}} (present at 0 for every kind from the start) and
 * logged once each ({@link RecordErrors}).
 */
public final class MetricsRegistry implements AutoCloseable {
  /** Micrometer name of the skipped-record counter; exported as segscope_exporter_errors_total. */
  static final String ERRORS_METER = "segscope.exporter.errors";

  private final PrometheusRegistry prometheus = new PrometheusRegistry();
  private final PrometheusMeterRegistry meters;
  private final JvmGcMetrics gcMetrics;
  private final RecordErrors recordErrors;
  private final ExpositionFormats formats = ExpositionFormats.init();
  private boolean closed;

  /**
   * @param source called on every scrape for the current snapshot; must be fast and must not
   *     block (return the latest snapshot read off the event loop)
   */
  public MetricsRegistry(Supplier<TelemetrySnapshot> source) {
    Objects.requireNonNull(source, "source");
    // registered first, as before the meters; it reports to recordErrors only when scraped
    prometheus.register(new SegscopeCollector(source, (kind, record, cause) ->
        recordErrors().translationFailed(kind, record, cause)));
    meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT, prometheus, Clock.SYSTEM);
    gcMetrics = StandardMeters.bind(meters);
    recordErrors = new RecordErrors(meters);
  }

  /**
   * Where records that had to be skipped are reported (counted in
   * {@code segscope_exporter_errors_total{kind}}, logged once each): the collector's, and the
   * agent's snapshot assembly.
   */
  public RecordErrors recordErrors() {
    return recordErrors;
  }

  /** Where the agent registers its own meters (they appear in the same scrape). */
  public MeterRegistry meters() {
    return meters;
  }

  /** The registry behind every scrape. */
  public PrometheusRegistry prometheus() {
    return prometheus;
  }

  /**
   * Renders everything in the format the {@code Accept} header asks for: Prometheus protobuf
   * ({@code application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily;
   * encoding=delimited}), OpenMetrics 1.0 ({@code application/openmetrics-text}), otherwise (also
   * for a null or empty header) Prometheus text 0.0.4.
   *
   * @param acceptHeader the HTTP Accept header, may be null
   */
  public Scrape scrape(String acceptHeader) throws IOException {
    String accept = acceptHeader == null ? "" : acceptHeader;
    ExpositionFormatWriter writer = formats.findWriter(accept);
    EscapingScheme escaping = EscapingScheme.fromAcceptHeader(accept);
    ByteArrayOutputStream body = new ByteArrayOutputStream(64 * 1024);
    writer.write(body, prometheus.scrape(), escaping);
    return new Scrape(writer.getContentType(), body.toByteArray());
  }

  /** Stops the GC listener and closes the Micrometer registry. Safe to call twice. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    gcMetrics.close();
    meters.close();
  }

  /**
   * One rendered scrape.
   *
   * @param contentType the value for the HTTP Content-Type header
   * @param body the encoded metrics (copied in and out)
   */
  public record Scrape(String contentType, byte[] body) {
    public Scrape {
      Objects.requireNonNull(contentType, "contentType");
      body = Objects.requireNonNull(body, "body").clone();
    }

    @Override
    public byte[] body() {
      return body.clone();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Scrape other
          && contentType.equals(other.contentType)
          && java.util.Arrays.equals(body, other.body);
    }

    @Override
    public int hashCode() {
      return 31 * contentType.hashCode() + java.util.Arrays.hashCode(body);
    }

    @Override
    public String toString() {
      return "Scrape[contentType=" + contentType + ", " + body.length + " bytes]";
    }
  }
}

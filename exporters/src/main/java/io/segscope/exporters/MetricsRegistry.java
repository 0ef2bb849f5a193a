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
import io.prometheus.metrics.model.snapshots.MetricFamilyDescriptor;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.segscope.exporters.model.TelemetrySnapshot;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

/**
 * The agent's one metrics registry: the {@code segscope_*} families translated from telemetry
 * snapshots, and Micrometer meters (JVM memory, GC, threads, class loading, JVM info, process CPU,
 * uptime, open files, and the agent's own meters, all registered by {@link SelfMetrics}), so one scrape returns
 * everything.
 *
 * <p>The snapshot families are rendered once per snapshot, not per scrape: {@link #render()} (called
 * by the map reader right after it published a snapshot) translates the snapshot and encodes it in
 * every format and encoding scrapers have asked for; each scrape then serves those cached bytes and
 * renders only the small Micrometer families behind them. A scrape that finds no cached bytes for the
 * current snapshot (the first scrape in a new format, or a source nobody renders) renders them itself,
 * once, for every scrape after it. The two parts concatenate: text 0.0.4 and protobuf (delimited)
 * bodies are sequences of families, the OpenMetrics part of the snapshot carries no {@code # EOF} (the
 * per-scrape part ends with the one {@code # EOF}), and a gzip body is two gzip members (RFC 1952 §2.2;
 * Prometheus' reader, Go's {@code gzip.Reader}, reads multistream by default).
 *
 * <p>Records the translation (or the agent's snapshot assembly) has to skip are counted in
 * {@code segscope_exporter_errors_total{kind}} (present at 0 for every kind from the start) once per
 * snapshot, and logged once each ({@link RecordErrors}).
 */
public final class MetricsRegistry implements AutoCloseable {
  private static final byte[] OPENMETRICS_EOF = "# EOF\n".getBytes(StandardCharsets.UTF_8);
  private static final List<MetricFamilyDescriptor> SNAPSHOT_FAMILIES =
      Families.ALL.stream().map(Family::descriptor).toList();

  /** The per-scrape families (Micrometer); a meter may not take a snapshot family's name (ReservedNames). */
  private final PrometheusRegistry prometheus = new PrometheusRegistry();
  private final Supplier<TelemetrySnapshot> source;
  private final PrometheusMeterRegistry meters;
  private final SelfMetrics self;
  private final JvmGcMetrics gcMetrics;
  private final RecordErrors recordErrors;
  private final ExpositionFormats formats = ExpositionFormats.init();
  /**
   * Every variant a scrape asked for, with the number of the render after which it was last asked:
   * {@link #render()} renders these ahead (at most 3 formats x 4 escapings x 2), and forgets one nobody
   * asked for during {@link #FORGET_AFTER_RENDERS} renders (a one-off curl in text is not rendered forever).
   */
  private final Map<Variant, Long> demanded = new ConcurrentHashMap<>();
  static final int FORGET_AFTER_RENDERS = 12;
  private final AtomicLong renders = new AtomicLong();
  /** Held while a snapshot is translated and encoded; a scrape never waits for it once one rendering exists. */
  private final ReentrantLock renderLock = new ReentrantLock();
  private volatile Rendering rendering = new Rendering(null);
  /** Snapshots translated and cached parts encoded so far (for tests: what a scrape did not redo). */
  final AtomicLong translations = new AtomicLong();
  final AtomicLong encodings = new AtomicLong();
  private boolean closed;

  /**
   * @param source the current snapshot; must be fast and must not block (return the latest snapshot
   *     read off the event loop). Called once per {@link #render()} and once per scrape, to see
   *     whether the cached bytes are still those of the current snapshot.
   */
  public MetricsRegistry(Supplier<TelemetrySnapshot> source) {
    this.source = Objects.requireNonNull(source, "source");
    meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT, prometheus, Clock.SYSTEM);
    meters.config().meterFilter(new ReservedNames(meters, SNAPSHOT_FAMILIES));
    self = new SelfMetrics(meters);
    gcMetrics = self.bindJvmAndProcess();
    recordErrors = new RecordErrors(self);
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
  public SelfMetrics self() {
    return self;
  }

  /** The Micrometer registry behind {@link #self()} (for tests: what a meter reads). */
  MeterRegistry meters() {
    return meters;
  }

  /** The registry of the per-scrape (Micrometer) families; the snapshot families are not in it. */
  public PrometheusRegistry prometheus() {
    return prometheus;
  }

  /**
   * Translates the current snapshot and encodes it in every variant scrapers have asked for, unless
   * that snapshot is already rendered. Call it from the thread that publishes snapshots, after each
   * publication, so that scrapes only serve bytes. Never throws for bad records (they are counted).
   */
  public void render() {
    if (currentOrNull() == null) {
      return;
    }
    long n = renders.incrementAndGet();
    demanded.values().removeIf(last -> n - last > FORGET_AFTER_RENDERS);
    renderLock.lock();
    try {
      // the newest snapshot, read under the lock: a rendering never replaces a newer one
      TelemetrySnapshot snapshot = currentOrNull();
      if (snapshot == null) {
        return;
      }
      Rendering r = rendering;
      boolean fresh = r.snapshot != snapshot;
      if (fresh) {
        r = translated(snapshot);
      }
      for (Variant v : demanded.keySet()) {
        r.part(v);
      }
      r.families = null; // the bytes are what scrapes need; a variant asked for later translates again
      if (fresh) {
        rendering = r; // published with every demanded variant encoded: scrapes only copy bytes
      }
    } finally {
      renderLock.unlock();
    }
  }

  /**
   * Renders everything in the format the {@code Accept} header asks for, uncompressed: Prometheus
   * protobuf ({@code application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily;
   * encoding=delimited}), OpenMetrics 1.0 ({@code application/openmetrics-text}), otherwise (also
   * for a null or empty header) Prometheus text 0.0.4.
   *
   * @param acceptHeader the HTTP Accept header, may be null
   */
  public Scrape scrape(String acceptHeader) throws IOException {
    return scrape(acceptHeader, false);
  }

  /** {@link #scrape(String)}, gzip-compressed when {@code gzip} (the body is then two gzip members). */
  public Scrape scrape(String acceptHeader, boolean gzip) throws IOException {
    ScrapeParts p = scrapeParts(acceptHeader, gzip);
    byte[] body = new byte[p.length()];
    p.cached().get(body, 0, p.cached().remaining());
    System.arraycopy(p.fresh(), 0, body, body.length - p.fresh().length, p.fresh().length);
    return new Scrape(p.contentType(), body);
  }

  /**
   * One scrape as its two parts, for a server that writes them without copying: the snapshot families,
   * cached (a read-only view of bytes shared by every scrape of the same snapshot), and the per-scrape
   * families, rendered now. Their concatenation is the body.
   *
   * @param acceptHeader the HTTP Accept header, may be null
   * @param gzip whether the scraper accepts {@code Content-Encoding: gzip}
   */
  public ScrapeParts scrapeParts(String acceptHeader, boolean gzip) throws IOException {
    String accept = acceptHeader == null ? "" : acceptHeader;
    ExpositionFormatWriter writer = formats.findWriter(accept);
    Variant v = new Variant(writer, EscapingScheme.fromAcceptHeader(accept), gzip);
    demanded.put(v, renders.get());
    TelemetrySnapshot snapshot = currentOrNull();
    ByteBuffer cached = snapshot == null ? ByteBuffer.allocate(0) : renderingOf(snapshot).part(v);
    byte[] fresh = encode(v, prometheus.scrape(), false);
    return new ScrapeParts(writer.getContentType(), gzip, cached.asReadOnlyBuffer(), fresh);
  }

  /** The source's snapshot, or null (counted as a snapshot error) when it fails. */
  private TelemetrySnapshot currentOrNull() {
    try {
      TelemetrySnapshot s = source.get();
      if (s == null) {
        throw new IllegalStateException("snapshot source returned null");
      }
      return s;
    } catch (RuntimeException e) {
      recordErrors.translationFailed(TranslationErrorListener.SNAPSHOT, null, e);
      return null;
    }
  }

  /** {@code snapshot} translated, counting its bad records (once per snapshot); not yet published. */
  private Rendering translated(TelemetrySnapshot snapshot) {
    Rendering next = new Rendering(snapshot);
    next.families = SnapshotTranslator.translate(snapshot, recordErrors::translationFailed);
    translations.incrementAndGet();
    return next;
  }

  /**
   * The rendering a scrape serves: that of {@code snapshot} when it is rendered; the last complete
   * rendering while a newer snapshot is being rendered (a scrape never waits for a render, at most it is one
   * read behind); otherwise it renders the newest snapshot itself (before the first render, or when
   * nothing calls {@link #render()}).
   */
  private Rendering renderingOf(TelemetrySnapshot snapshot) {
    Rendering r = rendering;
    if (r.snapshot == snapshot) {
      return r;
    }
    if (r.snapshot != null) {
      if (!renderLock.tryLock()) {
        return r;
      }
    } else {
      renderLock.lock();
    }
    try {
      TelemetrySnapshot newest = currentOrNull();
      if (newest == null) {
        return rendering;
      }
      if (rendering.snapshot != newest) {
        rendering = translated(newest);
      }
      return rendering;
    } finally {
      renderLock.unlock();
    }
  }

  /**
   * Encodes families in one variant. {@code withoutEof}: the OpenMetrics writer's closing
   * {@code # EOF} line is left off (the per-scrape part that follows carries it).
   */
  private static byte[] encode(Variant v, MetricSnapshots families, boolean withoutEof) {
    try {
      ByteArrayOutputStream raw = new ByteArrayOutputStream(withoutEof ? 256 * 1024 : 16 * 1024);
      v.writer().write(raw, families, v.escaping());
      byte[] bytes = raw.toByteArray();
      if (withoutEof && endsWith(bytes, OPENMETRICS_EOF)) {
        bytes = Arrays.copyOf(bytes, bytes.length - OPENMETRICS_EOF.length);
      }
      if (!v.gzip()) {
        return bytes;
      }
      ByteArrayOutputStream zipped = new ByteArrayOutputStream(Math.max(64, bytes.length / 8));
      // the cached part is compressed once per snapshot (default level); the per-scrape part is small
      int level = withoutEof ? Deflater.DEFAULT_COMPRESSION : Deflater.BEST_SPEED;
      try (OutputStream gz = new LevelledGzip(zipped, level)) {
        gz.write(bytes);
      }
      return zipped.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException("encode metrics: " + e.getMessage(), e);
    }
  }

  private static boolean endsWith(byte[] bytes, byte[] suffix) {
    return bytes.length >= suffix.length
        && Arrays.equals(bytes, bytes.length - suffix.length, bytes.length, suffix, 0, suffix.length);
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

  /** A format, an escaping scheme and a content encoding: one way of serving the same families. */
  private record Variant(ExpositionFormatWriter writer, EscapingScheme escaping, boolean gzip) {}

  /** One snapshot's families, translated once, and their bytes in each variant rendered so far. */
  private final class Rendering {
    final TelemetrySnapshot snapshot;
    /** The translation, until {@link #render()} has encoded the demanded variants (then null). */
    volatile MetricSnapshots families = MetricSnapshots.of();
    final Map<Variant, ByteBuffer> parts = new ConcurrentHashMap<>();

    Rendering(TelemetrySnapshot snapshot) {
      this.snapshot = snapshot;
    }

    /** The cached bytes of {@code v}, encoding them (once) if no scrape or render has yet. */
    ByteBuffer part(Variant v) {
      ByteBuffer b = parts.get(v);
      if (b != null) {
        return b;
      }
      synchronized (this) {
        return parts.computeIfAbsent(v, x -> {
          encodings.incrementAndGet();
          MetricSnapshots f = families;
          if (f == null) {
            // asked for after render(): translate again, without counting its bad records twice
            f = snapshot == null ? MetricSnapshots.of()
                : SnapshotTranslator.translate(snapshot, (kind, record, cause) -> {});
          }
          return ByteBuffer.wrap(encode(x, f, true));
        });
      }
    }
  }

  /** gzip at a chosen deflate level. */
  private static final class LevelledGzip extends GZIPOutputStream {
    LevelledGzip(OutputStream out, int level) throws IOException {
      super(out, 8 * 1024);
      def.setLevel(level);
    }
  }

  /**
   * One scrape in two parts whose concatenation is the body.
   *
   * @param contentType the value for the HTTP Content-Type header
   * @param gzip whether the parts are gzip members ({@code Content-Encoding: gzip})
   * @param cached the snapshot families: a read-only view of bytes shared by the scrapes of one snapshot
   * @param fresh the per-scrape families (for OpenMetrics, ending with {@code # EOF})
   */
  public record ScrapeParts(String contentType, boolean gzip, ByteBuffer cached, byte[] fresh) {
    /** The body's length in bytes. */
    public int length() {
      return cached.remaining() + fresh.length;
    }
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
          && Arrays.equals(body, other.body);
    }

    @Override
    public int hashCode() {
      return 31 * contentType.hashCode() + Arrays.hashCode(body);
    }

    @Override
    public String toString() {
      return "Scrape[contentType=" + contentType + ", " + body.length + " bytes]";
    }
  }
}

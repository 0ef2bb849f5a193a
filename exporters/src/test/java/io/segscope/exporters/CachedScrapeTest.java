package io.segscope.exporters;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.prometheus.metrics.expositionformats.generated.com_google_protobuf_4_35_0.Metrics.MetricFamily;
import io.segscope.exporters.model.TelemetrySnapshot;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The snapshot families are rendered once per snapshot and served as cached bytes; the per-scrape
 * families follow them. Checks that the two parts concatenate into valid bodies in every format and
 * encoding, and that scrapes of a rendered snapshot do not translate or encode it again.
 */
class CachedScrapeTest {
  private static final String OPENMETRICS = "application/openmetrics-text; version=1.0.0";
  private static final String PROTOBUF =
      "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited";

  private final AtomicReference<TelemetrySnapshot> current = new AtomicReference<>(Fixtures.full());
  private final MetricsRegistry registry = new MetricsRegistry(current::get);

  @AfterEach
  void close() {
    registry.close();
  }

  private static byte[] gunzip(byte[] body) throws IOException {
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
      return in.readAllBytes();
    }
  }

  private static String utf8(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  /** The lines of the snapshot families (segscope_* but not the per-scrape self meters). */
  private static List<String> snapshotLines(String body) {
    return body.lines().filter(l -> l.contains("segscope_gso") || l.contains("segscope_device")
        || l.contains("segscope_build")).toList();
  }

  @Test
  void scrapesOfARenderedSnapshotServeCachedBytes() throws IOException {
    registry.scrape(OPENMETRICS, true); // the scraper's variant becomes one that render() prepares
    current.set(Fixtures.full());
    registry.render();
    long translations = registry.translations.get();
    long encodings = registry.encodings.get();
    for (int i = 0; i < 5; i++) {
      registry.scrape(OPENMETRICS, true);
    }
    assertThat(registry.translations.get()).as("scrapes translate nothing").isEqualTo(translations);
    assertThat(registry.encodings.get()).as("scrapes encode no snapshot family").isEqualTo(encodings);

    // a new format is encoded once, by the first scrape that asks for it, from the same translation
    registry.scrape(null, false);
    registry.scrape(null, false);
    assertThat(registry.encodings.get()).isEqualTo(encodings + 1);
    assertThat(registry.translations.get()).isEqualTo(translations);
  }

  @Test
  void renderPreparesEveryVariantAskedForBeforeTheNextScrape() throws IOException {
    registry.scrape(OPENMETRICS, true);
    registry.scrape(null, false);
    current.set(Fixtures.full());
    long encodings = registry.encodings.get();
    registry.render();
    assertThat(registry.encodings.get()).isEqualTo(encodings + 2);
    registry.scrape(OPENMETRICS, true);
    registry.scrape(null, false);
    assertThat(registry.encodings.get()).isEqualTo(encodings + 2);
  }

  @Test
  void aVariantNobodyAsksForIsNoLongerRendered() throws IOException {
    registry.scrape(null, false);
    for (int i = 0; i < MetricsRegistry.FORGET_AFTER_RENDERS + 1; i++) {
      current.set(Fixtures.full());
      registry.render();
    }
    long encodings = registry.encodings.get();
    current.set(Fixtures.full());
    registry.render();
    assertThat(registry.encodings.get()).as("text was not asked for during 12 renders").isEqualTo(encodings);
    // asked again: encoded for that scrape (translated again, its bad records not counted twice)
    assertThat(utf8(registry.scrape(null, false).body())).contains("segscope_gso_sw_skbs_total{");
    assertThat(registry.encodings.get()).isEqualTo(encodings + 1);
  }

  @Test
  void gzipBodyIsTwoMembersThatInflateToTheIdentityBody() throws IOException {
    for (String accept : new String[] {null, OPENMETRICS}) {
      MetricsRegistry.ScrapeParts parts = registry.scrapeParts(accept, true);
      assertThat(parts.gzip()).isTrue();
      byte[] cached = new byte[parts.cached().remaining()];
      parts.cached().get(cached);
      assertThat(cached[0] & 0xff).as("first member's magic").isEqualTo(0x1f);
      assertThat(cached[1] & 0xff).isEqualTo(0x8b);
      assertThat(parts.fresh()[0] & 0xff).as("second member's magic").isEqualTo(0x1f);
      assertThat(parts.fresh()[1] & 0xff).isEqualTo(0x8b);

      String zipped = utf8(gunzip(registry.scrape(accept, true).body()));
      String plain = utf8(registry.scrape(accept, false).body());
      assertThat(snapshotLines(zipped)).as("Accept %s", accept).isNotEmpty().isEqualTo(snapshotLines(plain));
      assertThat(zipped).contains("\njvm_memory_used_bytes{").contains("segscope_exporter_errors");
    }
  }

  @Test
  void openMetricsBodyEndsWithExactlyOneEof() throws IOException {
    for (boolean gzip : new boolean[] {false, true}) {
      byte[] body = registry.scrape(OPENMETRICS, gzip).body();
      String text = utf8(gzip ? gunzip(body) : body);
      assertThat(text).endsWith("\n# EOF\n");
      assertThat(text.split("# EOF", -1)).as("one # EOF (gzip %s)", gzip).hasSize(2);
      assertThat(text).contains("# TYPE segscope_gso_sw_skbs counter\n")
          .contains("# TYPE jvm_threads_live_threads gauge");
    }
  }

  @Test
  void textBodyHasNoEofAndEveryFamilyOnce() throws IOException {
    String text = utf8(registry.scrape(null, false).body());
    assertThat(text).doesNotContain("# EOF");
    List<String> types = text.lines().filter(l -> l.startsWith("# TYPE ")).map(l -> l.split(" ")[2]).toList();
    assertThat(types).doesNotHaveDuplicates().contains("segscope_gso_sw_skbs_total", "jvm_memory_used_bytes");
  }

  @Test
  void protobufPartsParseAsOneSequenceOfFamilies() throws IOException {
    for (boolean gzip : new boolean[] {false, true}) {
      MetricsRegistry.Scrape scrape = registry.scrape(PROTOBUF, gzip);
      assertThat(scrape.contentType()).startsWith("application/vnd.google.protobuf");
      byte[] body = gzip ? gunzip(scrape.body()) : scrape.body();
      List<String> names = new ArrayList<>();
      ByteArrayInputStream in = new ByteArrayInputStream(body);
      MetricFamily f;
      while ((f = MetricFamily.parseDelimitedFrom(in)) != null) {
        names.add(f.getName());
      }
      assertThat(names).doesNotHaveDuplicates().contains("segscope_gso_sw_skbs_total", "segscope_build_info",
          "jvm_memory_used_bytes", "segscope_exporter_errors_total");
    }
  }

  @Test
  void aMicrometerMeterCannotTakeASnapshotFamilysName() throws IOException {
    // the snapshot families are rendered apart from the Micrometer ones: a meter with one of their
    // names is refused instead of repeating the family in the body
    Gauge.builder("segscope.gso.sw.skbs", () -> 7).register(registry.meters());
    Counter.builder("segscope.gso.sw.skbs").register(registry.meters()).increment(7);
    Gauge.builder("segscope.build.info", () -> 7).register(registry.meters());
    Gauge.builder("segscope.agent.fine", () -> 7).register(registry.meters());
    String text = utf8(registry.scrape(null, false).body());
    assertThat(text.lines().filter(l -> l.startsWith("# TYPE segscope_gso_sw_skbs")).count()).isEqualTo(1);
    assertThat(text.lines().filter(l -> l.startsWith("# TYPE segscope_build_info")).count()).isEqualTo(1);
    assertThat(text).doesNotContain("segscope_gso_sw_skbs 7").doesNotContain("segscope_gso_sw_skbs_total 7")
        .doesNotContain("segscope_build_info 7").contains("segscope_agent_fine 7");
  }
}

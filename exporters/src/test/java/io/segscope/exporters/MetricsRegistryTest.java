package io.segscope.exporters;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.prometheus.metrics.expositionformats.generated.com_google_protobuf_4_35_0.Metrics.MetricFamily;
import io.prometheus.metrics.expositionformats.generated.com_google_protobuf_4_35_0.Metrics.MetricType;
import io.segscope.exporters.model.GsoDeviceStats;
import io.segscope.exporters.model.TelemetrySnapshot;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MetricsRegistryTest {
  private static final String TEXT_004 = "text/plain; version=0.0.4; charset=utf-8";
  private static final String OPENMETRICS_100 =
      "application/openmetrics-text; version=1.0.0; charset=utf-8";
  private static final String PROTOBUF =
      "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily;"
          + " encoding=delimited";
  /** What Prometheus 2.x sends when scraping with default settings. */
  private static final String PROMETHEUS_ACCEPT =
      "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;"
          + "q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

  private final AtomicReference<TelemetrySnapshot> current =
      new AtomicReference<>(Fixtures.full());
  private final MetricsRegistry registry = new MetricsRegistry(current::get);

  @AfterEach
  void close() {
    registry.close();
  }

  private static String text(MetricsRegistry.Scrape scrape) {
    return new String(scrape.body(), StandardCharsets.UTF_8);
  }

  @Test
  void noAcceptHeaderGivesPrometheusText004() throws IOException {
    for (String accept : new String[] {null, "", "text/plain", "*/*"}) {
      MetricsRegistry.Scrape scrape = registry.scrape(accept);
      assertThat(scrape.contentType()).as("Accept: %s", accept).isEqualTo(TEXT_004);
      assertThat(text(scrape))
          .contains("# TYPE segscope_gso_sw_skbs_total counter\n")
          .doesNotContain("# EOF");
    }
  }

  @Test
  void openMetricsWhenAsked() throws IOException {
    for (String accept : new String[] {"application/openmetrics-text", PROMETHEUS_ACCEPT}) {
      MetricsRegistry.Scrape scrape = registry.scrape(accept);
      assertThat(scrape.contentType()).as("Accept: %s", accept).isEqualTo(OPENMETRICS_100);
      assertThat(text(scrape))
          .contains("# TYPE segscope_gso_sw_skbs counter\n")
          .contains("# TYPE segscope_build info\n")
          .endsWith("# EOF\n");
    }
  }

  @Test
  void protobufWhenAskedAndItParses() throws IOException {
    MetricsRegistry.Scrape scrape = registry.scrape(PROTOBUF);
    assertThat(scrape.contentType()).isEqualTo(PROTOBUF);

    Map<String, MetricFamily> families = new LinkedHashMap<>();
    ByteArrayInputStream in = new ByteArrayInputStream(scrape.body());
    MetricFamily family;
    while ((family = MetricFamily.parseDelimitedFrom(in)) != null) {
      families.put(family.getName(), family);
    }

    assertThat(families).containsKeys("segscope_gso_sw_skbs_total", "jvm_memory_used_bytes");
    MetricFamily skbs = families.get("segscope_gso_sw_skbs_total");
    assertThat(skbs.getType()).isEqualTo(MetricType.COUNTER);
    assertThat(skbs.getMetricList())
        .extracting(m -> m.getCounter().getValue())
        .containsExactlyInAnyOrder(10.0, 0.0);
    MetricFamily duration = families.get("segscope_gso_sw_duration_seconds");
    assertThat(duration.getType()).isEqualTo(MetricType.HISTOGRAM);
    var uplink =
        duration.getMetricList().stream()
            .filter(m -> m.getLabelList().stream().anyMatch(l -> l.getValue().equals("uplink0")))
            .findFirst()
            .orElseThrow()
            .getHistogram();
    assertThat(uplink.getSampleCount()).isEqualTo(10);
    assertThat(uplink.getSampleSum()).isEqualTo(1.56e-5);
    List<String> buckets = new ArrayList<>();
    uplink.getBucketList()
        .forEach(b -> buckets.add(b.getUpperBound() + "=" + b.getCumulativeCount()));
    // classic buckets at powers of two (2^-20 s = 9.5367431640625E-7), exact sums of the native ones
    assertThat(buckets).containsSubsequence("9.5367431640625E-7=3", "1.9073486328125E-6=8", "3.814697265625E-6=10");
    // the native histogram travels in the same message, as counted: schema 3, spans from index -160
    assertThat(uplink.getSchema()).isEqualTo(3);
    assertThat(uplink.getZeroThreshold()).isEqualTo(Math.pow(2, -217 / 8.0));
    assertThat(uplink.getPositiveSpanList()).isNotEmpty();
    assertThat(uplink.getPositiveSpan(0).getOffset()).isEqualTo(-160);
    // native bucket counts are delta-encoded in protobuf; decoded: 3 at -160, 5 at -152, 2 at -144
    List<Long> counts = new ArrayList<>();
    long c = 0;
    for (long d : uplink.getPositiveDeltaList()) {
      c += d;
      counts.add(c);
    }
    assertThat(counts).hasSize(17).startsWith(3L).endsWith(2L);
    assertThat(counts.get(8)).isEqualTo(5L);
    assertThat(counts.stream().mapToLong(Long::longValue).sum()).isEqualTo(10);
  }

  @Test
  void oneScrapeHoldsSegscopeAndJvmAndProcessFamilies() throws IOException {
    String text = text(registry.scrape(null));
    assertThat(text)
        .contains("\nsegscope_gso_sw_skbs_total{")
        .contains("\nsegscope_build_info{")
        .contains("\nsegscope_exporter_errors_total{kind=\"gso\"} 0.0")
        .contains("\njvm_memory_used_bytes{")
        .contains("\njvm_threads_live_threads ")
        .contains("\njvm_classes_loaded_classes ")
        .contains("\nprocess_uptime_seconds ")
        .contains("\nprocess_cpu_seconds_total ")
        .contains("\nsystem_cpus ")
        .doesNotContain("process_cpu_time_ns")
        .doesNotContain("process_cpu_usage")
        .doesNotContain("system_cpu_usage")
        .contains("\nsystem_load_average_1m ")
        .doesNotContain("system_cpu_count");
  }

  @Test
  void agentMetersAppearInTheSameScrape() throws IOException {
    Counter.builder("segscope.agent.polls").description("polls").register(registry.meters())
        .increment(3);
    assertThat(text(registry.scrape(null))).contains("\nsegscope_agent_polls_total 3.0");
  }

  @Test
  void skippedRecordsAreCountedByKindOncePerSnapshot() throws IOException {
    GsoDeviceStats duplicate =
        new GsoDeviceStats(
            Fixtures.UPLINK, "tracepoint", 1, 1, 1,
            Fixtures.EMPTY_DURATION, Fixtures.EMPTY_SEGMENTS, 1, Map.of(), Map.of(), Map.of());
    current.set(
        TelemetrySnapshot.builder().addGso(Fixtures.uplinkGso()).addGso(duplicate).build());

    registry.scrape(null);
    registry.scrape(null);
    registry.scrape(PROTOBUF, true);
    assertThat(registry.meters().get("segscope.exporter.errors").tag("kind", "gso").counter()
        .count())
        .as("one skipped record per snapshot, however often and in whatever format it is scraped")
        .isEqualTo(1.0);

    // the next map read's snapshot has the same bad record: counted again
    current.set(
        TelemetrySnapshot.builder().addGso(Fixtures.uplinkGso()).addGso(duplicate).build());
    String text = text(registry.scrape(null));
    assertThat(text)
        .contains("\nsegscope_exporter_errors_total{kind=\"gso\"} 2.0\n")
        .contains("\nsegscope_exporter_errors_total{kind=\"xdp\"} 0.0")
        .contains("segscope_gso_sw_skbs_total{device=\"uplink0\",mode=\"tracepoint\",netns=\"4026532281\"} 10.0");
  }

  @Test
  void failingSourceIsCountedAndJvmMetricsStillScrape() throws IOException {
    MetricsRegistry failing =
        new MetricsRegistry(
            () -> {
              throw new IllegalStateException("read map: gone");
            });
    try {
      failing.scrape(null);
      String text = text(failing.scrape(null));
      assertThat(text)
          .containsPattern("\nsegscope_exporter_errors_total\\{kind=\"snapshot\"} [12]\\.0\n")
          .contains("\njvm_memory_used_bytes{")
          .doesNotContain("segscope_build_info");
    } finally {
      failing.close();
    }
  }

  @Test
  void scrapeBodyIsCopied() throws IOException {
    MetricsRegistry.Scrape scrape = registry.scrape(null);
    byte[] body = scrape.body();
    body[0] = 'X';
    assertThat(scrape.body()[0]).isNotEqualTo((byte) 'X');
  }

  @Test
  void aScrapeDuringARenderServesTheLastCompleteRenderingWithoutWaiting() throws Exception {
    AtomicReference<TelemetrySnapshot> now = new AtomicReference<>(Fixtures.full());
    CountDownLatch inRender = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicReference<Thread> renderer = new AtomicReference<>();
    AtomicInteger rendererCalls = new AtomicInteger();
    Supplier<TelemetrySnapshot> source = () -> {
      // the renderer's second call is made holding the render lock: it stays there until released
      if (Thread.currentThread() == renderer.get() && rendererCalls.incrementAndGet() == 2) {
        inRender.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return now.get();
    };
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (MetricsRegistry r = new MetricsRegistry(source)) {
      assertThat(text(r.scrape(null))).as("the first snapshot, rendered by the scrape itself")
          .contains("segscope_gso_sw_skbs_total{");
      now.set(Fixtures.noDevices());
      Future<?> rendering = pool.submit(() -> {
        renderer.set(Thread.currentThread());
        r.render();
      });
      assertThat(inRender.await(10, TimeUnit.SECONDS)).as("the render holds its lock").isTrue();
      Future<MetricsRegistry.Scrape> scrape = pool.submit(() -> r.scrape(null));
      String during = text(scrape.get(10, TimeUnit.SECONDS));
      assertThat(during).as("served while the newer snapshot renders: the last complete one, whole")
          .contains("segscope_gso_sw_skbs_total{");
      assertThat(rendering.isDone()).as("the render was still in progress").isFalse();
      release.countDown();
      rendering.get(10, TimeUnit.SECONDS);
      assertThat(text(r.scrape(null))).as("once the render is published: the newer snapshot")
          .doesNotContain("segscope_gso_sw_skbs_total{");
    } finally {
      release.countDown();
      pool.shutdownNow();
    }
  }

  @Test
  void closeTwiceIsSafe() {
    registry.close();
    registry.close();
    assertThat(registry.meters().isClosed()).isTrue();
  }
}

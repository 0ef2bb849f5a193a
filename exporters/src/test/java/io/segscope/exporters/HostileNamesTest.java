package io.segscope.exporters;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.expositionformats.generated.com_google_protobuf_4_35_0.Metrics;
import io.segscope.device.DeviceId;
import io.segscope.exporters.model.DeviceRef;
import io.segscope.exporters.model.GsoDeviceStats;
import io.segscope.exporters.model.TelemetrySnapshot;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Device names are exported exactly, whatever bytes they hold: the client library escapes label
 * values, segscope only writes bytes outside UTF-8 injectively ({@code \xHH}, a backslash as
 * {@code \\}), so two devices never collapse into one series. Skipped records are logged once.
 */
class HostileNamesTest {
  /** Name forms (NameCodec) of names dev_valid_name accepts. */
  static final List<String> NAMES = List.of("\u001c", "\u001f", "\u2028", "\u3000", "e\u001b[31m", "\\xff\\xfe",
      "\\\\xff\\\\xfe", "a\"b", "a\\\\b", "$(touch${IFS}c)", "-c");

  private final AtomicReference<TelemetrySnapshot> current = new AtomicReference<>(TelemetrySnapshot.empty());
  private final MetricsRegistry registry = new MetricsRegistry(current::get);

  @AfterEach
  void close() {
    registry.close();
  }

  private static GsoDeviceStats gso(int ifindex, String name, long skbs) {
    return new GsoDeviceStats(new DeviceRef(DeviceId.of(4026531840L, ifindex), "", name), "tracepoint", skbs, skbs,
        skbs,
        Fixtures.EMPTY_DURATION, Fixtures.EMPTY_SEGMENTS, 0, Map.of(), Map.of(), Map.of());
  }

  @Test
  void everyNameIsItsOwnSeriesInTextOpenMetricsAndProtobuf() throws IOException {
    TelemetrySnapshot.Builder b = TelemetrySnapshot.builder();
    for (int i = 0; i < NAMES.size(); i++) {
      b.addGso(gso(2 + i, NAMES.get(i), 100 + i));
    }
    current.set(b.build());

    // protobuf carries label values as strings: each name comes back exactly, with its own value
    MetricsRegistry.Scrape pb = registry.scrape(
        "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited");
    List<String> devices = new ArrayList<>();
    try (var in = new ByteArrayInputStream(pb.body())) {
      Metrics.MetricFamily f;
      while ((f = Metrics.MetricFamily.parseDelimitedFrom(in)) != null) {
        if (f.getName().equals("segscope_gso_sw_skbs_total")) {
          for (Metrics.Metric m : f.getMetricList()) {
            String device = m.getLabelList().stream().filter(l -> l.getName().equals("device")).findFirst()
                .orElseThrow().getValue();
            devices.add(device);
            assertThat(m.getCounter().getValue()).isEqualTo(100 + NAMES.indexOf(device));
          }
        }
      }
    }
    assertThat(devices).containsExactlyInAnyOrderElementsOf(NAMES);

    // text formats: the library's escapes (\\, \", \n) and nothing else; no record was skipped
    for (String accept : new String[] {null, "application/openmetrics-text; version=1.0.0"}) {
      String text = new String(registry.scrape(accept).body(), StandardCharsets.UTF_8);
      assertThat(text).contains("device=\"\u001c\"").contains("device=\"\u2028\"").contains("device=\"e\u001b[31m\"")
          .contains("device=\"\\\\xff\\\\xfe\"").contains("device=\"\\\\\\\\xff\\\\\\\\xfe\"")
          .contains("device=\"a\\\"b\"").contains("device=\"$(touch${IFS}c)\"");
    }
    for (String kind : RecordErrors.KINDS) {
      assertThat(registry.recordErrors().count(kind)).as(kind).isZero();
    }
  }

  @Test
  void aSkippedRecordIsCountedEveryTimeAndLoggedOnce() throws IOException {
    List<String> warnings = new ArrayList<>();
    Handler h = new Handler() {
      @Override
      public void publish(LogRecord r) {
        warnings.add(r.getMessage());
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    Logger log = Logger.getLogger(RecordErrors.class.getName());
    log.addHandler(h);
    try {
      // the same series twice: the second record is skipped in every snapshot; a snapshot is
      // translated once however often it is scraped, so five snapshots scraped twice count five
      for (int i = 0; i < 5; i++) {
        current.set(TelemetrySnapshot.builder().addGso(gso(2, "\u001c", 5 + i)).addGso(gso(2, "\u001c", 7)).build());
        registry.scrape(null);
        registry.scrape("application/openmetrics-text; version=1.0.0");
      }
      assertThat(registry.recordErrors().count(TranslationErrorListener.GSO)).isEqualTo(5);
      assertThat(warnings).singleElement().asString().startsWith("skip gso record of device \u001c (netns 4026531840, "
          + "ifindex 2)").contains("duplicate");
    } finally {
      log.removeHandler(h);
    }
  }
}

package io.segscope.exporters;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.exporters.model.DeviceWorkload;
import io.segscope.exporters.model.NetnsInfo;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.exporters.model.WorkloadInfo;
import io.segscope.testkit.Requirement;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs Prometheus' own linter over a full scrape in text format 0.0.4. Needs {@code promtool}
 * (Debian: {@code apt-get install prometheus}); skipped with a reason where it is missing, except
 * under {@code CI=true}, where a missing promtool fails the test.
 */
class PromtoolCheckTest {
  private static final Path PROMTOOL = Path.of("/usr/bin/promtool");

  @TempDir
  Path dir;

  @Test
  void fullScrapePassesPromtoolCheckMetrics() throws Exception {
    requirePromtool();
    try (MetricsRegistry registry = new MetricsRegistry(Fixtures::full)) {
      assertPromtoolAccepts(registry.scrape("text/plain").body());
    }
  }

  @Test
  void scrapeWithoutDevicesPassesPromtoolCheckMetrics() throws Exception {
    requirePromtool();
    try (MetricsRegistry registry = new MetricsRegistry(Fixtures::noDevices)) {
      assertPromtoolAccepts(registry.scrape(null).body());
    }
  }

  @Test
  void scrapeWithWorkloadsPassesPromtoolCheckMetrics() throws Exception {
    requirePromtool();
    WorkloadInfo pod = new WorkloadInfo("pod", "shop/web-0",
        "web-0", "shop", "6f1c2a52-8a1e-4f1e-9d0b-3b9d2f8c1a10", "a3f0c9d2e1b4");
    TelemetrySnapshot s = TelemetrySnapshot.builder()
        .addNamespace(new NetnsInfo(4026532400L, "lab-recv", pod))
        .addDeviceWorkload(new DeviceWorkload(Fixtures.VETH, 4026532400L, pod))
        .build();
    try (MetricsRegistry registry = new MetricsRegistry(() -> s)) {
      assertPromtoolAccepts(registry.scrape("text/plain").body());
    }
  }

  private void assertPromtoolAccepts(byte[] body) throws IOException, InterruptedException {
    Path metrics = Files.write(dir.resolve("metrics.txt"), body);
    Path output = dir.resolve("promtool.out");
    Process promtool =
        new ProcessBuilder(PROMTOOL.toString(), "check", "metrics")
            .redirectInput(metrics.toFile())
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    assertThat(promtool.waitFor(60, TimeUnit.SECONDS)).as("promtool finished in 60 s").isTrue();
    String said = Files.readString(output, StandardCharsets.UTF_8);
    assertThat(promtool.exitValue())
        .as("promtool check metrics exit status; it said:%n%s", said)
        .isZero();
    assertThat(said).as("promtool findings").isBlank();
  }

  private static void requirePromtool() {
    Requirement.require(Files.isExecutable(PROMTOOL), PROMTOOL + " not installed (apt-get install prometheus)");
  }
}

package io.segscope.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.lab.DeviceAt;
import io.segscope.lab.Lab;
import io.segscope.lab.LabTest;
import io.segscope.lab.Scenarios;
import io.segscope.lab.Topology;
import io.segscope.testkit.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** {@code segscope report} as a person runs it, during S1 traffic. */
class ReportIT {

  @Test
  @LabTest
  void reportShowsTheUplinksCostHistogramsChainAndTheFix(Lab lab) throws Exception {
    Topology s1 = Scenarios.s1GsoMismatch(lab, false);
    // other labs' devices may carry non-UTF-8 names: decode leniently
    Function<Path, String> text = f -> {
      try {
        return new String(Files.readAllBytes(f), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    };
    Path out = Files.createTempFile("segscope-report", ".out");
    Process p = new ProcessBuilder("java", "-jar", AgentProcess.jar().toString(), "report", "--duration", "6s")
        .redirectErrorStream(true).redirectOutput(out.toFile()).start();
    AgentProcess.ProcessResult r;
    try {
      // traffic once the report says it samples (compile + attach take seconds on a busy machine)
      Await.atMost(Duration.ofSeconds(120)).every(Duration.ofMillis(100)).untilOrFail(() -> {
        boolean sampling = text.apply(out).contains("segscope report: probes attached, sampling for 6 s");
        assertThat(sampling || p.isAlive()).as("report exited before sampling: %s", text.apply(out)).isTrue();
        return sampling;
      }, () -> "report sampling within 120 s: " + text.apply(out));
      lab.iperf(s1.sender(), s1.receiver(), s1.receiverAddr(), Duration.ofSeconds(3));
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("report exits after its 6 s").isTrue();
      r = new AgentProcess.ProcessResult(p.exitValue(), text.apply(out));
    } finally {
      p.destroyForcibly();
      Files.deleteIfExists(out);
    }
    System.out.println(r.output());
    DeviceAt uplink = s1.devices().get("uplink");
    DeviceAt sender = s1.devices().get("sender");
    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.output())
        .contains("software GSO measured in tracepoint mode")
        .contains("== " + uplink.name() + " (" + uplink.ns().name())
        .contains("causes: gso_max_size 100%")
        .contains("nsecs                 : count     distribution")
        .contains("segments              : count     distribution")
        .containsPattern("p50 \\d+  p90 \\d+  p99 \\d+ \\(\\d+ observations\\)")
        .contains("chain up:")
        .contains("[warning] gso_size_mismatch")
        .contains("ip -n " + uplink.ns().name() + " link set dev " + uplink.name() + " gso_max_size 65536")
        .contains("sampling: 6/6 s")
        .doesNotContain("Exception");
  }
  /**
   * A fix applied while a report samples: the report's short-windowed advisor (duration/6 = 2 s,
   * close-after 4 s)
   * opens the finding on the first traffic, sees the evidence stop after segscope's own command and
   * the second traffic, and reports the verified saving.
   */
  @Test
  @LabTest
  void aFixAppliedDuringTheReportIsVerified(Lab lab) throws Exception {
    Topology s1 = Scenarios.s1GsoMismatch(lab, false);
    Path out = Files.createTempFile("segscope-report", ".out");
    Process p = new ProcessBuilder("java", "-jar", AgentProcess.jar().toString(), "report", "--duration", "16s")
        .redirectErrorStream(true).redirectOutput(out.toFile()).start();
    String output;
    try {
      Await.atMost(Duration.ofSeconds(120)).every(Duration.ofMillis(100)).untilOrFail(() -> {
        boolean sampling = Files.readString(out, StandardCharsets.ISO_8859_1)
            .contains("segscope report: probes attached, sampling for 16 s");
        assertThat(sampling || p.isAlive()).as("report exited before sampling").isTrue();
        return sampling;
      }, () -> "report sampling within 120 s");
      lab.iperf(s1.sender(), s1.receiver(), s1.receiverAddr(), Duration.ofSeconds(5));
      // segscope's command for S1: the uplink's limit is a setting, raised to what the sender uses
      DeviceAt up = s1.devices().get("uplink");
      Process fix = new ProcessBuilder("ip", "-n", up.ns().name(), "link", "set", "dev", up.name(),
          "gso_max_size", "65536").redirectErrorStream(true).start();
      assertThat(fix.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(fix.exitValue()).isZero();
      lab.iperf(s1.sender(), s1.receiver(), s1.receiverAddr(), Duration.ofSeconds(6));
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("report exits after its 16 s").isTrue();
      output = Files.readString(out, StandardCharsets.ISO_8859_1);
      assertThat(p.exitValue()).as(output).isZero();
    } finally {
      p.destroyForcibly();
      Files.deleteIfExists(out);
    }
    System.out.println(output);
    DeviceAt uplink = s1.devices().get("uplink");
    assertThat(output).contains("Verified savings (recommendations whose evidence stopped during the report):")
        .containsPattern("gso_size_mismatch \\(gso_size_mismatch-[0-9a-f]{12}\\) on " + uplink.ns().name() + "/"
            + uplink.name() + ": software-segmented/s \\d+ -> 0; verified saving 0\\.\\d{4} cores");
  }
}

package io.segscope.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.lab.DeviceAt;
import io.segscope.lab.Lab;
import io.segscope.lab.LabTest;
import io.segscope.lab.Scenarios;
import io.segscope.lab.Topology;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code segscope report} as a person runs it, during S1 traffic. */
class ReportIT {

  @Test
  @LabTest
  void reportShowsTheUplinksCostHistogramsChainAndTheFix(Lab lab) throws Exception {
    Topology s1 = Scenarios.s1GsoMismatch(lab, false);
    CompletableFuture<AgentProcess.ProcessResult> report = CompletableFuture.supplyAsync(() -> {
      try {
        return AgentProcess.runToExit(Duration.ofSeconds(120), "report", "--duration", "6s");
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    // traffic for as long as the report runs: its sampling starts after the compile, which takes
    // from 2 s to over 10 s on a loaded machine
    long deadline = System.nanoTime() + Duration.ofSeconds(150).toNanos();
    while (!report.isDone() && System.nanoTime() < deadline) {
      lab.iperf(s1.sender(), s1.receiver(), s1.receiverAddr(), Duration.ofSeconds(1));
    }
    AgentProcess.ProcessResult r = report.get(150, TimeUnit.SECONDS);
    System.out.println(r.output());
    DeviceAt uplink = s1.devices().get("uplink");
    DeviceAt sender = s1.devices().get("sender");
    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.output())
        .contains("software GSO measured in tracepoint mode")
        .contains("== " + uplink.name() + " (" + uplink.ns().name())
        .contains("causes: gso_max_size 100%")
        .contains("nsecs               : count     distribution")
        .contains("segments            : count     distribution")
        .contains("chain up:")
        .contains("[warning] gso_size_mismatch")
        .contains("ip -n " + sender.ns().name() + " link set dev " + sender.name() + " gso_max_size 16384")
        .contains("sampling: 6/6 s")
        .doesNotContain("Exception");
  }
}

package io.segscope.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.deploy.PrometheusServer;
import io.segscope.lab.DeviceAt;
import io.segscope.lab.Lab;
import io.segscope.lab.LabTest;
import io.segscope.lab.Scenarios;
import io.segscope.lab.Topology;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * S1/S2/S3 and their controls on the host kernel in tracepoint mode (forced, so the test means the
 * same on any kernel from 6.3 on; which mode "auto" picks is ProbePlanLabTest's and DoctorIT's job),
 * and the segmentation-duration quantiles a real Prometheus computes against an exact oracle.
 */
class TracepointScenariosIT extends ScenarioSuite {
  private static final Duration QUANTILE_TRAFFIC = Duration.ofSeconds(3);
  private static final String FAMILY = "segscope_gso_sw_duration_seconds";

  /** Holds the perf probes the duration oracle uses from before the agent attaches (see the test). */
  private DurationOracle perfProbesFirst;

  @Override
  void beforeAgentStarts() throws Exception {
    if (io.segscope.lab.Tools.find("bpftrace").isPresent()) {
      perfProbesFirst = DurationOracle.holdingPerfTracepoints(readyTimeout(), "net:net_dev_queue", "skb:consume_skb");
    }
  }

  @Override
  void afterAgentStopped() throws Exception {
    if (perfProbesFirst != null) {
      perfProbesFirst.close();
    }
  }

  @Override
  String mode() {
    return "tracepoint";
  }

  @Override
  Duration readyTimeout() {
    return Duration.ofSeconds(90);
  }

  /**
   * Issue 14: two real Prometheus servers scrape the agent every second during S1, one with native
   * histograms (protobuf; it stores the native histogram only), one without (text; the classic
   * buckets). Every software segmentation on the uplink is also timed by {@link DurationOracle} from
   * its net_dev_queue to the consume_skb after segmentation. The uplink is new, so its histogram,
   * once a map read that began after the traffic is scraped, holds exactly the events of the
   * oracle's window. Then p50/p90/p99 by histogram_quantile on the native histogram agree with the
   * exact quantiles of the oracle's durations within 10 %; the classic quantiles lie in power-of-two
   * buckets that bracket the exact ones; and the quantile function the guest test uses over the
   * exported buckets ({@link ExportedHistogram}) gives Prometheus' answers.
   */
  @Test
  @LabTest
  void s1SegmentationDurationQuantilesInPrometheusMatchTheKernel(Lab lab, @TempDir Path tmp) throws Exception {
    PrometheusServer.require();
    Topology s1 = Scenarios.s1GsoMismatch(lab, false);
    DeviceAt uplink = s1.device("uplink");
    Map<String, String> up = dev(uplink);
    String selector = "job=\"segscope\", netns=\"" + uplink.ns().inode() + "\", device=\"" + uplink.name() + "\"";
    String target = "127.0.0.1:" + agent().port();
    DurationOracle.Durations measured;
    byte[] exported;
    double nativeAt;
    double classicAt;
    try (PrometheusServer nativeProm = PrometheusServer.start(Files.createDirectories(tmp.resolve("native")),
            target, null, true);
        PrometheusServer classicProm = PrometheusServer.start(Files.createDirectories(tmp.resolve("classic")),
            target, null, false)) {
      for (PrometheusServer p : new PrometheusServer[] {nativeProm, classicProm}) {
        p.awaitNonEmpty("up{job=\"segscope\"} == 1", Duration.ofSeconds(30));
      }
      try (DurationOracle oracle = DurationOracle.segmentation(uplink.ns().inode(), ifindex(lab, uplink),
          readyTimeout())) {
        lab.iperf(s1.sender(), s1.receiver(), s1.receiverAddr(), QUANTILE_TRAFFIC);
        double stamp = agent().scrapeOfAReadStartedAfter(Instant.now(), readyTimeout())
            .sum("segscope_snapshot_timestamp_seconds", Map.of());
        // both servers hold a scrape of that read (or a later one): everything the traffic caused. The
        // queries below ask at that scrape's time (a later scrape may fail on a busy machine, and
        // Prometheus then marks the series stale)
        String after = "timestamp(segscope_snapshot_timestamp_seconds{job=\"segscope\"} >= " + stamp + ")";
        nativeAt = value(nativeProm.awaitNonEmpty(after, Duration.ofSeconds(30)));
        classicAt = value(classicProm.awaitNonEmpty(after, Duration.ofSeconds(30)));
        exported = agent().getBytes("/metrics", "Accept", ExportedHistogram.PROTOBUF);
        measured = oracle.stop();
      }
      TreeMap<Long, Long> durations = DurationQuantiles.merged(measured, k -> k.startsWith("validate_xmit_skb"));
      ExportedHistogram h = ExportedHistogram.of(exported, FAMILY, up);
      assertThat(h).as("%s for %s in the protobuf scrape", FAMILY, up).isNotNull();
      double nativeCount = value(nativeProm, "histogram_count(" + FAMILY + "{" + selector + "})", nativeAt);
      double classicCount = value(classicProm, FAMILY + "_count{" + selector + "}", classicAt);
      long oracleCount = DurationQuantiles.count(durations);
      System.out.printf("[%s] S1 uplink durations: oracle %d (by call site %s), mean %.0f ns; exported %d, mean %.0f"
          + " ns; native Prometheus %.0f, classic Prometheus %.0f%n", mode(), oracleCount, sites(measured),
          DurationQuantiles.meanNanos(durations), h.count(), h.sum() / h.count() * 1e9, nativeCount, classicCount);
      assertThat(nativeCount).as("observations in the native histogram Prometheus stored").isEqualTo(h.count());
      assertThat(classicCount).as("observations in the classic histogram Prometheus stored").isEqualTo(h.count());
      assertThat(nativeProm.queryAt(FAMILY + "_bucket{" + selector + "}", nativeAt))
          .as("a Prometheus with native histograms keeps no classic buckets of it").isEmpty();
      // the same events: each side may miss a rare one (a BPF program skipped on recursion, e.g. in a
      // softirq that interrupted another program)
      assertThat((double) h.count()).as("segmentations segscope timed vs those the oracle timed").isPositive()
          .isBetween(0.99 * oracleCount, 1.01 * oracleCount);

      double[] exact = new double[3];
      double[] nativePromQ = new double[3];
      double[] classicPromQ = new double[3];
      double[] nativeOwnQ = new double[3];
      double[] classicOwnQ = new double[3];
      double[] bucketedQ = new double[3];
      ExportedHistogram oracleBucketed = DurationQuantiles.bucketed(durations);
      for (int i = 0; i < 3; i++) {
        double q = DurationQuantiles.QUANTILES[i];
        exact[i] = DurationQuantiles.exact(durations, q);
        nativePromQ[i] = value(nativeProm, "histogram_quantile(" + q + ", " + FAMILY + "{" + selector + "})", nativeAt);
        classicPromQ[i] = value(classicProm,
            "histogram_quantile(" + q + ", sum by (le) (" + FAMILY + "_bucket{" + selector + "}))", classicAt);
        nativeOwnQ[i] = h.nativeQuantile(q);
        classicOwnQ[i] = h.classicQuantile(q);
        bucketedQ[i] = oracleBucketed.nativeQuantile(q);
      }
      Map<String, double[]> estimates = new LinkedHashMap<>();
      estimates.put("native", nativePromQ);
      estimates.put("classic", classicPromQ);
      estimates.put("oracle in native buckets", bucketedQ);
      System.out.println(DurationQuantiles.table("[" + mode() + "] S1 uplink segmentation time", exact, estimates));
      for (int i = 0; i < 3; i++) {
        double q = DurationQuantiles.QUANTILES[i];
        assertThat(nativeOwnQ[i]).as("ExportedHistogram.nativeQuantile(%s) vs Prometheus", q)
            .isCloseTo(nativePromQ[i], Percentage.withPercentage(1e-6));
        assertThat(classicOwnQ[i]).as("ExportedHistogram.classicQuantile(%s) vs Prometheus", q)
            .isCloseTo(classicPromQ[i], Percentage.withPercentage(1e-6));
      }
      DurationQuantiles.assertNativeAgree("S1 uplink, Prometheus native", nativePromQ, exact);
      DurationQuantiles.assertClassicBracket("S1 uplink, Prometheus classic", classicPromQ, exact, h);
    }
  }

  private static Map<String, Long> sites(DurationOracle.Durations d) {
    Map<String, Long> n = new TreeMap<>();
    d.byKey().forEach((k, v) -> n.put(k, DurationQuantiles.count(v)));
    return n;
  }

  /** The value of {@code promql} at {@code time}, which must be one series; else fails with what the server logged. */
  private static double value(PrometheusServer from, String promql, double time) throws Exception {
    JsonNode result = from.queryAt(promql, time);
    if (result.size() != 1) {
      throw new AssertionError("expected one series for " + promql + " at " + time + ", got " + result
          + "; Prometheus log:\n" + from.log());
    }
    return value(result);
  }

  private static double value(JsonNode result) {
    assertThat(result).as("query result (one series)").hasSize(1);
    return Double.parseDouble(result.get(0).path("value").get(1).asText());
  }

  private static int ifindex(Lab lab, DeviceAt d) throws Exception {
    JsonNode links = new ObjectMapper().readTree(lab.exec(d.ns(), "ip", "-j", "link", "show", "dev", d.name()));
    return links.get(0).path("ifindex").asInt();
  }
}

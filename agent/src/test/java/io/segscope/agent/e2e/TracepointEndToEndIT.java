package io.segscope.agent.e2e;

import static io.segscope.agent.e2e.PromText.labels;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.lab.DeviceAt;
import io.segscope.lab.IperfResult;
import io.segscope.lab.Lab;
import io.segscope.lab.LabTest;
import io.segscope.lab.Scenarios;
import io.segscope.lab.Topology;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The walking skeleton end to end: the real agent jar, the real kernel (tracepoint mode), real
 * namespaces and real iperf3 traffic, read back through /metrics over HTTP.
 */
class TracepointEndToEndIT {

  private static final Duration TRAFFIC = Duration.ofSeconds(3);

  @Test
  @LabTest
  void s1IsSegmentedInSoftwareOnTheUplinkOnlyAndS0NotAtAll(Lab s1lab) throws Exception {
    Topology s1 = Scenarios.s1GsoMismatch(s1lab, false);
    try (AgentProcess agent = AgentProcess.start("--interval", "1s")) {
      agent.awaitReady(Duration.ofSeconds(90));

      // --- S1: the uplink (gso_max_size 16384) segments in software
      PromText before = agent.scrape();
      IperfResult sent = s1lab.iperf(s1.sender(), s1.receiver(), s1.receiverAddr(), TRAFFIC);
      PromText after = agent.scrapeOfAReadStartedAfter(Instant.now(), Duration.ofSeconds(30));

      DeviceAt uplink = s1.devices().get("uplink");
      Map<String, String> up = dev(uplink);
      double skbs = delta(before, after, "segscope_gso_sw_skbs_total", up);
      double segs = delta(before, after, "segscope_gso_sw_segments_total", up);
      double bytes = delta(before, after, "segscope_gso_sw_bytes_total", up);
      System.out.printf("S1 uplink: %.0f super-packets, %.0f segments, %.0f bytes; iperf3 sent %d bytes;"
          + " segments/skb %.2f vs len/mss %.2f; %.2f Gbit/s%n", skbs, segs, bytes, sent.sentBytes(), segs / skbs,
          (bytes / skbs) / mss(sent), sent.bitsPerSecond() / 1e9);
      assertThat(skbs).as("super-packets segmented in software on the uplink").isGreaterThan(100);
      // segments, bytes and the histogram's buckets agree with each other whatever sizes TCP chose
      // (ScenarioSuite holds them against the device counters and an independent oracle as well)
      ScenarioSuite.assertSegmentsFitTheBytes(skbs, segs, bytes, mss(sent));
      ScenarioSuite.assertSegmentsHistogram(before, after, up, skbs, segs);
      assertThat(delta(before, after, "segscope_gso_sw_duration_seconds_count", up))
          .as("timed segmentations on the uplink").isPositive().isLessThanOrEqualTo(skbs);
      assertThat(delta(before, after, "segscope_gso_sw_cause_skbs_total", up)).as("super-packets over all causes")
          .isEqualTo(skbs);
      assertThat(delta(before, after, "segscope_gso_sw_cause_skbs_total",
          with(up, "cause", "gso_max_size"))).as("cause gso_max_size: every super-packet too big for the uplink")
          .isEqualTo(skbs);
      for (String role : List.of("sender", "senderPeer", "receiver")) {
        DeviceAt d = s1.devices().get(role);
        assertThat(delta(before, after, "segscope_gso_sw_skbs_total", dev(d)))
            .as("software segmentation on %s (%s)", role, d.name()).isZero();
      }
      assertThat(delta(before, after, "segscope_gso_offloaded_skbs_total", dev(s1.devices().get("sender"))))
          .as("the sender's veth hands super-packets intact to its driver").isGreaterThan(100);

      // --- S0: the same topology with consistent settings: nothing segmented in software
      try (Lab s0lab = Lab.create("s0")) {
        Topology s0 = Scenarios.s1GsoMismatch(s0lab, true);
        PromText b0 = agent.scrape();
        s0lab.iperf(s0.sender(), s0.receiver(), s0.receiverAddr(), TRAFFIC);
        PromText a0 = agent.scrapeOfAReadStartedAfter(Instant.now(), Duration.ofSeconds(30));
        for (Map.Entry<String, DeviceAt> e : s0.devices().entrySet()) {
          assertThat(delta(b0, a0, "segscope_gso_sw_skbs_total", dev(e.getValue())))
              .as("S0: software segmentation on %s", e.getKey()).isZero();
        }
        assertThat(delta(b0, a0, "segscope_gso_offloaded_skbs_total", dev(s0.devices().get("uplink"))))
            .as("S0: super-packets handed intact to the uplink's driver").isGreaterThan(100);
      }

      // the probes report their mode
      assertThat(after.sum("segscope_probe_attached", labels("path", "gso_tx", "mode", "tracepoint")))
          .isEqualTo(4.0);
      assertThat(agent.stop()).as("exit code after SIGTERM").isZero();
    }
  }

  private static Map<String, String> dev(DeviceAt d) {
    return labels("netns", Long.toString(d.ns().inode()), "device", d.name());
  }

  private static Map<String, String> with(Map<String, String> base, String k, String v) {
    Map<String, String> m = new java.util.LinkedHashMap<>(base);
    m.put(k, v);
    return m;
  }

  private static double delta(PromText before, PromText after, String name, Map<String, String> match) {
    return after.sum(name, match) - before.sum(name, match);
  }

  /** The MSS iperf3 used (its JSON start.tcp_mss_default), else 1448 for a 1500-byte MTU. */
  private static double mss(IperfResult r) throws Exception {
    JsonNode n = new ObjectMapper().readTree(r.rawJson()).path("start").path("tcp_mss_default");
    return n.isNumber() && n.asInt() > 0 ? n.asInt() : 1448;
  }
}

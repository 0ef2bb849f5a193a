package io.segscope.agent.e2e;

import static io.segscope.agent.e2e.PromText.labels;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.lab.DeviceAt;
import io.segscope.lab.IperfResult;
import io.segscope.lab.Lab;
import io.segscope.lab.LabTest;
import io.segscope.lab.Prerequisites;
import io.segscope.lab.Scenarios;
import io.segscope.lab.Topology;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The DESIGN.md §7 scenarios S1, S2, S3 and their healthy controls against ONE running agent jar, read
 * back through /metrics: software GSO on the right device with the right cause, generic-XDP copies
 * counted (and timed where the mode can), nothing in the controls, and every series labelled with the
 * mode the agent was asked for. Subclasses say which mode: {@link TracepointScenariosIT} on the host,
 * {@link GuestScenarios} (kprobe, fentry) inside the qemu guest kernel.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("lab")
abstract class ScenarioSuite {
  private static final Duration TRAFFIC = Duration.ofSeconds(3);

  private AgentProcess agent;

  /** The mode every path must run in; passed to the agent as {@code --probe-mode}. */
  abstract String mode();

  /** How long the agent may take to attach (compile under emulation is slow). */
  abstract Duration readyTimeout();

  /** How long to wait after traffic for the next map reads (interval 1 s). */
  abstract Duration settle();

  private boolean timesXdpCopies() {
    return !mode().equals("tracepoint");
  }

  @BeforeAll
  void startAgent() throws Exception {
    Prerequisites.requireLab();
    // short advice windows so a 3 s scenario can open its recommendation (defaults: 30 s / 30 s / 2 m)
    agent = AgentProcess.start("--interval", "1s", "--probe-mode", mode(), "--advice-window", "3s",
        "--advice-open-after", "2s", "--advice-close-after", "60s");
    agent.awaitReady(readyTimeout());
  }

  @AfterAll
  void stopAgent() throws Exception {
    if (agent == null) {
      return;
    }
    try {
      int exit = agent.stop();
      assertThat(exit).as("agent exit code after SIGTERM; log:\n%s", agent.log()).isZero();
    } finally {
      agent.close();
    }
  }

  @Test
  void everyProgramIsAttachedInTheRequestedMode() throws Exception {
    PromText m = agent.scrape();
    Map<String, List<String>> programs = expectedPrograms();
    for (Map.Entry<String, List<String>> path : programs.entrySet()) {
      for (String program : path.getValue()) {
        assertThat(m.sum("segscope_probe_attached", labels("path", path.getKey(), "program", program,
            "mode", mode()))).as("%s program %s attached in mode %s", path.getKey(), program, mode()).isEqualTo(1.0);
      }
      assertThat(m.samples("segscope_probe_attached").stream()
          .filter(s -> s.labels().get("path").equals(path.getKey())).count())
          .as("%s has exactly its %s programs", path.getKey(), mode()).isEqualTo(path.getValue().size());
    }
  }

  /** The metric contract: which programs each path runs in each mode. */
  private Map<String, List<String>> expectedPrograms() {
    Map<String, List<String>> p = new LinkedHashMap<>();
    switch (mode()) {
      case "kprobe" -> {
        p.put("gso_tx", List.of("kprobe____skb_gso_segment", "kretprobe____skb_gso_segment",
            "tracepoint__net__net_dev_start_xmit"));
        p.put("xdp_generic", List.of("kprobe__do_xdp_generic", "kprobe__bpf_prog_run_generic_xdp"));
      }
      case "fentry" -> {
        p.put("gso_tx", List.of("kfunc____skb_gso_segment", "kretfunc____skb_gso_segment",
            "tracepoint__net__net_dev_start_xmit"));
        p.put("xdp_generic", List.of("kfunc__do_xdp_generic", "kfunc__bpf_prog_run_generic_xdp"));
      }
      case "tracepoint" -> {
        p.put("gso_tx", List.of("tracepoint__net__net_dev_queue", "tracepoint__qdisc__qdisc_dequeue",
            "tracepoint__skb__consume_skb", "tracepoint__net__net_dev_start_xmit"));
        p.put("xdp_generic", List.of("tracepoint__net__netif_receive_skb"));
      }
      default -> throw new IllegalStateException("unknown mode " + mode());
    }
    return p;
  }

  @Test
  @LabTest
  void s1GsoSizeMismatchIsSegmentedOnTheUplinkForGsoMaxSize(Lab lab) throws Exception {
    Topology s1 = Scenarios.s1GsoMismatch(lab, false);
    Traffic t = drive(lab, s1);
    Map<String, String> up = dev(s1.device("uplink"));
    double skbs = t.delta("segscope_gso_sw_skbs_total", up);
    double segs = t.delta("segscope_gso_sw_segments_total", up);
    double bytes = t.delta("segscope_gso_sw_bytes_total", up);
    double mss = mss(t.sent());
    System.out.printf("[%s] S1 uplink: %.0f super-packets, %.0f segments, %.0f bytes of %d sent, %.2f Gbit/s%n",
        mode(), skbs, segs, bytes, t.sent().sentBytes(), t.sent().gbitsPerSecond());
    assertThat(skbs).as("super-packets segmented in software on the uplink").isGreaterThan(100);
    assertModeLabel(t, "segscope_gso_sw_skbs_total", up);
    assertThat(bytes / t.sent().sentBytes()).as("segmented bytes / bytes iperf3 sent").isBetween(0.80, 1.05);
    double expectedSegs = (bytes / skbs) / mss;
    assertThat(segs / skbs).as("segments per super-packet vs len / mss (%.0f)", mss)
        .isCloseTo(expectedSegs, within(expectedSegs * 0.10));
    assertThat(t.delta("segscope_gso_sw_duration_seconds_count", up)).as("timed segmentations")
        .isGreaterThan(skbs * 0.5);
    assertThat(t.delta("segscope_gso_sw_cause_skbs_total", with(up, "cause", "gso_max_size")))
        .as("cause gso_max_size").isGreaterThan(skbs * 0.9);
    for (String role : List.of("sender", "senderPeer", "bridge", "receiver")) {
      assertThat(t.delta("segscope_gso_sw_skbs_total", dev(s1.device(role))))
          .as("software segmentation on %s", role).isZero();
    }
    assertThat(t.delta("segscope_gso_offloaded_skbs_total", dev(s1.device("sender"))))
        .as("super-packets handed intact to the sender's veth").isGreaterThan(100);
    DeviceAt sender = s1.device("sender");
    assertRecommended(lab, "gso_size_mismatch", s1.device("uplink"),
        "ip -n " + sender.ns().name() + " link set dev " + sender.name() + " gso_max_size 16384");
  }

  @Test
  @LabTest
  void s1HealthyControlSegmentsNothingInSoftware(Lab lab) throws Exception {
    Topology s1h = Scenarios.s1GsoMismatch(lab, true);
    Traffic t = drive(lab, s1h);
    for (Map.Entry<String, DeviceAt> d : s1h.devices().entrySet()) {
      assertThat(t.delta("segscope_gso_sw_skbs_total", dev(d.getValue())))
          .as("S1 healthy: software segmentation on %s", d.getKey()).isZero();
    }
    Map<String, String> up = dev(s1h.device("uplink"));
    assertThat(t.delta("segscope_gso_offloaded_skbs_total", up)).as("intact super-packets on the uplink")
        .isGreaterThan(100);
    assertModeLabel(t, "segscope_gso_offloaded_skbs_total", up);
    assertNoAdvice(lab);
  }

  @Test
  @LabTest
  void s2OffloadLostIsSegmentedOnTheLowerVethForAMissingFeature(Lab lab) throws Exception {
    Topology s2 = Scenarios.s2OffloadLost(lab, false);
    Traffic t = drive(lab, s2);
    Map<String, String> lower = dev(s2.device("lower"));
    double skbs = t.delta("segscope_gso_sw_skbs_total", lower);
    System.out.printf("[%s] S2 lower: %.0f super-packets, %.0f segments, %.2f Gbit/s%n", mode(), skbs,
        t.delta("segscope_gso_sw_segments_total", lower), t.sent().gbitsPerSecond());
    assertThat(skbs).as("super-packets segmented in software on the lower veth (tso off)").isGreaterThan(100);
    assertModeLabel(t, "segscope_gso_sw_skbs_total", lower);
    assertThat(t.delta("segscope_gso_sw_cause_skbs_total", with(lower, "cause", "feature_missing")))
        .as("cause feature_missing").isGreaterThan(skbs * 0.9);
    assertThat(t.delta("segscope_gso_sw_duration_seconds_count", lower)).as("timed segmentations")
        .isGreaterThan(skbs * 0.5);
    for (String role : List.of("macvlan", "receiver")) {
      assertThat(t.delta("segscope_gso_sw_skbs_total", dev(s2.device(role))))
          .as("software segmentation on %s", role).isZero();
    }
    DeviceAt low = s2.device("lower");
    assertRecommended(lab, "offload_disabled", low,
        "ip netns exec " + low.ns().name() + " ethtool -K " + low.name() + " tso on");
  }

  @Test
  @LabTest
  void s2HealthyControlSegmentsNothingInSoftware(Lab lab) throws Exception {
    Topology s2h = Scenarios.s2OffloadLost(lab, true);
    Traffic t = drive(lab, s2h);
    for (Map.Entry<String, DeviceAt> d : s2h.devices().entrySet()) {
      assertThat(t.delta("segscope_gso_sw_skbs_total", dev(d.getValue())))
          .as("S2 healthy: software segmentation on %s", d.getKey()).isZero();
    }
    assertThat(t.delta("segscope_gso_offloaded_skbs_total", dev(s2h.device("lower"))))
        .as("intact super-packets on the lower veth").isGreaterThan(100);
    assertNoAdvice(lab);
  }

  @Test
  @LabTest
  void s3GenericXdpCopiesAreCountedOnTheReceiver(Lab lab) throws Exception {
    Prerequisites.requireClang();
    Topology s3 = Scenarios.s3GenericXdp(lab, false);
    Traffic t = drive(lab, s3);
    Map<String, String> rcv = dev(s3.device("receiver"));
    double copied = t.delta("segscope_xdp_generic_skbs_total", with(rcv, "outcome", "copied"));
    double bytes = t.delta("segscope_xdp_generic_copied_bytes_total", rcv);
    double timed = t.delta("segscope_xdp_generic_copy_duration_seconds_count", rcv);
    double seconds = t.delta("segscope_xdp_generic_copy_duration_seconds_sum", rcv);
    System.out.printf("[%s] S3 receiver: %.0f copies, %.0f bytes of %d sent, %.0f timed, mean %.0f ns%n",
        mode(), copied, bytes, t.sent().sentBytes(), timed, timed > 0 ? seconds / timed * 1e9 : 0);
    assertThat(copied).as("skbs copied for generic XDP on the receiver %s; all xdp series: %s", rcv,
        t.after().samples("segscope_xdp_generic_skbs_total")).isGreaterThan(100);
    assertModeLabel(t, "segscope_xdp_generic_skbs_total", rcv);
    assertThat(bytes / t.sent().sentBytes()).as("copied bytes / bytes iperf3 sent").isBetween(0.80, 1.10);
    if (timesXdpCopies()) {
      assertThat(timed).as("copies timed in %s mode", mode()).isGreaterThan(copied * 0.9);
      assertThat(seconds).as("total copy time").isPositive();
    } else {
      assertThat(timed).as("tracepoint mode cannot time copies: no duration series").isZero();
    }
    assertThat(t.delta("segscope_xdp_generic_skbs_total", dev(s3.device("sender"))))
        .as("generic XDP on the sender (it has none)").isZero();
    DeviceAt r = s3.device("receiver");
    assertRecommended(lab, "generic_xdp_copy", r,
        "nsenter --net=/run/netns/" + r.ns().name() + " -- bpftool -- net detach xdpgeneric dev " + r.name());
  }

  @Test
  @LabTest
  void s3HealthyControlHasNoGenericXdp(Lab lab) throws Exception {
    Topology s3h = Scenarios.s3GenericXdp(lab, true);
    Traffic t = drive(lab, s3h);
    for (Map.Entry<String, DeviceAt> d : s3h.devices().entrySet()) {
      assertThat(t.delta("segscope_xdp_generic_skbs_total", dev(d.getValue())))
          .as("S3 healthy: generic XDP on %s", d.getKey()).isZero();
    }
    assertThat(t.sent().sentBytes()).as("traffic flowed").isPositive();
    assertNoAdvice(lab);
  }

  /**
   * The rule's recommendation about {@code subject} opens (within 15 s of the traffic: the advice
   * window keeps the evidence for 3 s after it) and carries {@code command} among its commands.
   */
  private void assertRecommended(Lab lab, String rule, DeviceAt subject, String command) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    JsonNode last = null;
    while (System.nanoTime() < deadline) {
      last = new ObjectMapper().readTree(agent.get("/api/v1/recommendations").body()).path("recommendations");
      for (JsonNode r : last) {
        if (r.path("rule").asText().equals(rule)
            && r.path("subject").path("netns").asLong() == subject.ns().inode()
            && r.path("subject").path("netns_name").asText().equals(subject.ns().name())
            && r.path("subject").path("device").asText().equals(subject.name())) {
          java.util.List<String> cmds = new java.util.ArrayList<>();
          r.path("commands").forEach(c -> cmds.add(c.asText()));
          assertThat(cmds).as("[%s] %s commands", mode(), rule).contains(command);
          assertThat(r.path("evidence").path("mode").asText()).as("evidence mode").isEqualTo(mode());
          return;
        }
      }
      Thread.sleep(500);
    }
    throw new AssertionError("[" + mode() + "] no " + rule + " recommendation for " + subject + "; open: " + last);
  }

  /** No open recommendation concerns a device of this lab. */
  private void assertNoAdvice(Lab lab) throws Exception {
    // by name as well as inode: a deleted namespace's inode is reused for the next one
    java.util.Set<String> ours = new java.util.HashSet<>();
    lab.namespaces().forEach(n -> ours.add(n.inode() + "/" + n.name()));
    JsonNode recs = new ObjectMapper().readTree(agent.get("/api/v1/recommendations").body()).path("recommendations");
    for (JsonNode r : recs) {
      assertThat(ours).as("[%s] advice for a healthy control: %s", mode(), r).doesNotContain(
          r.path("subject").path("netns").asLong() + "/" + r.path("subject").path("netns_name").asText());
    }
  }

  /** Scrape, iperf3 from the scenario's sender to its receiver, wait for the map reads, scrape. */
  private Traffic drive(Lab lab, Topology s) throws Exception {
    PromText before = agent.scrape();
    IperfResult sent = lab.iperf(s.sender(), s.receiver(), s.receiverAddr(), TRAFFIC);
    Thread.sleep(settle().toMillis());
    return new Traffic(before, agent.scrape(), sent);
  }

  /** Every sample of {@code name} on the device carries the expected mode label. */
  private void assertModeLabel(Traffic t, String name, Map<String, String> device) {
    double all = t.after().sum(name, device);
    assertThat(t.after().sum(name, with(device, "mode", mode())))
        .as("%s on %s labelled mode=%s", name, device, mode()).isEqualTo(all).isPositive();
  }

  record Traffic(PromText before, PromText after, IperfResult sent) {
    double delta(String name, Map<String, String> match) {
      return after.sum(name, match) - before.sum(name, match);
    }
  }

  static Map<String, String> dev(DeviceAt d) {
    return labels("netns", Long.toString(d.ns().inode()), "device", d.name());
  }

  static Map<String, String> with(Map<String, String> base, String k, String v) {
    Map<String, String> m = new LinkedHashMap<>(base);
    m.put(k, v);
    return m;
  }

  /** The MSS iperf3 used (its JSON start.tcp_mss_default), else 1448 for a 1500-byte MTU. */
  static double mss(IperfResult r) throws Exception {
    JsonNode n = new ObjectMapper().readTree(r.rawJson()).path("start").path("tcp_mss_default");
    return n.isNumber() && n.asInt() > 0 ? n.asInt() : 1448;
  }
}

package io.segscope.agent.e2e;

import static io.segscope.testkit.PromText.labels;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.lab.DeviceAt;
import io.segscope.lab.IperfResult;
import io.segscope.lab.Lab;
import io.segscope.lab.LabTest;
import io.segscope.lab.Prerequisites;
import io.segscope.lab.Scenarios;
import io.segscope.lab.Topology;
import io.segscope.lab.UdpGsoSender;
import io.segscope.testkit.Await;
import io.segscope.testkit.PromText;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;

/**
 * The lab scenarios (docs/lab.md) S1, S2, S3 and their healthy controls against ONE running agent jar, read
 * back through /metrics: software GSO on the right device with the right cause, generic-XDP copies
 * counted (and timed where the mode can), nothing in the controls, and every series labelled with the
 * mode the paths must run in ({@link #mode}). Subclasses say which mode: {@link TracepointScenariosIT} on the host,
 * {@link GuestScenarios} (kprobe, fentry) inside the qemu guest kernel.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("lab")
abstract class ScenarioSuite {
  /**
   * The tags of S1 and S2 with their controls and of S3 (not its control): the guest runs them in the
   * fentry boot only, while the kprobe boot runs the guest-only device kinds and the copy-time quantiles
   * (GuestModesIT: the two boots, side by side, take about as long). The kinds hold kprobe mode's GSO
   * program to the oracle in ten topologies, the quantiles its generic-XDP program.
   */
  static final ObjectMapper JSON = new ObjectMapper();
  static final String S1 = "s1";
  static final String S2 = "s2";
  static final String S3 = "s3";
  /** At most this long for the traffic's tail to cross the devices before counters (3). */
  private static final Duration SETTLE = Duration.ofSeconds(10);
  static final Duration TRAFFIC = Duration.ofSeconds(3);
  /**
   * The suite's agent accepts S10's finding (docs/lab.md: offload_disabled on ifb0 in the lab's s10rcv
   * namespace, not the control's s10hrcv): the end-to-end check of --advice-accept (TracepointScenariosIT).
   */
  static final String ACCEPTED = "offload_disabled:*-s10rcv/ifb0";

  AgentProcess agent;

  /**
   * The mode every path must run in; passed to the agent as {@code --probe-mode} unless
   * {@link #probeModeArgument} says otherwise (the guest's kprobe boot reaches it by falling back from fentry).
   */
  abstract String mode();

  /** How long the agent may take to attach (compile under emulation is slow). */
  abstract Duration readyTimeout();

  /** How long each seed scenario's traffic runs. */
  Duration traffic() {
    return TRAFFIC;
  }

  /** How long a recommendation may take to open once its traffic ended. */
  Duration adviceWait() {
    return Duration.ofSeconds(15);
  }

  /** The agent every test of the suite reads. */
  AgentProcess agent() {
    return agent;
  }

  private boolean timesXdpCopies() {
    return !mode().equals("tracepoint");
  }

  /** The agent's {@code --probe-mode}: {@link #mode()}, unless a suite proves a fallback lands there. */
  String probeModeArgument() {
    return mode();
  }

  /**
   * The agent's arguments beyond the suite's own: {@code --timing-window always} (the checks hold every
   * segmentation's duration and the offloaded count to the oracle, so the timing programs run all the time;
   * TimingWindowsLabTest checks the sampled windows), and a fault a suite injects.
   */
  List<String> agentArguments() {
    return List.of("--timing-window", "always");
  }

  /** Runs right before the agent starts: a test that needs kernel state from before it sets it up here. */
  void beforeAgentStarts() throws Exception {}

  /** Runs after the agent stopped (also when it failed to start): undoes {@link #beforeAgentStarts}. */
  void afterAgentStopped() throws Exception {}

  /**
   * Prints {@code what} with the test JVM's uptime: where a suite's time goes (under emulation a JVM's start, a
   * compile and bpftrace's start each take tens of seconds), read from the guest's stdout.
   */
  void phase(String what) {
    System.out.printf("[%s] t+%.1fs (%s) %s%n", mode(), ManagementFactory.getRuntimeMXBean().getUptime() / 1000.0,
        Instant.now(), what);
  }

  @BeforeEach
  void testStarts(TestInfo test) {
    phase("start " + test.getDisplayName());
  }

  @AfterEach
  void testEnds(TestInfo test) {
    phase("end " + test.getDisplayName());
  }

  @BeforeAll
  void startAgent() throws Exception {
    phase("suite starts");
    Prerequisites.requireLab();
    beforeAgentStarts();
    phase("agent starts");
    // short advice windows so a 3 s scenario can open its recommendation (defaults: 30 s / 30 s / 2 m)
    List<String> args = new ArrayList<>(List.of("--interval", "1s", "--probe-mode", probeModeArgument(),
        "--advice-window", "3s", "--advice-open-after", "2s", "--advice-close-after", "60s", "--advice-accept",
        ACCEPTED));
    args.addAll(agentArguments());
    agent = AgentProcess.start(args.toArray(String[]::new));
    agent.awaitReady(readyTimeout());
    phase("agent ready");
  }

  @AfterAll
  void stopAgent() throws Exception {
    try {
      if (agent == null) {
        return;
      }
      try {
        int exit = agent.stop();
        keepAgentLog();
        assertThat(exit).as("agent exit code after SIGTERM; log:\n%s", agent.log()).isZero();
      } finally {
        agent.close();
      }
    } finally {
      afterAgentStopped();
    }
  }

  @Test
  void everyProgramIsAttachedInTheRequestedMode() throws Exception {
    PromText m = agent.scrape();
    // tracepoint programs attach as the cheapest type the kernel allows (tp_btf on 6.1 and 6.18)
    String attach = m.samples("segscope_probe_attached").stream()
        .filter(s -> s.labels().get("program").endsWith("net_dev_queue")).map(s -> s.labels().get("attach"))
        .findFirst().orElseThrow();
    assertThat(attach).isEqualTo("tp_btf");
    Map<String, List<String>> programs = expectedPrograms(attach);
    for (Map.Entry<String, List<String>> path : programs.entrySet()) {
      for (String program : path.getValue()) {
        boolean onDemand = program.endsWith("qdisc_dequeue") || program.endsWith("netif_receive_skb");
        double attached = m.sum("segscope_probe_attached", labels("path", path.getKey(), "program", program,
            "mode", mode()));
        if (onDemand) {
          // attached only while needed: listed either way
          assertThat(m.samples("segscope_probe_attached").stream()
              .anyMatch(s -> s.labels().get("program").equals(program))).as("%s listed", program).isTrue();
        } else {
          assertThat(attached).as("%s program %s attached in mode %s", path.getKey(), program, mode()).isEqualTo(1.0);
        }
      }
      assertThat(m.samples("segscope_probe_attached").stream()
          .filter(s -> s.labels().get("path").equals(path.getKey())).count())
          .as("%s has exactly its %s programs", path.getKey(), mode()).isEqualTo(path.getValue().size());
    }
    // no program runs per segment: the classic per-segment hook of the first design is gone
    assertThat(m.samples("segscope_probe_attached")).noneMatch(s -> s.labels().get("program").contains("start_xmit"));
  }

  @Test
  void theSegmentationCallSitesAreExportedWithWhereThisKernelHasThem() throws Exception {
    // a read that started now: right after /readyz said ready (the kprobe boot's agent had just fallen back and
    // reopened its session) a CI-like run found no call-site series in the first scrape, later reads had them
    PromText m = agent.scrapeOfAReadStartedAfter(Instant.now(), readyTimeout());
    List<PromText.Sample> sites = m.samples("segscope_probe_call_site_resolved");
    assertThat(sites).as("one series per call site segscope looks for").hasSizeGreaterThan(5);
    for (PromText.Sample s : sites) {
      assertThat(s.value()).as("%s", s.labels()).isIn(0.0, 1.0);
      assertThat(s.labels().get("function").isEmpty()).as("unresolved exactly when no function: %s", s.labels())
          .isEqualTo(s.value() == 0.0);
    }
    assertThat(sites).as("validate_xmit_skb, where every seed scenario segments, is found in this kernel")
        .filteredOn(s -> s.labels().get("call_site").equals("validate_xmit_skb"))
        .singleElement().satisfies(s -> {
          assertThat(s.value()).isEqualTo(1.0);
          assertThat(s.labels()).containsEntry("site", "xmit");
          assertThat(s.labels().get("function")).isNotEmpty();
        });
  }

  /** The metric contract: which programs each path runs in each mode, tracepoints attached as {@code attach}. */
  private Map<String, List<String>> expectedPrograms(String attach) {
    String tp = attach.equals("tracepoint") ? "tp__" : attach + "__";
    Map<String, List<String>> p = new LinkedHashMap<>();
    switch (mode()) {
      case "kprobe" -> {
        p.put("gso_tx", List.of(tp + "net_dev_queue", tp + "kfree_skb", "kprobe____skb_gso_segment",
            "kretprobe____skb_gso_segment"));
        p.put("xdp_generic", List.of("kprobe__do_xdp_generic", "kprobe__bpf_prog_run_generic_xdp"));
      }
      case "fentry" -> {
        p.put("gso_tx", List.of(tp + "net_dev_queue", tp + "kfree_skb", "kfunc____skb_gso_segment",
            "kretfunc____skb_gso_segment"));
        p.put("xdp_generic", List.of("kfunc__do_xdp_generic", "kfunc__bpf_prog_run_generic_xdp"));
      }
      case "tracepoint" -> {
        p.put("gso_tx", List.of(tp + "net_dev_queue", tp + "kfree_skb", tp + "consume_skb", tp + "qdisc_dequeue"));
        p.put("xdp_generic", List.of(tp + "netif_receive_skb"));
      }
      default -> throw new IllegalStateException("unknown mode " + mode());
    }
    return p;
  }

  @Test
  @Tag(S1)
  @LabTest
  void s1GsoSizeMismatchIsSegmentedOnTheUplinkForGsoMaxSizeAndItsHealthyControlIsNot(Lab lab) throws Exception {
    Topology s1 = Scenarios.s1GsoMismatch(lab, false);
    Topology s1h = Scenarios.s1GsoMismatch(lab, true);
    Traffic t = driveBeside(lab, s1, s1h, KernelOracle.countsGso());
    DeviceAt uplink = s1.device("uplink");
    Map<String, String> up = dev(uplink);
    double skbs = t.delta("segscope_gso_sw_skbs_total", up);
    double segs = t.delta("segscope_gso_sw_segments_total", up);
    double bytes = t.delta("segscope_gso_sw_bytes_total", up);
    System.out.printf("[%s] S1 uplink: %.0f super-packets, %.0f segments, %.0f bytes of %d sent, %.2f Gbit/s;"
        + " oracle %s%n", mode(), skbs, segs, bytes, t.sent().sentBytes(), t.sent().gbitsPerSecond(),
        t.oracle().gso(uplink));
    assertThat(skbs).as("super-packets segmented in software on the uplink").isGreaterThan(100);
    assertModeLabel(t, "segscope_gso_sw_skbs_total", up);
    assertSegmentationAccountsForTheDevice(t, uplink, skbs, segs, bytes);
    assertSegmentsFitTheBytes(t, skbs, segs, bytes);
    assertTimed(t, up, skbs);
    assertAllForOneCause(t, up, skbs, "gso_max_size");
    for (String role : List.of("sender", "senderPeer", "bridge", "receiver")) {
      assertThat(t.delta("segscope_gso_sw_skbs_total", dev(s1.device(role))))
          .as("software segmentation on %s", role).isZero();
    }
    assertThat(t.delta("segscope_gso_offloaded_skbs_total", dev(s1.device("sender"))))
        .as("super-packets handed intact to the sender's veth").isGreaterThan(100);
    // the uplink's 16384 is a setting (a veth takes 524280): raised to what the sender uses
    assertRecommended(lab, "gso_size_mismatch", uplink,
        "ip -n " + uplink.ns().name() + " link set dev " + uplink.name() + " gso_max_size 65536");
    // the healthy control, driven beside it
    for (Map.Entry<String, DeviceAt> d : s1h.devices().entrySet()) {
      assertThat(t.delta("segscope_gso_sw_skbs_total", dev(d.getValue())))
          .as("S1 healthy: software segmentation on %s", d.getKey()).isZero();
    }
    Map<String, String> hup = dev(s1h.device("uplink"));
    assertThat(t.delta("segscope_gso_offloaded_skbs_total", hup)).as("intact super-packets on the uplink")
        .isGreaterThan(100);
    assertModeLabel(t, "segscope_gso_offloaded_skbs_total", hup);
    assertNoAdviceFor(s1h);
  }

  @Test
  @Tag(S2)
  @LabTest
  void s2OffloadLostIsSegmentedOnTheLowerVethForAMissingFeatureAndItsHealthyControlIsNot(Lab lab) throws Exception {
    Topology s2 = Scenarios.s2OffloadLost(lab, false);
    Topology s2h = Scenarios.s2OffloadLost(lab, true);
    Traffic t = driveBeside(lab, s2, s2h, KernelOracle.countsGso());
    DeviceAt low = s2.device("lower");
    Map<String, String> lower = dev(low);
    double skbs = t.delta("segscope_gso_sw_skbs_total", lower);
    double segs = t.delta("segscope_gso_sw_segments_total", lower);
    double bytes = t.delta("segscope_gso_sw_bytes_total", lower);
    System.out.printf("[%s] S2 lower: %.0f super-packets, %.0f segments, %.2f Gbit/s; oracle %s%n", mode(), skbs,
        segs, t.sent().gbitsPerSecond(), t.oracle().gso(low));
    assertThat(skbs).as("super-packets segmented in software on the lower veth (tso off)").isGreaterThan(100);
    assertModeLabel(t, "segscope_gso_sw_skbs_total", lower);
    assertSegmentationAccountsForTheDevice(t, low, skbs, segs, bytes);
    assertSegmentsFitTheBytes(t, skbs, segs, bytes);
    assertTimed(t, lower, skbs);
    assertAllForOneCause(t, lower, skbs, "feature_missing");
    for (String role : List.of("macvlan", "receiver")) {
      assertThat(t.delta("segscope_gso_sw_skbs_total", dev(s2.device(role))))
          .as("software segmentation on %s", role).isZero();
    }
    assertRecommended(lab, "offload_disabled", low,
        "ip netns exec " + low.ns().name() + " ethtool -K " + low.name() + " tso on");
    // the healthy control, driven beside it
    for (Map.Entry<String, DeviceAt> d : s2h.devices().entrySet()) {
      assertThat(t.delta("segscope_gso_sw_skbs_total", dev(d.getValue())))
          .as("S2 healthy: software segmentation on %s", d.getKey()).isZero();
    }
    String netns = Long.toString(s2h.device("lower").ns().inode());
    assertThat(t.delta("segscope_gso_offloaded_skbs_total", dev(s2h.device("lower"))))
        .as("intact super-packets on the lower veth; the namespace's offloaded series before %s, after %s",
            t.before().samples("segscope_gso_offloaded_skbs_total").stream()
                .filter(x -> netns.equals(x.labels().get("netns"))).toList(),
            t.after().samples("segscope_gso_offloaded_skbs_total").stream()
                .filter(x -> netns.equals(x.labels().get("netns"))).toList())
        .isGreaterThan(100);
    assertNoAdviceFor(s2h);
  }

  /**
   * Whether generic XDP copies a received skb depends on its shape (docs/metrics.md: nonlinear, or less
   * than 256 bytes of headroom; or cloned), not on a share of the traffic: the test holds segscope's
   * counts against what arrived on the device (its rx counters) and against an independent
   * classification of every arriving skb by the kernel's copy predicate ({@link KernelOracle}).
   */
  @Test
  @Tag(S3)
  @LabTest
  void s3GenericXdpCopiesAreCountedOnTheReceiverAndItsHealthyControlHasNone(Lab lab) throws Exception {
    Prerequisites.requireClang();
    Topology s3 = Scenarios.s3GenericXdp(lab, false);
    Topology s3h = Scenarios.s3GenericXdp(lab, true);
    Traffic t = driveBeside(lab, s3, s3h, true);
    assertGenericXdpCopies(lab, t, s3, true);
    // the healthy control, driven beside it
    for (Map.Entry<String, DeviceAt> d : s3h.devices().entrySet()) {
      assertThat(t.delta("segscope_xdp_generic_skbs_total", dev(d.getValue())))
          .as("S3 healthy: generic XDP on %s", d.getKey()).isZero();
    }
    assertThat(((IperfResult) t.results().get(1)).sentBytes()).as("S3 healthy: traffic flowed").isPositive();
    // the agent was measuring all along: the same traffic's super-packets went intact through the sender
    assertThat(t.delta("segscope_gso_offloaded_skbs_total", dev(s3h.device("sender"))))
        .as("S3 healthy: intact super-packets on the sender").isGreaterThan(100);
    assertNoAdviceFor(s3h);
  }

  /**
   * Generic-XDP copies on S3's receiver, held against its rx counters and the oracle's classification;
   * {@code advice}: and the recommendation opens.
   */
  void assertGenericXdpCopies(Lab lab, Traffic t, Topology s3, boolean advice) throws Exception {
    DeviceAt receiver = s3.device("receiver");
    Map<String, String> rcv = dev(receiver);
    double copied = t.delta("segscope_xdp_generic_skbs_total", with(rcv, "outcome", "copied"));
    double passed = t.delta("segscope_xdp_generic_skbs_total", with(rcv, "outcome", "passed"));
    double bytes = t.delta("segscope_xdp_generic_copied_bytes_total", rcv);
    double timed = t.delta("segscope_xdp_generic_copy_duration_seconds_count", rcv);
    double seconds = t.delta("segscope_xdp_generic_copy_duration_seconds_sum", rcv);
    KernelOracle.Xdp shape = t.oracle().xdp(receiver);
    long arrivedAtLeast = t.inner().rxPacketsSince(t.inner0(), receiver);
    long arrivedAtMost = t.outer().rxPacketsSince(t.outer0(), receiver);
    long oracleOnly = t.oracleOnlyRxPackets(receiver);
    System.out.printf(
        "[%s] " + s3.name() + " receiver: %.0f copied + %.0f passed (device rx %d..%d), %.0f bytes copied;"
            + " oracle %s (+%d outside segscope's window); %.0f timed, mean %.0f ns%n",
        mode(), copied, passed,
        arrivedAtLeast, arrivedAtMost, bytes, shape, oracleOnly, timed, timed > 0 ? seconds / timed * 1e9 : 0);
    assertThat(copied).as("skbs copied for generic XDP on the receiver %s; all xdp series: %s", rcv,
        t.after().samples("segscope_xdp_generic_skbs_total")).isPositive();
    assertModeLabel(t, "segscope_xdp_generic_skbs_total", rcv);
    // every skb that ran through the device's generic XDP program arrived on it: at most the rx packets
    // of the outer interval. Not at least those of the inner one: the rx counter counts packets as the
    // peer hands them over, and a receive that aggregates (GRO) hands the hook fewer skbs than packets
    // (seen: IPv6, 10 of 45427). That every skb the hook saw is counted, copied or passed, is what the
    // oracle below checks, skb by skb.
    assertThat(copied + passed).as("copied + passed skbs vs the receiver's rx packets %d..%d (read around"
        + " both map reads)", arrivedAtLeast, arrivedAtMost).isPositive().isLessThanOrEqualTo((double) arrivedAtMost);
    assertThat(bytes).as("bytes copied vs the receiver's rx bytes")
        .isLessThanOrEqualTo(t.outer().rxBytesSince(t.outer0(), receiver));
    // each copied skb's shape says why: the oracle saw every skb segscope counted (and at most
    // oracleOnly more, which arrived just before or after segscope's window)
    // (and at most `missed` fewer: events the kernel skipped the oracle's programs for)
    long missed = Math.max(0, t.oracle().recursionMisses());
    assertThat(copied).as("copied skbs vs skbs the copy predicate selects (oracle %s, %d skipped)", shape, missed)
        .isBetween((double) shape.copied() - oracleOnly, (double) shape.copied() + missed);
    assertThat(passed).as("passed skbs vs skbs the copy predicate lets pass (oracle %s, %d skipped)", shape, missed)
        .isBetween((double) shape.passed() - oracleOnly, (double) shape.passed() + missed);
    // a copy moves the packet: between its length without and with the MAC header
    assertThat(bytes).as("bytes copied vs the lengths of the skbs the predicate selects (oracle %s)", shape)
        .isBetween((double) shape.copiedLenBytes() - (double) oracleOnly * shape.maxLen(),
            (double) shape.copiedFrameBytes());
    if (timesXdpCopies()) {
      assertThat(timed).as("every copy timed in %s mode", mode()).isEqualTo(copied);
      assertThat(seconds).as("total copy time").isPositive();
    } else {
      assertThat(timed).as("tracepoint mode cannot time copies: no duration series").isZero();
    }
    assertThat(t.delta("segscope_xdp_generic_skbs_total", dev(s3.device("sender"))))
        .as("generic XDP on the sender (it has none)").isZero();
    DeviceAt r = s3.device("receiver");
    if (!advice) {
      return;
    }
    // on a veth, driver mode does not help (issue 28; AdviceEndToEndIT measures it): explained, no command
    JsonNode rec = awaitRecommended("generic_xdp_copy", r);
    assertThat(commands(rec)).as("[%s] generic_xdp_copy commands on a veth", mode()).isEmpty();
    assertThat(rec.path("explanation").asText()).contains("does not help on a veth");
  }

  /**
   * The rule's recommendation about {@code subject} opens (within {@link #adviceWait} of the traffic: the advice
   * window keeps the evidence for 3 s after it) and carries {@code command} among its commands.
   */
  void assertRecommended(Lab lab, String rule, DeviceAt subject, String command) throws Exception {
    JsonNode r = awaitRecommended(rule, subject);
    assertThat(commands(r)).as("[%s] %s commands", mode(), rule).contains(command);
  }

  /**
   * The open recommendation of {@code rule} whose subject is {@code subject} (namespace by inode and
   * name, device by name), waiting up to {@link #adviceWait} for it; its evidence names the agent's mode.
   */
  JsonNode awaitRecommended(String rule, DeviceAt subject) throws Exception {
    long start = System.nanoTime();
    JsonNode[] last = {null};
    JsonNode r = Await.atMost(adviceWait()).every(Duration.ofMillis(500)).pollOrFail(() -> {
      last[0] = openRecommendations();
      for (JsonNode open : last[0]) {
        if (concerns(open, rule, subject)) {
          return Optional.of(open);
        }
      }
      return Optional.empty();
    }, () -> "[" + mode() + "] no " + rule + " recommendation for " + subject + "; open: " + last[0]);
    assertThat(r.path("evidence").path("mode").asText()).as("evidence mode").isEqualTo(mode());
    System.out.printf("[%s] %s on %s open after %d ms of waiting%n", mode(), rule, subject,
        (System.nanoTime() - start) / 1_000_000);
    return r;
  }

  /**
   * After {@code rule}'s commands ran on {@code scenario}: in the drive between {@code before} and
   * {@code after}, super-packets still cross {@code subject} (more than 50 intact) and its software-segmented
   * share is at most 5 % of what it was in {@code first}, the drive that found the fault.
   */
  void assertFixed(String scenario, String rule, DeviceAt subject, Traffic first, PromText before, PromText after) {
    Map<String, String> d = dev(subject);
    double sw0 = first.delta("segscope_gso_sw_skbs_total", d);
    double off0 = first.delta("segscope_gso_offloaded_skbs_total", d);
    double sw1 = after.sum("segscope_gso_sw_skbs_total", d) - before.sum("segscope_gso_sw_skbs_total", d);
    double off1 =
        after.sum("segscope_gso_offloaded_skbs_total", d) - before.sum("segscope_gso_offloaded_skbs_total", d);
    System.out.printf("[%s] %s after %s's commands on %s: %.0f software-segmented, %.0f intact (before: %.0f, "
        + "%.0f)%n", mode(), scenario, rule, subject, sw1, off1, sw0, off0);
    assertThat(off1).as("%s: super-packets crossing %s intact after the fix", scenario, subject).isGreaterThan(50);
    assertThat(sw1 / (sw1 + off1)).as("%s: software-segmented share on %s after the fix (before %.3f)", scenario,
        subject, sw0 / (sw0 + off0)).isLessThanOrEqualTo(0.05 * sw0 / (sw0 + off0));
  }

  /** Runs each of a recommendation's commands exactly as the API quotes it, with {@code sh -c}; each must exit 0. */
  static void runCommands(JsonNode recommendation) throws Exception {
    for (String command : commands(recommendation)) {
      Process p = new ProcessBuilder("sh", "-c", command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes());
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("segscope's command '%s' within 60 s", command).isTrue();
      assertThat(p.exitValue()).as("segscope's command '%s': %s", command, out).isZero();
    }
  }

  /** Whether recommendation {@code r} is {@code rule}'s about {@code subject} (namespace by inode and name, device). */
  static boolean concerns(JsonNode r, String rule, DeviceAt subject) {
    return r.path("rule").asText().equals(rule)
        && r.path("subject").path("netns").asLong() == subject.ns().inode()
        && r.path("subject").path("netns_name").asText().equals(subject.ns().name())
        && r.path("subject").path("device").asText().equals(subject.name());
  }

  /** A recommendation's commands, quoted for a POSIX shell, in order. */
  static List<String> commands(JsonNode rec) {
    List<String> cmds = new ArrayList<>();
    rec.path("commands").forEach(c -> cmds.add(c.asText()));
    return cmds;
  }

  /**
   * Software segmentation on {@code d} accounts for what left it: every segment and every intact
   * super-packet is one packet in the device's tx counters; and where the kernel oracle counts
   * segmentation (6.3+), segscope saw exactly the super-packets it saw, give or take those it counted
   * just outside segscope's window.
   */
  void assertSegmentationAccountsForTheDevice(Traffic t, DeviceAt d, double skbs, double segs,
      double bytes) throws Exception {
    double offloaded = t.delta("segscope_gso_offloaded_skbs_total", dev(d));
    // each segment and each intact super-packet is either sent or dropped by the device (a veth drops
    // what its peer's backlog refuses: seen under emulation, never on the host)
    long dropped = t.outer().txDroppedSince(t.outer0(), d);
    assertThat(segs + offloaded).as("segments + intact super-packets vs %s's tx packets + %d tx dropped",
        d.name(), dropped).isLessThanOrEqualTo(t.outer().txPacketsSince(t.outer0(), d) + dropped);
    // a dropped segment carries at most an MTU and the Ethernet header
    assertThat(bytes).as("bytes segmented vs %s's tx bytes (the segments repeat the headers) + %d dropped"
        + " segments of at most MTU + 14 bytes", d.name(), dropped).isLessThanOrEqualTo(
            t.outer().txBytesSince(t.outer0(), d) + (double) dropped * (t.outer().of(d).mtu() + 14));
    if (!t.oracle().gsoCounted()) {
      System.out.printf("[%s] kernel %s: consume_skb has no location field: no GSO oracle%n", mode(),
          System.getProperty("os.version"));
      return;
    }
    KernelOracle.Gso o = t.oracle().gso(d);
    long extra = t.oracleOnlyTxPackets(d);
    // the oracle's own programs can be skipped by the kernel (a tracepoint firing in an interrupt while
    // one of them runs on that CPU): each skipped event is a super-packet it may have missed, of at
    // most 64 KiB, so at most 64 KiB / mss + 1 segments
    long missed = Math.max(0, t.oracle().recursionMisses());
    assertThat(skbs).as("super-packets segmented on %s vs the oracle %s (+%d packets outside the window, %d"
        + " oracle events skipped by the kernel)", d.name(), o, extra, missed)
        .isBetween((double) o.skbs() - extra, (double) o.skbs() + missed);
    if (extra == 0 && missed == 0) {
      assertThat(segs).as("segments on %s vs the oracle %s", d.name(), o).isEqualTo((double) o.segments());
      assertThat(bytes).as("bytes on %s vs the oracle %s", d.name(), o).isEqualTo((double) o.bytes());
    } else {
      double segsPerMissed = Math.ceil(65536 / mss(t.sent())) + 1;
      assertThat(segs).as("segments on %s vs the oracle %s, %d skipped", d.name(), o, missed)
          .isLessThanOrEqualTo(o.segments() + missed * segsPerMissed);
      assertThat(bytes).as("bytes on %s vs the oracle %s, %d skipped", d.name(), o, missed)
          .isLessThanOrEqualTo(o.bytes() + missed * 65536.0);
    }
  }

  void assertSegmentsFitTheBytes(Traffic t, double skbs, double segs, double bytes) throws Exception {
    assertSegmentsFitTheBytes(skbs, segs, bytes, mss(t.sent()));
  }

  /**
   * A super-packet of {@code len} bytes, {@code h} of them headers, cut at gso_size (iperf3's MSS)
   * makes ceil((len - h) / mss) segments, with 54 <= h <= 134 (Ethernet 14, IPv4 20..60, TCP 20..60):
   * so (bytes - 134 skbs) / mss <= segments <= (bytes - 54 skbs) / mss + skbs, whatever the sizes.
   */
  static void assertSegmentsFitTheBytes(double skbs, double segs, double bytes, double mss) {
    assertThat(segs).as("segments of %.0f super-packets of %.0f bytes at mss %.0f", skbs, bytes, mss)
        .isBetween((bytes - 134 * skbs) / mss, (bytes - 54 * skbs) / mss + skbs);
  }

  /**
   * The segments-per-super-packet histogram holds every software-segmented super-packet, each in the
   * bucket of its segment count: its count is the skbs counter, and the segments counter lies between
   * the sums of the buckets' lower and upper bounds (bucket (a, b] holds the whole numbers a+1 .. b).
   */
  static void assertSegmentsHistogram(PromText before, PromText after, Map<String, String> device, double skbs,
      double segs) {
    String name = "segscope_gso_sw_segments_per_skb";
    assertThat(after.sum(name + "_count", device) - before.sum(name + "_count", device))
        .as("super-packets in the segments-per-skb histogram").isEqualTo(skbs);
    TreeMap<Double, Double> cumulative = new TreeMap<>();
    for (PromText.Sample b : after.samples(name + "_bucket")) {
      if (b.labels().entrySet().containsAll(device.entrySet())) {
        double le = b.labels().get("le").equals("+Inf") ? Double.POSITIVE_INFINITY
            : Double.parseDouble(b.labels().get("le"));
        cumulative.merge(le, b.value() - before.sum(name + "_bucket", with(device, "le", b.labels().get("le"))),
            Double::sum);
      }
    }
    double low = 0;
    double high = 0;
    double previousLe = -1;
    double previousCount = 0;
    for (Map.Entry<Double, Double> e : cumulative.entrySet()) {
      double n = e.getValue() - previousCount;
      low += n * (Math.floor(previousLe) + 1);
      high += n == 0 ? 0 : n * e.getKey();
      previousLe = e.getKey();
      previousCount = e.getValue();
    }
    assertThat(segs).as("segments vs the bounds of the histogram's buckets %s", cumulative).isBetween(low, high);
  }

  /**
   * The histograms hold every software segmentation; every one is timed, except, in tracepoint mode,
   * those whose start was not seen on the segmenting CPU (counted, not timed:
   * segscope_probe_diagnostic_total{kind="segmented_untimed"}, which counts them on every device).
   */
  void assertTimed(Traffic t, Map<String, String> device, double skbs) {
    double timed = t.delta("segscope_gso_sw_duration_seconds_count", device);
    assertSegmentsHistogram(t.before(), t.after(), device, skbs, t.delta("segscope_gso_sw_segments_total", device));
    assertThat(timed).as("timed segmentations").isPositive().isLessThanOrEqualTo(skbs);
    if (mode().equals("tracepoint")) {
      assertThat(skbs - timed).as("untimed segmentations vs segmented_untimed diagnostics")
          .isLessThanOrEqualTo(t.delta("segscope_probe_diagnostic_total", labels("kind", "segmented_untimed")));
    } else {
      assertThat(timed).as("every segmentation timed in %s mode", mode()).isEqualTo(skbs);
    }
  }

  /** In a scenario with one cause, every software-segmented super-packet has that cause and no other. */
  void assertAllForOneCause(Traffic t, Map<String, String> device, double skbs, String cause) {
    assertThat(t.delta("segscope_gso_sw_cause_skbs_total", device)).as("super-packets over all causes")
        .isEqualTo(skbs);
    assertThat(t.delta("segscope_gso_sw_cause_skbs_total", with(device, "cause", cause)))
        .as("cause %s", cause).isEqualTo(skbs);
  }

  /**
   * Runs iperf3 from the scenario's sender to its receiver between two map reads of the agent, with
   * the kernel oracle counting and the devices' counters read around each map read: counters (0),
   * oracle attached, counters (1), a map read that began after (1), counters (2), traffic, counters
   * (3) once the traffic has settled ({@link LinkCounters#readWhenSettled}), a map read that began
   * after (3), counters (4), oracle stopped, counters (5). So segscope's
   * window lies within [1, 4] and contains [2, 3], and the oracle's within [0, 5] contains [1, 4].
   * {@code withOracle} false: no oracle (its counts are {@link KernelOracle#none}), c0 = c1, c5 = c4.
   */
  private Traffic drive(Lab lab, Topology s, boolean withOracle) throws Exception {
    return driveBeside(lab, s, null, withOracle);
  }

  /**
   * {@link #drive} of seed scenario {@code s} and, when not null, its healthy control {@code healthy} at once: both
   * flows run for {@link #traffic}, between the same two map reads.
   */
  private Traffic driveBeside(Lab lab, Topology s, Topology healthy, boolean withOracle) throws Exception {
    Duration d = traffic();
    List<Topology> topologies = healthy == null ? List.of(s) : List.of(s, healthy);
    List<Flow> flows = topologies.stream().<Flow>map(x -> () -> lab.iperf(x.sender(), x.receiver(),
        x.receiverAddr(), d)).toList();
    if (withOracle) {
      return driveAll(lab, topologies, flows, false);
    }
    // nothing to hold against the oracle (a healthy control, or GSO on a kernel it cannot count):
    // bpftrace is not started (under emulation its start alone takes tens of seconds)
    List<DeviceAt> devices = new ArrayList<>();
    topologies.forEach(t -> t.devices().values().stream().filter(x -> !devices.contains(x)).forEach(devices::add));
    LinkCounters c1 = LinkCounters.read(lab, devices);
    PromText before = agent.scrapeOfAReadStartedAfter(Instant.now(), readyTimeout());
    LinkCounters c2 = LinkCounters.read(lab, devices);
    List<Object> sent = runFlows(flows);
    LinkCounters c3 = LinkCounters.readWhenSettled(lab, devices, SETTLE);
    PromText after = agent.scrapeOfAReadStartedAfter(Instant.now(), readyTimeout());
    LinkCounters c4 = LinkCounters.read(lab, devices);
    keepScrapes(topologies, before, after);
    return new Traffic(before, after, sent, c1, c1, c2, c3, c4, c4, KernelOracle.none());
  }

  /** Runs every flow at once and returns what each sent, in order. */
  private List<Object> runFlows(List<Flow> flows) throws Exception {
    List<Object> sent = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(flows.size());
    try {
      List<Future<Object>> running = new ArrayList<>();
      for (Flow f : flows) {
        running.add(pool.submit(f::send));
      }
      for (Future<Object> r : running) {
        try {
          sent.add(r.get(traffic().toSeconds() + 60, TimeUnit.SECONDS));
        } catch (ExecutionException e) {
          throw e.getCause() instanceof Exception x ? x : e;
        }
      }
    } finally {
      pool.shutdownNow();
    }
    return sent;
  }

  /**
   * Keeps the suite's agent log as agent-MODE.log for whoever reads a run: in the guest run's output directory
   * ({@code SEGSCOPE_GUEST_OUT}: the guest's own files are gone with it), else target/scenario-scrapes/.
   */
  private void keepAgentLog() {
    String guestOut = System.getenv("SEGSCOPE_GUEST_OUT");
    Path dir = guestOut != null ? Path.of(guestOut) : Path.of("target", "scenario-scrapes");
    try {
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("agent-" + mode() + ".log"), agent.log());
    } catch (IOException e) {
      System.out.println("keep agent log: " + e.getMessage());
    }
  }

  /** Keeps both scrapes of a drive in target/scenario-scrapes/ for whoever reads a failure. */
  private static void keepScrapes(List<Topology> topologies, PromText before, PromText after) {
    try {
      Path dir = Path.of("target", "scenario-scrapes");
      Files.createDirectories(dir);
      String name = topologies.get(0).name().replaceAll("[^A-Za-z0-9_.-]", "_");
      Files.writeString(dir.resolve(name + ".before.prom"), before.text());
      Files.writeString(dir.resolve(name + ".after.prom"), after.text());
    } catch (IOException e) {
      System.out.println("keep scrapes: " + e.getMessage());
    }
  }

  /** One flow of traffic through a scenario: sends for {@link #TRAFFIC} and returns what it sent. */
  @FunctionalInterface
  interface Flow {
    Object send() throws Exception;
  }

  /** iperf3 TCP from the scenario's sender to its receiver. */
  static Flow iperf(Lab lab, Topology s) {
    return () -> lab.iperf(s.sender(), s.receiver(), s.receiverAddr(), TRAFFIC);
  }

  /**
   * {@link #drive} for several scenarios at once (a scenario beside its healthy control): every flow runs
   * at the same time, between the same two map reads; the counters cover every device of every
   * topology. {@code countXmit}: the oracle also counts what each driver is handed.
   */
  Traffic driveAll(Lab lab, List<Topology> topologies, List<Flow> flows, boolean countXmit) throws Exception {
    List<DeviceAt> devices = new ArrayList<>();
    topologies.forEach(t -> t.devices().values().stream().filter(d -> !devices.contains(d)).forEach(devices::add));
    LinkCounters c0 = LinkCounters.read(lab, devices);
    KernelOracle.Counts oracle;
    LinkCounters c1;
    LinkCounters c2;
    LinkCounters c3;
    LinkCounters c4;
    PromText before;
    PromText after;
    List<Object> sent = new ArrayList<>();
    phase("drive: counters read, oracle starts");
    try (KernelOracle o = KernelOracle.start(readyTimeout(), countXmit)) {
      phase("drive: oracle started");
      c1 = LinkCounters.read(lab, devices);
      before = agent.scrapeOfAReadStartedAfter(Instant.now(), readyTimeout());
      c2 = LinkCounters.read(lab, devices);
      sent.addAll(runFlows(flows));
      phase("drive: flows done");
      c3 = LinkCounters.readWhenSettled(lab, devices, SETTLE);
      after = agent.scrapeOfAReadStartedAfter(Instant.now(), readyTimeout());
      c4 = LinkCounters.read(lab, devices);
      phase("drive: read after, oracle stops");
      oracle = o.stop();
    }
    LinkCounters c5 = LinkCounters.read(lab, devices);
    phase("drive: done");
    keepScrapes(topologies, before, after);
    return new Traffic(before, after, sent, c0, c1, c2, c3, c4, c5, oracle);
  }

  /** Every sample of {@code name} on the device carries the expected mode label. */
  void assertModeLabel(Traffic t, String name, Map<String, String> device) {
    double all = t.after().sum(name, device);
    assertThat(t.after().sum(name, with(device, "mode", mode())))
        .as("%s on %s labelled mode=%s", name, device, mode()).isEqualTo(all).isPositive();
  }

  /**
   * Two scrapes around the traffic, the devices' counters c0..c5 (see {@link #drive}) and what the
   * kernel oracle counted.
   */
  record Traffic(PromText before, PromText after, List<Object> results, LinkCounters c0, LinkCounters c1,
      LinkCounters c2, LinkCounters c3, LinkCounters c4, LinkCounters c5, KernelOracle.Counts oracle) {
    /** What the first flow sent, when it was iperf3. */
    IperfResult sent() {
      return (IperfResult) results.get(0);
    }

    double delta(String name, Map<String, String> match) {
      return after.sum(name, match) - before.sum(name, match);
    }

    /** The counters whose interval [c1, c4] contains segscope's window. */
    LinkCounters outer0() {
      return c1;
    }

    LinkCounters outer() {
      return c4;
    }

    /** The counters whose interval [c2, c3] segscope's window contains. */
    LinkCounters inner0() {
      return c2;
    }

    LinkCounters inner() {
      return c3;
    }

    /**
     * Packets {@code d} received while the oracle may have counted and segscope not: the oracle's
     * window lies within [c0, c5] and segscope's contains [c2, c3], so an event only the oracle saw
     * lies in [c0, c2] or [c3, c5] (not only in [c0, c1] and [c4, c5]: segscope's first read begins
     * some time after c1 and its last ends some time before c5).
     */
    long oracleOnlyRxPackets(DeviceAt d) {
      return c2.rxPacketsSince(c0, d) + c5.rxPacketsSince(c3, d);
    }

    /** Packets {@code d} sent while the oracle may have counted and segscope not (see above). */
    long oracleOnlyTxPackets(DeviceAt d) {
      return c2.txPacketsSince(c0, d) + c5.txPacketsSince(c3, d);
    }
  }

  // ---- the call-site scenarios: each beside its healthy control, in one drive ----

  /** Traffic per flow in the call-site scenarios (shorter than the seed's: many scenarios, one suite). */
  static final Duration SHORT = Duration.ofSeconds(2);

  /** iperf3 TCP for {@code d}. */
  static Flow iperf(Lab lab, Topology s, Duration d) {
    return () -> lab.iperf(s.sender(), s.receiver(), s.receiverAddr(), d);
  }

  /**
   * The lab's UDP GSO sender from the scenario's sender to a sink on its receiver (port {@code port}),
   * super-packets of {@code size} payload bytes cut at 1,400; {@code groSink}: the sink takes GRO'd datagrams.
   */
  static Flow udp(Lab lab, Topology s, UdpGsoSender udp, int port, int size, boolean groSink) {
    return udp(lab, s, udp, port, size, groSink, SHORT);
  }

  /** {@link #udp(Lab, Topology, io.segscope.lab.UdpGsoSender, int, int, boolean)} for {@code duration}. */
  static Flow udp(Lab lab, Topology s, UdpGsoSender udp, int port, int size, boolean groSink,
      Duration duration) {
    return () -> {
      try (UdpGsoSender.Sink sink = udp.sink(s.receiver(), s.receiverAddr(), port, lab.workDir(),
          groSink)) {
        UdpGsoSender.Sent sent = udp.send(s.sender(), s.receiverAddr(), port, 1400, size, duration);
        sink.stop();
        return sent;
      }
    };
  }

  /**
   * What a scenario must show where the kernel segments: on {@code device}, every software-segmented
   * super-packet at {@code site} (the oracle's functions {@code oracleSite}) for {@code cause}, of GSO
   * type {@code gsoType}; {@code received}: the device receives them (udp_rx), so the packets counted
   * outside segscope's window are its rx packets; {@code timed}: tracepoint mode times them (the
   * super-packet was queued on this device first).
   */
  record Segmenting(DeviceAt device, String site, Predicate<String> oracleSite, String cause,
      String gsoType, boolean received, boolean timed) {}

  /**
   * The agent's counts on the segmenting device against the kernel oracle: super-packets, segments and
   * bytes within 1 % of the oracle's (never above: the oracle's window contains segscope's) and no
   * further below than the packets the device counted outside segscope's window; every one with the
   * site, cause and GSO type labels; the segments histogram holds them all; the mode label. Returns the
   * super-packets counted.
   */
  double assertSegmentedAt(Traffic t, Topology scenario, Segmenting e) {
    DeviceAt d = e.device();
    Map<String, String> m = dev(d);
    double skbs = t.delta("segscope_gso_sw_skbs_total", m);
    double segs = t.delta("segscope_gso_sw_segments_total", m);
    double bytes = t.delta("segscope_gso_sw_bytes_total", m);
    KernelOracle.Gso o = t.oracle().gso(d, e.oracleSite());
    long extra = e.received() ? t.oracleOnlyRxPackets(d) : t.oracleOnlyTxPackets(d);
    System.out.printf("[%s] %s %s: %.0f super-packets, %.0f segments, %.0f bytes (%.0f B each); oracle %s"
        + " (+%d packets outside the window, %d oracle events skipped by the kernel); oracle by function %s%n", mode(),
        scenario.name(), d.name(), skbs, segs, bytes, skbs > 0 ? bytes / skbs : 0, o, extra,
        t.oracle().recursionMisses(), t.oracle().functions(d));
    // the drive made the scenario segment (the counts' exact agreement with the oracle is checked below); how many
    // depends on the machine's speed (39-124 per kind in one shared phase under emulation), so no more than that
    assertThat(skbs).as("%s: super-packets segmented in software on %s", scenario.name(), d.name())
        .isGreaterThanOrEqualTo(10);
    assertModeLabel(t, "segscope_gso_sw_skbs_total", m);
    if (t.oracle().gsoCounted()) {
      assertWithinOracle("super-packets", scenario, d, skbs, o.skbs(), extra);
      assertWithinOracle("segments", scenario, d, segs, o.segments(), extra);
      assertWithinOracle("bytes", scenario, d, bytes, o.bytes(), extra);
    } else {
      System.out.printf("[%s] kernel %s: no GSO oracle%n", mode(), System.getProperty("os.version"));
    }
    assertThat(t.delta("segscope_gso_sw_site_skbs_total", with(m, "site", e.site())))
        .as("%s: super-packets on %s at site %s (all sites: %s)", scenario.name(), d.name(), e.site(),
            t.after().samples("segscope_gso_sw_site_skbs_total").stream()
                .filter(x -> x.labels().entrySet().containsAll(m.entrySet())).toList())
        .isEqualTo(skbs);
    assertThat(t.delta("segscope_gso_sw_cause_skbs_total", with(m, "cause", e.cause())))
        .as("%s: super-packets on %s for cause %s (all causes: %s)", scenario.name(), d.name(), e.cause(),
            t.after().samples("segscope_gso_sw_cause_skbs_total").stream()
                .filter(x -> x.labels().entrySet().containsAll(m.entrySet()) && x.value() > 0).toList())
        .isEqualTo(skbs);
    if (e.gsoType() != null) {
      assertThat(t.delta("segscope_gso_sw_type_skbs_total", with(m, "gso_type", e.gsoType())))
          .as("%s: super-packets on %s of GSO type %s", scenario.name(), d.name(), e.gsoType()).isEqualTo(skbs);
    }
    assertSegmentsHistogram(t.before(), t.after(), m, skbs, segs);
    double timed = t.delta("segscope_gso_sw_duration_seconds_count", m);
    assertThat(timed).as("%s: timed segmentations on %s", scenario.name(), d.name()).isLessThanOrEqualTo(skbs);
    if (e.timed() || !mode().equals("tracepoint")) {
      assertThat(timed).as("%s: timed segmentations on %s", scenario.name(), d.name()).isPositive();
    }
    if (!mode().equals("tracepoint")) {
      assertThat(timed).as("every segmentation timed in %s mode", mode()).isEqualTo(skbs);
    }
    return skbs;
  }

  /**
   * segscope's {@code value} within 1 % of the oracle's. Not exactly: the oracle's window contains
   * segscope's ({@code outside} packets crossed the device outside segscope's), and a classic-tracepoint
   * BPF program (bpftrace's) is skipped when its event fires while another BPF program runs on the CPU
   * (an interrupt's softirq inside a program), which a busy shared machine shows as a few events in
   * ten thousand.
   */
  static void assertWithinOracle(String what, Topology scenario, DeviceAt d, double value, long oracle, long outside) {
    assertThat(value).as("%s: %s on %s vs the oracle's %d (+%d packets outside segscope's window)", scenario.name(),
        what, d.name(), oracle, outside).isBetween(oracle * 0.99, oracle * 1.01);
  }

  /** No device of {@code s} but {@code except} segmented in software (segscope and the oracle agree). */
  void assertOnlyOn(Traffic t, Topology s, DeviceAt except, Predicate<String> oracleSite) {
    for (Map.Entry<String, DeviceAt> d : s.devices().entrySet()) {
      if (d.getValue().equals(except)) {
        continue;
      }
      assertThat(t.delta("segscope_gso_sw_skbs_total", dev(d.getValue())))
          .as("%s: software segmentation on %s (%s)", s.name(), d.getKey(), d.getValue().name()).isZero();
    }
  }

  /**
   * The healthy control segments nothing in software on any of its devices (segscope, and the oracle at
   * the scenario's site), while {@code offloading} hands super-packets to its driver whole; no
   * recommendation concerns it.
   */
  void assertHealthyControl(Traffic t, Topology healthy, DeviceAt offloading,
      Predicate<String> oracleSite) throws Exception {
    for (Map.Entry<String, DeviceAt> d : healthy.devices().entrySet()) {
      assertThat(t.delta("segscope_gso_sw_skbs_total", dev(d.getValue())))
          .as("%s: software segmentation on %s (%s)", healthy.name(), d.getKey(), d.getValue().name()).isZero();
      if (t.oracle().gsoCounted()) {
        assertThat(t.oracle().gso(d.getValue(), oracleSite).skbs())
            .as("%s: the oracle's software segmentation on %s", healthy.name(), d.getKey()).isZero();
      }
    }
    double offloaded = t.delta("segscope_gso_offloaded_skbs_total", dev(offloading));
    System.out.printf("[%s] %s %s: %.0f super-packets offloaded, none segmented%n", mode(), healthy.name(),
        offloading.name(), offloaded);
    assertThat(offloaded).as("%s: super-packets handed whole to %s's driver", healthy.name(), offloading.name())
        .isGreaterThan(50);
    assertNoAdviceFor(healthy);
  }

  /** No open recommendation concerns a namespace of {@code s}. */
  void assertNoAdviceFor(Topology s) throws Exception {
    assertNoAdviceFor(s, openRecommendations());
  }

  /** The agent's open recommendations now (GET /api/v1/recommendations). */
  JsonNode openRecommendations() throws Exception {
    return JSON.readTree(agent.get("/api/v1/recommendations").body()).path("recommendations");
  }

  /**
   * None of {@code recs} (what {@link #openRecommendations} returned) concerns a namespace of {@code s}: several
   * controls checked against one answer (under emulation a request takes seconds).
   */
  void assertNoAdviceFor(Topology s, JsonNode recs) {
    Set<String> ours = new HashSet<>();
    s.devices().values().forEach(d -> ours.add(d.ns().inode() + "/" + d.ns().name()));
    for (JsonNode r : recs) {
      assertThat(ours).as("[%s] advice for the healthy control %s: %s", mode(), s.name(), r).doesNotContain(
          r.path("subject").path("netns").asLong() + "/" + r.path("subject").path("netns_name").asText());
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
    JsonNode n = JSON.readTree(r.rawJson()).path("start").path("tcp_mss_default");
    return n.isNumber() && n.asInt() > 0 ? n.asInt() : 1448;
  }
}

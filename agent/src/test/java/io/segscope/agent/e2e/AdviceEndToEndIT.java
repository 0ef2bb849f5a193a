package io.segscope.agent.e2e;

import static io.segscope.testkit.PromText.labels;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.agent.advice.SavingCheck;
import io.segscope.agent.cost.HostCpu;
import io.segscope.lab.DeviceAt;
import io.segscope.lab.Family;
import io.segscope.lab.Lab;
import io.segscope.lab.LabTest;
import io.segscope.lab.LinkIpv4Max;
import io.segscope.lab.Prerequisites;
import io.segscope.lab.Scenarios;
import io.segscope.lab.TapForwarder;
import io.segscope.lab.TapInjector;
import io.segscope.lab.Topology;
import io.segscope.lab.UdpGsoSender;
import io.segscope.testkit.Await;
import io.segscope.testkit.PromText;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.ResourceLockTarget;

/**
 * Issue "cost model and recommendations", end to end on the real kernel (tracepoint mode): in each
 * seed scenario, and in S6 (routed, smaller egress MTU) and S8 (UDP GSO without tx-udp-segmentation)
 * of issue 13, the right recommendation opens with the right device and command; the test then runs
 * segscope's own command, reruns the traffic, and checks that the cost is gone and the recommendation
 * closes. The healthy controls get no advice. Issue 28: in every host scenario whose recommendation has a
 * command (S1, S2, S4-S8, S10-S12), the test then alternates {@link #ROUNDS} rounds, the fault put back and then
 * segscope's command, and expects the scenario's measure (throughput, or the host's kernel CPU per byte) better
 * by more than the verdict's noise band ({@link #expectBetter}); S3's veth gets no command, and the test shows
 * why. The tests run two at a time (junit-platform.properties; each method is CONCURRENT, not the class, which
 * would let it run beside other classes), each in a lab of its own against the one agent; those that measure
 * (verified savings, rounds) run with no other beside it ({@link #ALONE}): the measures are host-wide, and
 * another test's traffic in one window and not the other would be in it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ResourceLock(value = AdviceEndToEndIT.ALONE, mode = ResourceAccessMode.READ, target = ResourceLockTarget.CHILDREN)
class AdviceEndToEndIT {
  /** Every test takes it to read; S1 to write: it runs alone. */
  static final String ALONE = "segscope-advice-traffic";
  private static final ObjectMapper JSON = new ObjectMapper();
  /**
   * One agent for the class: each test has its own lab (namespaces named for it) and reads only the
   * recommendations and series about it ({@link #inLab}, ids), as operators share one agent per host.
   */
  private AgentProcess agent;
  /** Alternating throughput rounds per comparison, and the iperf3 time of each side of a round. */
  private static final int ROUNDS = 3;
  private static final Duration ROUND = Duration.ofSeconds(4);
  /**
   * Short advice windows so a scenario fits in seconds (the defaults are 30 s / 30 s / 2 m), and timing
   * always: the checks after a fix read the super-packets handed intact to the driver, a figure of
   * the timing windows (docs/metrics.md), and a fix's seconds would mostly fall between default windows.
   */
  private static final String[] FAST_ADVICE = {"--interval", "1s", "--advice-window", "3s",
      "--advice-open-after", "3s", "--advice-close-after", "5s", "--timing-window", "always"};

  @BeforeAll
  void startAgent() throws Exception {
    Prerequisites.requireLab();
    agent = fastAdviceAgent();
  }

  @AfterAll
  void stopAgent() throws Exception {
    if (agent != null) {
      try {
        assertThat(agent.stop()).as("agent exit code after SIGTERM; log:\n%s", agent.log()).isZero();
      } finally {
        agent.close();
      }
    }
  }

  /**
   * S1 (issue 28): the uplink's gso_max_size 16384 is a setting (a veth takes 524280), so segscope's command
   * raises it to what the sender uses; the software segmentation stops, the host's kernel CPU per byte
   * falls (verified), and over 3 alternating rounds (the lowered setting, then segscope's command) the
   * path is faster.
   */
  @Test
  @Execution(ExecutionMode.CONCURRENT)
  @LabTest
  @ResourceLock(value = ALONE, mode = ResourceAccessMode.READ_WRITE)
  void s1GsoSizeMismatchIsFoundAndFixedBySegscopesCommand(Lab lab) throws Exception {
    Topology s1 = Scenarios.s1GsoMismatch(lab, false);
    DeviceAt uplink = s1.device("uplink");
    JsonNode rec = awaitAdviceOn(agent, lab, s1, "gso_size_mismatch", iperf(lab, s1), uplink,
        "ip -n " + uplink.ns().name() + " link set dev " + uplink.name() + " gso_max_size 65536");
    assertThat(rec.path("evidence").path("limit_case").asText()).isEqualTo("setting");
    assertThat(rec.path("cpu_saving_cores").asDouble()).isGreaterThan(0);
    assertThat(agent.scrape().sum("segscope_recommendation_info",
        labels("rule", "gso_size_mismatch", "device", uplink.name()))).isEqualTo(1.0);

    // traffic long enough after the fix for a full advice window once the evidence stopped
    runCommandsThenExpectFixed(agent, s1, rec, commands(rec), uplink, Duration.ofSeconds(7), iperf(lab, s1));
    expectVerifiedSaving(agent, rec);

    String lower = "ip -n " + uplink.ns().name() + " link set dev " + uplink.name() + " gso_max_size "
        + Scenarios.S1_UPLINK_GSO_MAX_SIZE;
    Rounds r = alternate(lab, s1, "lowered uplink (S1)", List.of(lower), "segscope's command", commands(rec));
    assertThat(r.medianB()).as("median throughput after segscope's command vs with the lowered setting: %s", r)
        .isGreaterThan(r.medianA());
    expectBetter(s1, r, Measure.HOST_CPU_PER_BYTE, CPU_PER_BYTE_WHY);
  }

  /**
   * Issue 28's wrong change: in S1, lowering the sender to the uplink's 16384 (what segscope used to
   * recommend) removes the uplink's segmentation too, but every super-packet above it is now four times
   * smaller and the host pays more per byte: the agent reports {@code worse}, with a negative saving and the
   * command that puts the sender back, which works.
   */
  /**
   * The wrong change's size. Lowering the sender to the uplink's 16384 (what segscope used to recommend) is
   * not reliably worse in the host's kernel CPU per byte on this 2-core machine: -17 % to +39 % in the runs of
   * 2026-12-07, within the noise of a 3 s window, as its throughput is within run-to-run spread. A sender
   * lowered to 4096 makes four times as many super-packets again, each through the whole stack: what the
   * verdict must call worse.
   */
  static final int WRONG_SENDER_GSO_MAX_SIZE = 4096;

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  @LabTest
  @ResourceLock(value = ALONE, mode = ResourceAccessMode.READ_WRITE)
  void s1LoweringTheSenderInsteadIsReportedWorseWithItsUndoCommand(Lab lab) throws Exception {
    Topology s1 = Scenarios.s1GsoMismatch(lab, false);
    DeviceAt uplink = s1.device("uplink");
    DeviceAt sender = s1.device("sender");
    JsonNode rec = awaitAdviceOn(agent, lab, s1, "gso_size_mismatch", iperf(lab, s1), uplink);
    String wrong = "ip -n " + sender.ns().name() + " link set dev " + sender.name() + " gso_max_size "
        + WRONG_SENDER_GSO_MAX_SIZE;
    runCommandsThenExpectFixed(agent, s1, rec, List.of(wrong), uplink, Duration.ofSeconds(7), iperf(lab, s1));

    String id = rec.path("id").asText();
    JsonNode v = verification(agent, rec);
    assertThat(v.path("verdict").asText()).as("%s; the agent's advice log:\n%s", v, adviceLog(agent))
        .isEqualTo("worse");
    expectSoftwareDrop(v);
    String undo = "ip -n " + sender.ns().name() + " link set dev " + sender.name() + " gso_max_size 65536";
    List<String> undos = new ArrayList<>();
    v.path("undo").forEach(x -> undos.add(x.asText()));
    assertThat(undos).containsExactly(undo);
    double saving = v.path("saving_cores").asDouble();
    assertThat(v.path("host_cpu_per_unit_ratio").asDouble()).isGreaterThanOrEqualTo(1 + SavingCheck.NOISE);
    assertThat(saving).as("measured saving of a change that costs more").isNegative()
        .isCloseTo(measuredSaving(v), Assertions.within(1e-9));
    PromText m = agent.scrapeOfAReadStartedAfter(Instant.now(), Duration.ofSeconds(30));
    assertThat(m.sum("segscope_recommendation_verified_saving_cores", labels("id", id)))
        .isCloseTo(saving, Assertions.within(1e-9));
    assertThat(m.sum("segscope_recommendation_verification_info", labels("id", id, "verdict", "worse")))
        .isEqualTo(1.0);
    assertThat(agent.log()).contains("recommendation closed: " + id).contains("; worse: it costs ")
        .contains("undo: " + undo);

    Rounds r = alternate(lab, s1, "sender as built (S1)", List.of(undo), "sender lowered", List.of(wrong));
    // the undo command works: the sender is back at 64 KiB
    runAll(List.of(undo));
    JsonNode link = JSON.readTree(lab.exec(sender.ns(), "ip", "-d", "-j", "link", "show", "dev", sender.name()));
    assertThat(link.get(0).path("gso_max_size").asLong()).as("the sender after the undo command").isEqualTo(65536);
    System.out.println("S1 wrong change: " + r);
  }

  /**
   * S12 (issue 28), a real cap: a BIG TCP sender over a tap uplink whose tso_max_size is 64 KiB, with the
   * lab's vhost stand-in moving the tap's frames (GSO metadata intact) to the receiver's tap. The uplink is at
   * its cap, so segscope's command lowers the sender to it; the tap's software segmentation stops, the
   * host's kernel CPU per byte falls (verified), and over 3 alternating rounds (BIG TCP, then segscope's
   * command) the path is faster and the forwarder spends less CPU per byte.
   */
  @Test
  @Execution(ExecutionMode.CONCURRENT)
  @LabTest
  @ResourceLock(value = ALONE, mode = ResourceAccessMode.READ_WRITE)
  void s12TapCapLowersTheSenderAndSavesCpuPerByte(Lab lab) throws Exception {
    Prerequisites.requireClang();
    TapForwarder vhost = TapForwarder.build(lab.workDir());
    LinkIpv4Max ipv4Max = LinkIpv4Max.build(lab.workDir());
    Topology s12 = Scenarios.s12TapCap(lab, false);
    DeviceAt uplink = s12.device("uplink");
    DeviceAt sender = s12.device("sender");
    DeviceAt receiver = s12.device("receiver");
    String fix = "ip -n " + sender.ns().name() + " link set dev " + sender.name() + " gso_max_size 65536";
    JsonNode rec;
    try (TapForwarder.Running f = vhost.start(lab, uplink.ns(), uplink.name(), receiver.ns(), receiver.name())) {
      rec = awaitAdviceOn(agent, lab, s12, "gso_size_mismatch", iperf(lab, s12), uplink, fix);
      assertThat(rec.path("evidence").path("limit_case").asText()).as("evidence of %s", rec).isEqualTo("cap");
      runCommandsThenExpectFixed(agent, s12, rec, commands(rec), uplink, Duration.ofSeconds(7), iperf(lab, s12));
      expectVerifiedSaving(agent, rec);
    }
    // 3 alternating rounds, a fresh forwarder for each side so that its own CPU per byte is known
    List<Double> big = new ArrayList<>();
    List<Double> fixed = new ArrayList<>();
    List<Double> bigNsPerByte = new ArrayList<>();
    List<Double> fixedNsPerByte = new ArrayList<>();
    for (int i = 1; i <= ROUNDS; i++) {
      lab.set(sender.ns(), sender.name(), "gso_max_size", Integer.toString(Scenarios.BIG_TCP_GSO_MAX_SIZE));
      ipv4Max.set(lab, sender.ns(), sender.name(), Scenarios.BIG_TCP_GSO_MAX_SIZE, Scenarios.BIG_TCP_GSO_MAX_SIZE);
      forwardedRound(lab, s12, vhost, big, bigNsPerByte);
      runAll(commands(rec));
      forwardedRound(lab, s12, vhost, fixed, fixedNsPerByte);
      System.out.printf("%s round %d: BIG TCP %.2f Gbit/s (forwarder %.3f ns/B), segscope's command %.2f Gbit/s "
          + "(forwarder %.3f ns/B)%n", s12.name(), i, big.get(i - 1), bigNsPerByte.get(i - 1), fixed.get(i - 1),
          fixedNsPerByte.get(i - 1));
    }
    Rounds r = new Rounds("BIG TCP", big, "segscope's command", fixed);
    System.out.println(s12.name() + ": " + r + "; forwarder CPU per byte " + bigNsPerByte + " vs " + fixedNsPerByte
        + " ns/B");
    assertThat(r.medianB()).as("median throughput after segscope's command vs BIG TCP over the tap: %s", r)
        .isGreaterThan(r.medianA());
    assertThat(Rounds.median(fixedNsPerByte)).as("the forwarder's CPU per byte")
        .isLessThan(Rounds.median(bigNsPerByte));
  }

  /** One iperf3 run of {@link #ROUND} through a fresh forwarder: Gbit/s, and the forwarder's CPU per byte moved. */
  private static void forwardedRound(Lab lab, Topology t, TapForwarder vhost, List<Double> gbits,
      List<Double> nsPerByte) {
    DeviceAt up = t.device("uplink");
    DeviceAt rcv = t.device("receiver");
    TapForwarder.Running f = vhost.start(lab, up.ns(), up.name(), rcv.ns(), rcv.name());
    try {
      gbits.add(lab.iperf(t.sender(), t.receiver(), t.receiverAddr(), ROUND).gbitsPerSecond());
    } finally {
      TapForwarder.Moved m = f.stop();
      nsPerByte.add(m.aToBBytes() > 0 ? (double) m.cpuNanos() / m.aToBBytes() : Double.NaN);
    }
  }

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  @LabTest
  @ResourceLock(value = ALONE, mode = ResourceAccessMode.READ_WRITE)
  void s2OffloadDisabledIsFoundAndFixedBySegscopesCommand(Lab lab) throws Exception {
    Topology s2 = Scenarios.s2OffloadLost(lab, false);
    DeviceAt lower = s2.device("lower");
    JsonNode rec = awaitAdviceOn(agent, lab, s2, "offload_disabled", iperf(lab, s2), lower,
        "ip netns exec " + lower.ns().name() + " ethtool -K " + lower.name() + " tso on");
    fixTsoThenCompareInRounds(lab, s2, lower, rec, "tso off (S2)");
  }

  /**
   * S3 (generic XDP on a veth), issue 28's finding: moving the program to driver mode, what segscope used to
   * command, makes this host worse (a veth copies the same skbs natively, and its peer loses its software GSO
   * features and segments every super-packet). The recommendation now explains, with no command; the test
   * measures that move by hand over 3 alternating rounds and fails if driver mode ever becomes better here in
   * the host's kernel CPU per byte (then the rule could command it again).
   */
  @Test
  @Execution(ExecutionMode.CONCURRENT)
  @LabTest
  @ResourceLock(value = ALONE, mode = ResourceAccessMode.READ_WRITE)
  void s3GenericXdpCopiesOnAVethAreExplainedBecauseDriverModeIsWorse(Lab lab) throws Exception {
    Topology s3 = Scenarios.s3GenericXdp(lab, false);
    DeviceAt receiver = s3.device("receiver");
    JsonNode rec = awaitAdviceOn(agent, lab, s3, "generic_xdp_copy", iperf(lab, s3), receiver);
    assertThat(commands(rec)).as("commands of %s", rec).isEmpty();
    assertThat(rec.path("explanation").asText()).contains("does not help on a veth");
    assertThat(rec.path("evidence").path("driver_mode_helps").asBoolean(true)).isFalse();
    assertThat(rec.path("evidence").path("cpu_basis").asText()).as("tracepoint mode estimates")
        .contains("cannot time");

    // the move segscope used to command, by hand: the same program (kept alive by a pin of the test's own)
    // detached from generic mode and attached in driver mode, alternating with generic mode
    String prog = rec.path("evidence").path("xdp_program_id").asText();
    String keep = "/sys/fs/bpf/" + receiver.ns().name() + "-keep";
    String nsenter = "nsenter --net=/run/netns/" + receiver.ns().name() + " -- ";
    runAll(List.of("bpftool prog pin id " + prog + " " + keep));
    try {
      // each step detaches both modes first (detaching a mode with no program is a no-op)
      Step generic = () -> runAll(List.of(nsenter + "bpftool -- net detach xdpdrv dev " + receiver.name(),
          nsenter + "bpftool -- net detach xdpgeneric dev " + receiver.name(),
          nsenter + "bpftool -- net attach xdpgeneric pinned " + keep + " dev " + receiver.name()));
      Step driver = () -> runAll(List.of(nsenter + "bpftool -- net detach xdpdrv dev " + receiver.name(),
          nsenter + "bpftool -- net detach xdpgeneric dev " + receiver.name(),
          nsenter + "bpftool -- net attach xdpdrv pinned " + keep + " dev " + receiver.name()));
      Rounds r = alternate(s3, "xdpgeneric (S3)", generic, "xdpdrv", driver, iperfMover(lab, s3));
      System.out.printf("%s: driver mode, judged by HOST_CPU_PER_BYTE (the copies cost per packet, and iperf3 runs"
          + " flat out either way): %s%n", s3.name(), r);
      assertThat(Rounds.median(r.nsB())).as("%s: driver mode is not better than generic mode on a veth in host kernel"
          + " CPU per byte (else generic_xdp_copy could command it again): %s", s3.name(), r)
          .isGreaterThan(Rounds.median(r.nsA()) * (1 - SavingCheck.NOISE));
    } finally {
      runAll(List.of("rm -f " + keep));
    }
  }

  /**
   * S6 (routed, smaller egress MTU): mtu_mismatch opens on the router's egress device, its command
   * lowers the sender's MTU through the router namespace, and the router stops segmenting: none after
   * the fix, and segscope's before/after of the closed recommendation shows the drop.
   */
  @Test
  @Execution(ExecutionMode.CONCURRENT)
  @LabTest
  @ResourceLock(value = ALONE, mode = ResourceAccessMode.READ_WRITE)
  void s6MtuMismatchIsFoundAndFixedBySegscopesCommand(Lab lab) throws Exception {
    Topology s6 = Scenarios.s6RoutedSmallerEgressMtu(lab, false);
    DeviceAt routerOut = s6.device("routerOut");
    DeviceAt sender = s6.device("sender");
    JsonNode rec = awaitAdviceOn(agent, lab, s6, "mtu_mismatch", iperf(lab, s6), routerOut,
        "ip -n " + sender.ns().name() + " link set dev " + sender.name() + " mtu " + Scenarios.ROUTED_EGRESS_MTU);
    runCommandsThenExpectFixed(agent, s6, rec, commands(rec), routerOut, Duration.ofSeconds(7), iperf(lab, s6));
    expectVerifiedSaving(agent, rec);
    String back = "ip -n " + sender.ns().name() + " link set dev " + sender.name() + " mtu 1500";
    Rounds r = alternate(lab, s6, "sender MTU 1500 (S6)", List.of(back), "segscope's command", commands(rec));
    expectBetter(s6, r, Measure.HOST_CPU_PER_BYTE, CPU_PER_BYTE_WHY);
  }

  /**
   * S8 (UDP GSO over a veth without tx-udp-segmentation), with the lab's UDP GSO sender:
   * offload_disabled opens on the sender's veth, its command turns exactly that feature on, and the
   * veth then takes the super-packets whole.
   */
  @Test
  @Execution(ExecutionMode.CONCURRENT)
  @LabTest
  @ResourceLock(value = ALONE, mode = ResourceAccessMode.READ_WRITE)
  void s8UdpGsoOffloadDisabledIsFoundAndFixedBySegscopesCommand(Lab lab) throws Exception {
    Prerequisites.requireClang();
    UdpGsoSender udp = UdpGsoSender.build(lab.workDir());
    Topology s8 = Scenarios.s8UdpGsoOffloadOff(lab, false);
    Load datagrams = d -> ScenarioSuite.udp(lab, s8, udp, 9108, 63000, true, d).send();
    DeviceAt sender = s8.device("sender");
    JsonNode rec = awaitAdviceOn(agent, lab, s8, "offload_disabled", datagrams, sender,
        "ip netns exec " + sender.ns().name() + " ethtool -K " + sender.name() + " tx-udp-segmentation on");
    runCommandsThenExpectFixed(agent, s8, rec, commands(rec), sender, Duration.ofSeconds(7), datagrams);
    expectVerifiedSaving(agent, rec);
    String off = "ip netns exec " + sender.ns().name() + " ethtool -K " + sender.name() + " tx-udp-segmentation off";
    Mover udpRound = d -> {
      UdpGsoSender.Sent sent = (UdpGsoSender.Sent) ScenarioSuite.udp(lab, s8, udp, 9108, 63000, true, d).send();
      return new Moved(sent.bytes(), sent.wallNanos() > 0 ? sent.bytes() * 8.0 / sent.wallNanos() : Double.NaN);
    };
    Rounds r = alternate(s8, "tx-udp-segmentation off (S8)", () -> runAll(List.of(off)), "segscope's command",
        () -> runAll(commands(rec)), udpRound);
    expectBetter(s8, r, Measure.HOST_CPU_PER_BYTE, CPU_PER_BYTE_WHY);
  }

  /** S4 (vxlan over an underlay without tx-udp_tnl-segmentation): segscope's ethtool command, in rounds. */
  @Test
  @Execution(ExecutionMode.CONCURRENT)
  @LabTest
  @ResourceLock(value = ALONE, mode = ResourceAccessMode.READ_WRITE)
  void s4TunnelOffloadMissingIsFixedBySegscopesCommand(Lab lab) throws Exception {
    Topology s4 = Scenarios.s4VxlanTunnelOffloadOff(lab, false);
    DeviceAt u0 = s4.device("underlay");
    String on = "ip netns exec " + u0.ns().name() + " ethtool -K " + u0.name()
        + " tx-udp_tnl-segmentation on tx-udp_tnl-csum-segmentation on";
    JsonNode rec = awaitAdviceOn(agent, lab, s4, "tunnel_offload_missing", iperf(lab, s4), u0, on);
    runCommandsThenExpectFixed(agent, s4, rec, commands(rec), u0, Duration.ofSeconds(7), iperf(lab, s4));
    String off = "ip netns exec " + u0.ns().name() + " ethtool -K " + u0.name()
        + " tx-udp_tnl-segmentation off tx-udp_tnl-csum-segmentation off";
    Rounds r = alternate(lab, s4, "tunnel offloads off (S4)", List.of(off), "segscope's command", commands(rec));
    expectBetter(s4, r, Measure.HOST_CPU_PER_BYTE, CPU_PER_BYTE_WHY);
  }

  /** S5 (a tap guest's super-packets into a lowered uplink): segscope raises the uplink, in rounds. */
  @Test
  @Execution(ExecutionMode.CONCURRENT)
  @LabTest
  @ResourceLock(value = ALONE, mode = ResourceAccessMode.READ_WRITE)
  void s5GuestGsoSizeMismatchIsFixedBySegscopesCommand(Lab lab) throws Exception {
    Prerequisites.requireClang();
    TapInjector guest = TapInjector.build(lab.workDir());
    Topology s5 = Scenarios.s5TapIntoSmallerUplink(lab, false);
    DeviceAt up = s5.device("uplink");
    DeviceAt rcv = s5.device("receiver");
    String mac = lab.exec(rcv.ns(), "cat", "/sys/class/net/" + rcv.name() + "/address").strip();
    String guestIp = s5.receiverAddr().substring(0, s5.receiverAddr().lastIndexOf('.')) + ".1";
    Mover inject = d -> {
      TapInjector.Sent sent = guest.send(s5.sender(), s5.device("tap").name(), Scenarios.TAP_GUEST_MAC, mac, guestIp,
          s5.receiverAddr(), Scenarios.TAP_PAYLOAD, Scenarios.TAP_MSS, d);
      return new Moved(sent.bytes(), sent.bytes() * 8.0 / d.toNanos());
    };
    Load load = d -> inject.run(d);
    JsonNode rec = awaitAdviceOn(agent, lab, s5, "guest_gso_size_mismatch", load, up,
        "ip -n " + up.ns().name() + " link set dev " + up.name() + " gso_max_size 65536");
    runCommandsThenExpectFixed(agent, s5, rec, commands(rec), up, Duration.ofSeconds(7), load);
    String lower = "ip -n " + up.ns().name() + " link set dev " + up.name() + " gso_max_size "
        + Scenarios.S1_UPLINK_GSO_MAX_SIZE;
    Rounds r = alternate(s5, "lowered uplink (S5)", () -> runAll(List.of(lower)), "segscope's command",
        () -> runAll(commands(rec)), inject);
    expectBetter(s5, r, Measure.HOST_CPU_PER_BYTE, CPU_PER_BYTE_WHY);
  }

  /** S7 (tbf with a burst below a super-packet): segscope's tc command, in rounds. */
  @Test
  @Execution(ExecutionMode.CONCURRENT)
  @LabTest
  @ResourceLock(value = ALONE, mode = ResourceAccessMode.READ_WRITE)
  void s7QdiscSegmentationIsFixedBySegscopesCommand(Lab lab) throws Exception {
    Topology s7 = Scenarios.s7TbfSmallBurst(lab, false);
    DeviceAt snd = s7.device("sender");
    JsonNode rec = awaitAdviceOn(agent, lab, s7, "qdisc_segmentation", iperf(lab, s7), snd);
    List<String> fix = commands(rec);
    assertThat(fix).hasSize(1);
    runCommandsThenExpectFixed(agent, s7, rec, fix, snd, Duration.ofSeconds(7), iperf(lab, s7));
    // the scenario's own tbf back, by segscope's command with the burst and limit the scenario had
    String back = fix.get(0).replaceAll(" burst [0-9]+ limit [0-9]+$", " burst 16kb latency 2ms");
    assertThat(back).isNotEqualTo(fix.get(0));
    Rounds r = alternate(lab, s7, "tbf burst 16kb (S7)", List.of(back), "segscope's command", fix);
    expectBetter(s7, r, Measure.HOST_CPU_PER_BYTE, CPU_PER_BYTE_WHY
        + "; here tbf's rate (1 Gbit/s) caps the throughput either way");
  }

  /** S10 (ingress redirected to an ifb without TSO): segscope's ethtool command, in rounds. */
  @Test
  @Execution(ExecutionMode.CONCURRENT)
  @LabTest
  @ResourceLock(value = ALONE, mode = ResourceAccessMode.READ_WRITE)
  void s10IfbOffloadDisabledIsFixedBySegscopesCommand(Lab lab) throws Exception {
    Topology s10 = Scenarios.s10IfbIngressRedirect(lab, false);
    DeviceAt ifb = s10.device("ifb");
    JsonNode rec = awaitAdviceOn(agent, lab, s10, "offload_disabled", iperf(lab, s10), ifb);
    assertThat(commands(rec)).contains("ip netns exec " + ifb.ns().name() + " ethtool -K " + ifb.name() + " tso on");
    fixTsoThenCompareInRounds(lab, s10, ifb, rec, "ifb tso off (S10)");
  }

  /**
   * An offload_disabled finding on {@code dev}: segscope's command fixes it, then rounds alternate {@code dev}'s
   * tso off ({@code offName}) with segscope's command, which must be better in the host's kernel CPU per byte.
   */
  private void fixTsoThenCompareInRounds(Lab lab, Topology t, DeviceAt dev, JsonNode rec, String offName)
      throws Exception {
    // 7 s: with 3 s, the traffic after the fix ended before the first read that began after the fix (at a load
    // average of 28 here), and the window between the two reads held none of it (0 handed intact)
    runCommandsThenExpectFixed(agent, t, rec, commands(rec), dev, Duration.ofSeconds(7), iperf(lab, t));
    String off = "ip netns exec " + dev.ns().name() + " ethtool -K " + dev.name() + " tso off";
    Rounds r = alternate(lab, t, offName, List.of(off), "segscope's command", commands(rec));
    expectBetter(t, r, Measure.HOST_CPU_PER_BYTE, CPU_PER_BYTE_WHY);
  }

  /**
   * S11 (BIG TCP against a 64 KiB uplink), both families: over IPv6 segscope raises the uplink (a setting), over
   * IPv4 it brings the sender down to 64 KiB (only the gso_ipv4_max_size keyword, which Debian 12's iproute2
   * lacks, could raise the uplink's IPv4 limit); each in rounds against BIG TCP segmented at the uplink.
   */
  @Test
  @Execution(ExecutionMode.CONCURRENT)
  @LabTest
  @ResourceLock(value = ALONE, mode = ResourceAccessMode.READ_WRITE)
  void s11BigTcpOverIpv6IsFixedBySegscopesRaise(Lab lab) throws Exception {
    Topology s11 = Scenarios.s11BigTcp(lab, false, Family.IPV6);
    DeviceAt up = s11.device("uplink");
    JsonNode rec = awaitAdviceOn(agent, lab, s11, "gso_size_mismatch", iperf(lab, s11), up,
        "ip -n " + up.ns().name() + " link set dev " + up.name() + " gso_max_size " + Scenarios.BIG_TCP_GSO_MAX_SIZE);
    runCommandsThenExpectFixed(agent, s11, rec, commands(rec), up, Duration.ofSeconds(7), iperf(lab, s11));
    String back = "ip -n " + up.ns().name() + " link set dev " + up.name() + " gso_max_size 65536";
    Rounds r = alternate(lab, s11, "uplink at 64 KiB (S11 IPv6)", List.of(back), "segscope's command", commands(rec));
    expectBetter(s11, r, Measure.HOST_CPU_PER_BYTE, CPU_PER_BYTE_WHY);
  }

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  @LabTest
  @ResourceLock(value = ALONE, mode = ResourceAccessMode.READ_WRITE)
  void s11BigTcpOverIpv4IsFixedBySegscopesCommand(Lab lab) throws Exception {
    Prerequisites.requireClang();
    LinkIpv4Max ipv4Max = LinkIpv4Max.build(lab.workDir());
    Topology s11 = Scenarios.s11BigTcp(lab, false, Family.IPV4);
    DeviceAt up = s11.device("uplink");
    DeviceAt snd = s11.device("sender");
    JsonNode rec = awaitAdviceOn(agent, lab, s11, "gso_size_mismatch", iperf(lab, s11), up,
        "ip -n " + snd.ns().name() + " link set dev " + snd.name() + " gso_max_size 65536");
    runCommandsThenExpectFixed(agent, s11, rec, commands(rec), up, Duration.ofSeconds(7), iperf(lab, s11));
    Step big = () -> {
      lab.set(snd.ns(), snd.name(), "gso_max_size", Integer.toString(Scenarios.BIG_TCP_GSO_MAX_SIZE));
      ipv4Max.set(lab, snd.ns(), snd.name(), Scenarios.BIG_TCP_GSO_MAX_SIZE, Scenarios.BIG_TCP_GSO_MAX_SIZE);
    };
    Rounds r = alternate(s11, "BIG TCP sender (S11 IPv4)", big, "segscope's command", () -> runAll(commands(rec)),
        iperfMover(lab, s11));
    expectBetter(s11, r, Measure.HOST_CPU_PER_BYTE, CPU_PER_BYTE_WHY + "; a shrink, as S12: the sender builds"
        + " smaller super-packets (more work per byte above the uplink) and the uplink no longer segments them");
  }

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  @LabTest
  void healthyControlsGetNoAdvice(Lab lab) throws Exception {
    List<Topology> healthy = List.of(Scenarios.s1GsoMismatch(lab, true), Scenarios.s2OffloadLost(lab, true),
        Scenarios.s3GenericXdp(lab, true));
    // counts before the traffic from a read in which the inventory has seen every sender's new namespace: until
    // then a destroyed namespace whose inode the kernel handed to one of them may still show its counters under
    // the same labels (docs/metrics.md, "a reused inode starts at zero"; a run from a fresh clone read 2,843,966
    // super-packets of an earlier test's sender here, and the difference came out negative)
    PromText before = Await.atMost(Duration.ofSeconds(60)).every(Duration.ZERO).pollOrFail(() -> {
      PromText m = agent.scrapeOfAReadStartedAfter(Instant.now(), Duration.ofSeconds(30));
      boolean seen = healthy.stream().map(t -> t.device("sender")).allMatch(snd -> m.sum("segscope_device_info",
          labels("netns", Long.toString(snd.ns().inode()), "device", snd.name())) > 0);
      return seen ? Optional.of(m) : Optional.empty();
    }, () -> "the inventory did not show the healthy controls' senders within 60 s");
    // the three controls at once, each for two advice windows
    CompletableFuture<?> traffic = CompletableFuture.allOf(healthy.stream().map(t -> CompletableFuture.runAsync(
        () -> lab.iperf(t.sender(), t.receiver(), t.receiverAddr(), Duration.ofSeconds(6))))
        .toArray(CompletableFuture[]::new));
    Await.whileTrue(() -> !traffic.isDone()).every(Duration.ofMillis(500)).until(() -> {
      assertThat(inLab(recommendations(agent), lab)).as("advice for a healthy control").isEmpty();
      return false; // watched for the whole of the traffic
    });
    traffic.get(30, TimeUnit.SECONDS);
    // the traffic's last counts read
    PromText after = agent.scrapeOfAReadStartedAfter(Instant.now(), Duration.ofSeconds(30));
    assertThat(inLab(recommendations(agent), lab)).isEmpty();
    // silence is not blindness: the agent measured the same traffic, intact, on every sender
    for (Topology t : healthy) {
      DeviceAt snd = t.device("sender");
      Map<String, String> d = labels("netns", Long.toString(snd.ns().inode()), "device", snd.name());
      assertThat(
          after.sum("segscope_gso_offloaded_skbs_total", d) - before.sum("segscope_gso_offloaded_skbs_total", d))
          .as("intact super-packets measured on %s's sender", t.name()).isGreaterThan(100);
    }
  }

  // ---- helpers

  /** Traffic through a scenario for a while. */
  @FunctionalInterface
  private interface Load {
    void run(Duration d) throws Exception;
  }

  private static CompletableFuture<?> background(Load load, Duration d) {
    return CompletableFuture.runAsync(() -> {
      try {
        load.run(d);
      } catch (Exception e) {
        throw new CompletionException(e);
      }
    });
  }

  /** iperf3 TCP from the scenario's sender to its receiver. */
  private static Load iperf(Lab lab, Topology t) {
    return d -> lab.iperf(t.sender(), t.receiver(), t.receiverAddr(), d);
  }

  /** An agent with {@link #FAST_ADVICE}, ready (programs attached, /readyz 200). */
  private static AgentProcess fastAdviceAgent() throws Exception {
    AgentProcess agent = AgentProcess.start(FAST_ADVICE);
    try {
      agent.awaitReady(Duration.ofSeconds(90));
      return agent;
    } catch (Exception | Error e) {
      agent.close();
      throw e;
    }
  }

  /**
   * The scenario's drive and the check of what opens: runs {@code load} for up to 10 s until the
   * rule's recommendation opens, which must be about {@code subject} (device and namespace) and,
   * when {@code commands} are given, say exactly those.
   */
  private static JsonNode awaitAdviceOn(AgentProcess agent, Lab lab, Topology t, String rule, Load load,
      DeviceAt subject, String... commands) throws Exception {
    JsonNode rec = awaitRecommendation(agent, lab, t, rule, Duration.ofSeconds(10), load);
    assertThat(rec.path("subject").path("device").asText()).as("device of %s", rec).isEqualTo(subject.name());
    assertThat(rec.path("subject").path("netns").asLong()).as("netns of %s", rec).isEqualTo(subject.ns().inode());
    if (commands.length > 0) {
      assertThat(commands(rec)).containsExactly(commands);
    }
    return rec;
  }

  /** Runs {@code load} in the background and polls the API until the rule's recommendation opens. */
  private static JsonNode awaitRecommendation(AgentProcess agent, Lab lab, Topology t, String rule, Duration traffic,
      Load load) throws Exception {
    CompletableFuture<?> running = background(load, traffic);
    Await.Probe<JsonNode, Exception> opened = () -> inLab(recommendations(agent), lab).stream()
        .filter(r -> r.path("rule").asText().equals(rule)).findFirst();
    try {
      Optional<JsonNode> during = Await.whileTrue(() -> !running.isDone()).every(Duration.ofMillis(300)).poll(opened);
      if (during.isPresent()) {
        return during.get();
      }
      running.get();
      // the advice window holds the evidence for --advice-window (3 s) after the traffic: a finding that
      // was still short of --advice-open-after when the traffic ended opens within that
      Optional<JsonNode> after = Await.atMost(Duration.ofSeconds(5)).every(Duration.ofMillis(300)).poll(opened);
      if (after.isPresent()) {
        return after.get();
      }
      Set<String> ours = new HashSet<>();
      t.devices().values().forEach(d -> ours.add(Long.toString(d.ns().inode())));
      throw new AssertionError("no " + rule + " recommendation during " + traffic + " of traffic in " + t.name()
          + "; open: " + recommendations(agent) + "; its devices' software GSO: " + agent.scrape()
              .samples("segscope_gso_sw_cause_skbs_total").stream()
              .filter(x -> ours.contains(x.labels().get("netns")) && x.value() > 0).toList()
          + "\nagent log:\n" + agent.log());
    } finally {
      running.get(60, TimeUnit.SECONDS);
    }
  }

  /** Runs {@code commands} (the recommendation's, or another change), then {@code load}: none is segmented on {@code d}, and it closes. */
  private static void runCommandsThenExpectFixed(AgentProcess agent, Topology t, JsonNode rec, List<String> commands,
      DeviceAt d, Duration trafficAfter, Load load) throws Exception {
    Map<String, String> dev = labels("netns", Long.toString(d.ns().inode()), "device", d.name());
    runAll(commands);
    Instant fixed = Instant.now();
    // the traffic after the fix starts at once: the evidence stopped with the fix, and the
    // recommendation closes --advice-close-after later whether traffic came or not (its verified
    // saving compares the windows up to then). The first traffic's counts, up to the fix, are in a
    // read that began after it; super-packets sent after the fix and counted before it are not
    // segmented, so the software count of the window is all after the fix
    CompletableFuture<?> traffic = background(load, trafficAfter);
    PromText before = agent.scrapeOfAReadStartedAfter(fixed, Duration.ofSeconds(30));
    traffic.get(trafficAfter.toSeconds() + 60, TimeUnit.SECONDS);
    PromText after = agent.scrapeOfAReadStartedAfter(Instant.now(), Duration.ofSeconds(30));
    double sw = after.sum("segscope_gso_sw_skbs_total", dev) - before.sum("segscope_gso_sw_skbs_total", dev);
    double off =
        after.sum("segscope_gso_offloaded_skbs_total", dev) - before.sum("segscope_gso_offloaded_skbs_total", dev);
    System.out.printf("%s after the fix on %s: %.0f software-segmented, %.0f offloaded%n", t.name(), d.name(), sw, off);
    assertThat(off).as("super-packets handed intact to %s after the fix", d.name()).isGreaterThan(100);
    // new connections size their super-packets for the fixed device: none is segmented in software
    assertThat(sw).as("software segmentation on %s after the fix", d.name()).isZero();
    awaitClosed(agent, rec.path("id").asText(), Duration.ofSeconds(20));
  }

  /**
   * The closed recommendation's before/after in the API and /metrics: the software segmentation fell by at
   * least 95 %, the host's kernel CPU per byte through the subject by more than the noise band, and the saving
   * is the measured difference at the traffic before. The traffic after may be beyond 4x the traffic before
   * where segmenting held the senders back (the segmentation is gone: SavingCheck.GONE_SHARE): measured at
   * 3.2x, 6.8x, 8.5x and 9.9x in S6 (the router no longer segments and fragments every forwarded
   * super-packet), 1.6x, 2.9x and 4.4x in S8 (the UDP sender no longer segments in its own context).
   */
  private static void expectVerifiedSaving(AgentProcess agent, JsonNode rec) throws Exception {
    String id = rec.path("id").asText();
    JsonNode v = verification(agent, rec);
    assertThat(v.path("verdict").asText()).as("%s; the agent's advice log:\n%s", v, adviceLog(agent))
        .isEqualTo("verified");
    expectSoftwareDrop(v);
    assertThat(v.path("traffic_ratio").asDouble()).isGreaterThanOrEqualTo(0.25);
    assertThat(v.path("host_cpu_per_unit_ratio").asDouble()).isLessThanOrEqualTo(1 - SavingCheck.NOISE);
    double saving = v.path("saving_cores").asDouble();
    assertThat(saving).as("verified saving").isGreaterThan(0).isCloseTo(measuredSaving(v), Assertions.within(1e-9));
    PromText m = agent.scrapeOfAReadStartedAfter(Instant.now(), Duration.ofSeconds(30));
    assertThat(m.sum("segscope_recommendation_verified_saving_cores", labels("id", id)))
        .isCloseTo(saving, Assertions.within(1e-9));
    assertThat(agent.log()).contains("recommendation closed: " + id).contains("verified saving");
  }

  /** (host CPU per byte before - after) x traffic before, from the API's two windows. */
  private static double measuredSaving(JsonNode v) {
    JsonNode b = v.path("before");
    JsonNode a = v.path("after");
    return (b.path("host_cpu_per_unit").asDouble() - a.path("host_cpu_per_unit").asDouble())
        * b.path("traffic_per_sec").asDouble();
  }

  /**
   * Alternating rounds: state A then state B in each; per side, the throughput in Gbit/s and the host's kernel
   * CPU (system + irq + softirq of /proc/stat, {@link HostCpu}) over the round per payload byte moved, in ns/B.
   */
  private record Rounds(String a, List<Double> gbitsA, List<Double> nsA, String b, List<Double> gbitsB,
      List<Double> nsB) {
    Rounds(String a, List<Double> gbitsA, String b, List<Double> gbitsB) {
      this(a, gbitsA, List.of(), b, gbitsB, List.of());
    }

    double medianA() {
      return median(gbitsA);
    }

    double medianB() {
      return median(gbitsB);
    }

    static double median(List<Double> x) {
      List<Double> s = x.stream().sorted().toList();
      return s.isEmpty() ? Double.NaN
          : s.size() % 2 == 1 ? s.get(s.size() / 2) : (s.get(s.size() / 2 - 1) + s.get(s.size() / 2)) / 2;
    }

    @Override
    public String toString() {
      String out = String.format("%s %s Gbit/s (median %.2f) vs %s %s Gbit/s (median %.2f)", a, fmt(gbitsA),
          medianA(), b, fmt(gbitsB), medianB());
      return nsA.isEmpty() ? out : out + String.format("; host kernel CPU per byte %s ns/B (median %.3f) vs %s ns/B"
          + " (median %.3f)", fmt3(nsA), median(nsA), fmt3(nsB), median(nsB));
    }

    private static String fmt(List<Double> x) {
      return x.stream().map(g -> String.format("%.2f", g)).collect(Collectors.joining(" / "));
    }

    private static String fmt3(List<Double> x) {
      return x.stream().map(g -> String.format("%.3f", g)).collect(Collectors.joining(" / "));
    }
  }

  /** What one side of a round moved: payload bytes, and the throughput its sender saw. */
  private record Moved(long bytes, double gbits) {}

  /** One side's traffic for a round of {@code d}. */
  @FunctionalInterface
  private interface Mover {
    Moved run(Duration d) throws Exception;
  }

  /** A change of state between the sides of a round. */
  @FunctionalInterface
  private interface Step {
    void run() throws Exception;
  }

  private static Mover iperfMover(Lab lab, Topology t) {
    return d -> {
      var r = lab.iperf(t.sender(), t.receiver(), t.receiverAddr(), d);
      return new Moved(r.sentBytes(), r.gbitsPerSecond());
    };
  }

  /**
   * Why the rounds are judged by the host's kernel CPU per byte: it is what the user pays and what the verdict
   * measures (issue 28), and it normalises the throughput, which on this 2-CPU host shared with other sessions
   * (load average 12-27 in the runs of 2026-12-07) measures mostly the scheduler's share: S1's rounds without the
   * fix ran 0.57 / 4.01 / 5.87 Gbit/s in one run, at 3.97 / 1.21 / 1.01 ns/B.
   */
  static final String CPU_PER_BYTE_WHY = "what the host pays per byte, the verdict's measure; the throughput of a"
      + " flat-out flow on 2 shared CPUs is mostly the scheduler's share";

  /** The figure a scenario's rounds are judged by (the other is printed beside it). */
  private enum Measure {
    /** The median throughput with segscope's command is higher by more than {@link SavingCheck#NOISE}. */
    THROUGHPUT,
    /** The median host kernel CPU per byte with segscope's command is lower by more than {@link SavingCheck#NOISE}. */
    HOST_CPU_PER_BYTE
  }

  /**
   * Issue 28's "done when": segscope's command makes the host measurably better, over {@link #ROUNDS} alternating
   * rounds, in the measure said for the scenario ({@code why}), by more than the noise band the verdict uses.
   */
  private static void expectBetter(Topology t, Rounds r, Measure m, String why) {
    System.out.printf("%s: judged by %s (%s): %s%n", t.name(), m, why, r);
    if (m == Measure.THROUGHPUT) {
      assertThat(r.medianB()).as("%s: median throughput with segscope's command vs without, by more than %.0f %% (%s):"
          + " %s", t.name(), SavingCheck.NOISE * 100, why, r).isGreaterThan(r.medianA() * (1 + SavingCheck.NOISE));
    } else {
      assertThat(Rounds.median(r.nsB())).as("%s: median host kernel CPU per byte with segscope's command vs without,"
          + " lower by more than %.0f %% (%s): %s", t.name(), SavingCheck.NOISE * 100, why, r)
          .isLessThan(Rounds.median(r.nsA()) * (1 - SavingCheck.NOISE));
    }
  }

  /** {@link #ROUNDS} rounds of iperf3 ({@link #ROUND} each): {@code setA} then traffic, {@code setB} then traffic. */
  private static Rounds alternate(Lab lab, Topology t, String a, List<String> setA, String b, List<String> setB)
      throws Exception {
    return alternate(t, a, () -> runAll(setA), b, () -> runAll(setB), iperfMover(lab, t));
  }

  /** {@link #ROUNDS} rounds of {@code load} ({@link #ROUND} each side): {@code setA} then traffic, {@code setB} then traffic. */
  private static Rounds alternate(Topology t, String a, Step setA, String b, Step setB, Mover load) throws Exception {
    List<Double> ga = new ArrayList<>();
    List<Double> gb = new ArrayList<>();
    List<Double> na = new ArrayList<>();
    List<Double> nb = new ArrayList<>();
    for (int i = 1; i <= ROUNDS; i++) {
      setA.run();
      side(load, ga, na);
      setB.run();
      side(load, gb, nb);
      System.out.printf("%s round %d: %s %.2f Gbit/s %.3f ns/B, %s %.2f Gbit/s %.3f ns/B%n", t.name(), i, a,
          ga.get(i - 1), na.get(i - 1), b, gb.get(i - 1), nb.get(i - 1));
    }
    Rounds r = new Rounds(a, ga, na, b, gb, nb);
    System.out.println(t.name() + ": " + r);
    return r;
  }

  private static void side(Mover load, List<Double> gbits, List<Double> nsPerByte) throws Exception {
    double cpu0 = HostCpu.read();
    Moved m = load.run(ROUND);
    double cpu1 = HostCpu.read();
    gbits.add(m.gbits());
    nsPerByte.add(m.bytes() > 0 ? (cpu1 - cpu0) * 1e9 / m.bytes() : Double.NaN);
  }

  /** The closed recommendation's before/after measure in {@code verified_savings} of the API. */
  private static JsonNode verification(AgentProcess agent, JsonNode rec) throws Exception {
    String id = rec.path("id").asText();
    var r = agent.get("/api/v1/recommendations");
    JsonNode v = null;
    for (JsonNode x : JSON.readTree(r.body()).path("verified_savings")) {
      if (x.path("id").asText().equals(id)) {
        v = x;
      }
    }
    assertThat(v).as("verified saving of %s in %s", id, r.body()).isNotNull();
    System.out.println("verified saving of " + id + ": " + v);
    return v;
  }

  /** segscope's own before/after: software segmentation above 100/s before, down by at least 95 % after. */
  private static void expectSoftwareDrop(JsonNode v) {
    double before = v.path("before").path("software_per_sec").asDouble();
    double after = v.path("after").path("software_per_sec").asDouble();
    assertThat(before).as("software-segmented/s before (%s)", v).isGreaterThan(100);
    assertThat(after).as("software-segmented/s after (%s)", v).isLessThanOrEqualTo(before * 0.05);
  }

  private static String adviceLog(AgentProcess agent) throws Exception {
    return agent.log().lines().filter(l -> l.contains("recommendation"))
        .collect(Collectors.joining("\n"));
  }

  private static void awaitClosed(AgentProcess agent, String id, Duration timeout) throws Exception {
    Await.atMost(timeout).every(Duration.ofMillis(500)).untilOrFail(
        () -> recommendations(agent).stream().noneMatch(r -> r.path("id").asText().equals(id)),
        () -> "recommendation " + id + " still open " + timeout + " after the fix");
    assertThat(agent.log()).contains("recommendation closed: " + id);
  }

  private static void runAll(List<String> commands) throws Exception {
    for (String c : commands) {
      Process p = new ProcessBuilder("sh", "-c", c).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes());
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as("segscope's command '%s' failed: %s", c, out).isZero();
    }
  }

  private static List<JsonNode> recommendations(AgentProcess agent) throws Exception {
    var r = agent.get("/api/v1/recommendations");
    assertThat(r.statusCode()).isEqualTo(200);
    List<JsonNode> out = new ArrayList<>();
    JSON.readTree(r.body()).path("recommendations").forEach(out::add);
    return out;
  }

  /**
   * Only the recommendations about this lab's devices: the agent sees every namespace of the host,
   * and other labs (or real workloads) may be running beside this test.
   */
  private static List<JsonNode> inLab(List<JsonNode> recs, Lab lab) {
    // by name as well as inode: a deleted namespace's inode is reused for the next one
    Set<String> ours = new HashSet<>();
    lab.namespaces().forEach(n -> ours.add(n.inode() + "/" + n.name()));
    return recs.stream().filter(r -> ours.contains(r.path("subject").path("netns").asLong() + "/"
        + r.path("subject").path("netns_name").asText())).toList();
  }

  private static List<String> commands(JsonNode rec) {
    List<String> out = new ArrayList<>();
    rec.path("commands").forEach(c -> out.add(c.asText()));
    return out;
  }
}

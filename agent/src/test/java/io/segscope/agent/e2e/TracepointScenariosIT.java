package io.segscope.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertAll;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.agent.e2e.KernelOracle.Sites;
import io.segscope.deploy.PrometheusServer;
import io.segscope.lab.DeviceAt;
import io.segscope.lab.Family;
import io.segscope.lab.Lab;
import io.segscope.lab.LabTest;
import io.segscope.lab.Prerequisites;
import io.segscope.lab.Scenarios;
import io.segscope.lab.TapInjector;
import io.segscope.lab.Tools;
import io.segscope.lab.Topology;
import io.segscope.lab.UdpGsoSender;
import io.segscope.testkit.PromText;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * S1/S2/S3 and their controls on the host kernel in tracepoint mode (forced, so the test means the
 * same on any kernel from 6.3 on; which mode "auto" picks is ProbePlanLabTest's and DoctorIT's job),
 * and the segmentation-duration quantiles a real Prometheus computes against an exact oracle;
 * and, against the same agent, every other place the kernel segments in software that this kernel has
 * (docs/lab.md S4-S11, the IPv6 variants of S1-S3): each scenario beside its healthy control in one
 * drive, held against the kernel oracle per device, site, cause and GSO type. To keep the suite short,
 * scenarios that do not disturb each other share one drive (one oracle, one pair of agent reads): every
 * scenario's checks run, and each failure names its scenario.
 */
class TracepointScenariosIT extends ScenarioSuite {
  private static final Duration QUANTILE_TRAFFIC = Duration.ofSeconds(3);
  private static final String FAMILY = "segscope_gso_sw_duration_seconds";

  /** Holds the perf probes the duration oracle uses from before the agent attaches (see the test). */
  private DurationOracle perfProbesFirst;

  @Override
  void beforeAgentStarts() throws Exception {
    if (Tools.find("bpftrace").isPresent()) {
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
    String shared;
    try (PrometheusServer nativeProm = PrometheusServer.start(Files.createDirectories(tmp.resolve("native")),
        target, null, true);
        PrometheusServer classicProm = PrometheusServer.start(Files.createDirectories(tmp.resolve("classic")),
            target, null, false)) {
      for (PrometheusServer p : new PrometheusServer[] {nativeProm, classicProm}) {
        p.awaitNonEmpty("up{job=\"segscope\"} == 1", Duration.ofSeconds(30));
      }
      try (DurationOracle oracle = DurationOracle.segmentation(uplink.ns().inode(), ifindex(lab, uplink),
          readyTimeout())) {
        Set<String> others = new TreeSet<>(othersOnHooks(oracle));
        lab.iperf(s1.sender(), s1.receiver(), s1.receiverAddr(), QUANTILE_TRAFFIC);
        others.addAll(othersOnHooks(oracle));
        shared = String.join("; ", others);
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
      double[] ranks = DurationQuantiles.ranks(durations, nativePromQ);
      System.out.printf(Locale.ROOT,
          "[%s] S1 uplink: native estimates rank %.4f / %.4f / %.4f among the exact durations;"
              + " events in a different native bucket than the oracle's: %.3f %%%n",
          mode(), ranks[0], ranks[1], ranks[2],
          100 * DurationQuantiles.bucketDisagreement(h, oracleBucketed));
      String sharedBy = "other BPF programs on net_dev_queue/consume_skb during the traffic: "
          + (shared.isEmpty() ? "none" : shared);
      System.out.println("[" + mode() + "] S1 uplink: " + sharedBy);
      for (int i = 0; i < 3; i++) {
        double q = DurationQuantiles.QUANTILES[i];
        assertThat(nativeOwnQ[i]).as("ExportedHistogram.nativeQuantile(%s) vs Prometheus", q)
            .isCloseTo(nativePromQ[i], Percentage.withPercentage(1e-6));
        assertThat(classicOwnQ[i]).as("ExportedHistogram.classicQuantile(%s) vs Prometheus", q)
            .isCloseTo(classicPromQ[i], Percentage.withPercentage(1e-6));
      }
      // a failure says where each estimate ranks among the exact durations: the two tools' timestamps are a few
      // hundred ns apart at each end, and an interrupt between them (frequent on a loaded host) lengthens one
      // tool's interval only; where the exact distribution is flat (between the fast and the slow mode of S1's
      // durations, around p90) a rank shift of 1 % moves a quantile by more than 10 %
      DurationQuantiles.assertNativeAgree(String.format(Locale.ROOT,
          "S1 uplink, Prometheus native (%s; the estimates rank %.4f / %.4f / %.4f among the exact durations)",
          sharedBy, ranks[0], ranks[1], ranks[2]), nativePromQ, exact);
      DurationQuantiles.assertClassicBracket("S1 uplink, Prometheus classic", classicPromQ, exact, h);
    }
  }

  /**
   * The BPF programs on the two hooks of the duration test that are neither this agent's nor the
   * oracle's (nor the probe holder's): "pid (command): tracepoint type". Another agent's program or a
   * perf program attached after the oracle's runs between the oracle's timestamp and segscope's; its
   * work counts in segscope's interval where it segments (consume_skb: another agent then counts the
   * segmentation) and not where it queues, so segscope's durations grow by it (measured: three other
   * agents on the hooks, mean +957 ns, p50 +9.2 %). Empty when bpftool is missing.
   */
  private List<String> othersOnHooks(DurationOracle oracle) throws Exception {
    if (Tools.find("bpftool").isEmpty()) {
      return List.of();
    }
    Set<Long> ours = Set.of(agent().pid(), oracle.pid(), perfProbesFirst == null ? -1L : perfProbesFirst.pid());
    Process p = new ProcessBuilder(Tools.require("bpftool"), "-j", "perf", "list").redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    List<String> found = new ArrayList<>();
    JsonNode all = new ObjectMapper().readTree(out.isBlank() ? "[]" : out);
    for (JsonNode n : all) {
      String hook = n.path("tracepoint").asText();
      long pid = n.path("pid").asLong();
      if ((hook.equals("net_dev_queue") || hook.equals("consume_skb")) && !ours.contains(pid)) {
        String command = ProcessHandle.of(pid).flatMap(h -> h.info().commandLine()).orElse("?");
        String shown = command.replaceAll("\\s+", " ");
        found.add(pid + " (" + shown.substring(0, Math.min(80, shown.length())) + "): " + hook + " "
            + n.path("fd_type").asText());
      }
    }
    return found;
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

  /** What one scenario and its control send, and what is checked once the shared drive is over. */
  /**
   * A case in a drive: its faulty and healthy topologies, its flows (the faulty side's first), its checks,
   * and, when {@code fix} is set, the recommendation whose commands the test runs afterwards.
   */
  private record Case(Topology bad, Topology ok, List<Flow> flows, Check check, Fix fix) {
    Case(Topology bad, Topology ok, List<Flow> flows, Check check) {
      this(bad, ok, flows, check, null);
    }

    /** This case, with segscope's {@code rule} recommendation about {@code subject} run after the drive. */
    Case fixedBy(String rule, DeviceAt subject) {
      return new Case(bad, ok, flows, check, new Fix(rule, subject));
    }
  }

  /** segscope's recommendation of {@code rule} about {@code subject}: its commands fix the case. */
  private record Fix(String rule, DeviceAt subject) {}

  @FunctionalInterface
  private interface Check {
    /** {@code sent}: what this case's flows returned, in its flows' order. */
    void verify(Traffic t, List<Object> sent) throws Exception;
  }

  private static Case tcp(Lab lab, Topology bad, Topology ok, Check check) {
    return new Case(bad, ok, List.of(iperf(lab, bad, SHORT), iperf(lab, ok, SHORT)), check);
  }

  /** Drives every case at once and runs every case's checks (all of them, even after a failure). */
  private void together(Lab lab, List<Case> cases) throws Exception {
    List<Topology> all = new ArrayList<>();
    List<Flow> flows = new ArrayList<>();
    for (Case c : cases) {
      all.add(c.bad());
      all.add(c.ok());
      flows.addAll(c.flows());
    }
    Traffic t = driveAll(lab, all, flows, false);
    List<Executable> checks = new ArrayList<>();
    int first = 0;
    for (Case c : cases) {
      List<Object> sent = t.results().subList(first, first + c.flows().size());
      first += c.flows().size();
      checks.add(() -> c.check().verify(t, sent));
    }
    assertAll(checks);
    List<Case> fixed = cases.stream().filter(c -> c.fix() != null).toList();
    if (!fixed.isEmpty()) {
      fixThenDriveAgain(fixed, t);
    }
  }

  /**
   * Issue 13's advice check on every new shape: runs each case's recommended commands exactly as the API
   * gives them ({@code sh -c}), drives the faulty sides again (no oracle: segscope's counts before the
   * fix were held to it), and expects the software-segmented share of the subject's GSO traffic to fall
   * by at least 95 % while super-packets still cross it.
   */
  private void fixThenDriveAgain(List<Case> fixed, Traffic first) throws Exception {
    for (Case c : fixed) {
      runCommands(awaitRecommended(c.fix().rule(), c.fix().subject()));
    }
    PromText before = agent.scrapeOfAReadStartedAfter(Instant.now(), readyTimeout());
    ExecutorService pool = Executors.newFixedThreadPool(fixed.size());
    try {
      List<Future<Object>> running = new ArrayList<>();
      for (Case c : fixed) {
        running.add(pool.submit(c.flows().get(0)::send));
      }
      for (Future<Object> r : running) {
        r.get(traffic().toSeconds() + 60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    PromText after = agent.scrapeOfAReadStartedAfter(Instant.now(), readyTimeout());
    List<Executable> checks = new ArrayList<>();
    for (Case c : fixed) {
      checks.add(() -> assertFixed(c.bad().name(), c.fix().rule(), c.fix().subject(), first, before, after));
    }
    assertAll(checks);
  }

  /** The seed scenarios over IPv6, vxlan, ifb and BIG TCP over IPv6: iperf3 each, one drive. */
  @Test
  @LabTest
  void ipv6VxlanIfbAndBigTcpOverIpv6AreSegmentedWhereTheKernelSays(Lab lab) throws Exception {
    Case s1 = s1Ipv6(lab);
    Case s2 = s2Ipv6(lab);
    Case s4 = s4Vxlan(lab);
    Case s10 = s10Ifb(lab);
    Case bt6 = bigTcp(lab, Family.IPV6, "tcp6");
    together(lab, List.of(s1.fixedBy("gso_size_mismatch", s1.bad().device("uplink")),
        s2.fixedBy("offload_disabled", s2.bad().device("lower")),
        s4.fixedBy("tunnel_offload_missing", s4.bad().device("underlay")),
        s10.fixedBy("offload_disabled", s10.bad().device("ifb")),
        bt6.fixedBy("gso_size_mismatch", bt6.bad().device("uplink"))));
  }

  /** A tap guest's super-packets, UDP GSO on transmit and on receive, BIG TCP over IPv4: one drive. */
  @Test
  @LabTest
  void tapUdpAndBigTcpOverIpv4AreSegmentedWhereTheKernelSays(Lab lab) throws Exception {
    Prerequisites.requireClang();
    UdpGsoSender udp = UdpGsoSender.build(lab.workDir());
    TapInjector guest = TapInjector.build(lab.workDir());
    Case s5 = s5Tap(lab, guest);
    Case bt4 = bigTcp(lab, Family.IPV4, "tcp4");
    // S8's fix runs in AdviceEndToEndIT; S9 has no command
    together(lab, List.of(s5.fixedBy("guest_gso_size_mismatch", s5.bad().device("uplink")), s8UdpGso(lab, udp),
        s9UdpRx(lab, udp), bt4.fixedBy("gso_size_mismatch", bt4.bad().device("uplink"))));
  }

  private Case s1Ipv6(Lab lab) {
    Topology bad = Scenarios.s1GsoMismatch(lab, false, Family.IPV6);
    Topology ok = Scenarios.s1GsoMismatch(lab, true, Family.IPV6);
    return tcp(lab, bad, ok, (t, sent) -> {
      DeviceAt up = bad.device("uplink");
      assertSegmentedAt(t, bad, new Segmenting(up, "xmit", Sites.XMIT, "gso_max_size", "tcp6", false, true));
      assertOnlyOn(t, bad, up, Sites.XMIT);
      assertHealthyControl(t, ok, ok.device("uplink"), Sites.XMIT);
      assertRecommended(lab, "gso_size_mismatch", up,
          "ip -n " + up.ns().name() + " link set dev " + up.name() + " gso_max_size 65536");
    });
  }

  private Case s2Ipv6(Lab lab) {
    Topology bad = Scenarios.s2OffloadLost(lab, false, Family.IPV6);
    Topology ok = Scenarios.s2OffloadLost(lab, true, Family.IPV6);
    return tcp(lab, bad, ok, (t, sent) -> {
      DeviceAt low = bad.device("lower");
      assertSegmentedAt(t, bad, new Segmenting(low, "xmit", Sites.XMIT, "feature_missing", "tcp6", false, true));
      assertOnlyOn(t, bad, low, Sites.XMIT);
      assertHealthyControl(t, ok, ok.device("lower"), Sites.XMIT);
      assertRecommended(lab, "offload_disabled", low,
          "ip netns exec " + low.ns().name() + " ethtool -K " + low.name() + " tso on");
    });
  }

  @Test
  @LabTest
  void s3Ipv6GenericXdpCopiesAreCountedOnTheReceiver(Lab lab) throws Exception {
    Prerequisites.requireClang();
    Topology bad = Scenarios.s3GenericXdp(lab, false, Family.IPV6);
    Topology ok = Scenarios.s3GenericXdp(lab, true, Family.IPV6);
    Traffic t = driveAll(lab, List.of(bad, ok), List.of(iperf(lab, bad, SHORT), iperf(lab, ok, SHORT)), false);
    assertGenericXdpCopies(lab, t, bad, true);
    for (DeviceAt d : ok.devices().values()) {
      assertThat(t.delta("segscope_xdp_generic_skbs_total", dev(d))).as("%s: generic XDP on %s", ok.name(), d.name())
          .isZero();
    }
    assertNoAdviceFor(ok);
  }

  private Case s4Vxlan(Lab lab) {
    Topology bad = Scenarios.s4VxlanTunnelOffloadOff(lab, false);
    Topology ok = Scenarios.s4VxlanTunnelOffloadOff(lab, true);
    return tcp(lab, bad, ok, (t, sent) -> {
      DeviceAt u0 = bad.device("underlay");
      assertSegmentedAt(t, bad, new Segmenting(u0, "xmit", Sites.XMIT, "tunnel_feature_missing", "udp_tunnel", false,
          true));
      assertOnlyOn(t, bad, u0, Sites.XMIT);
      assertThat(t.delta("segscope_gso_offloaded_skbs_total", dev(bad.device("sender"))))
          .as("super-packets the vxlan device handed whole to its driver (which encapsulates them)").isGreaterThan(50);
      assertHealthyControl(t, ok, ok.device("underlay"), Sites.XMIT);
      assertRecommended(lab, "tunnel_offload_missing", u0, "ip netns exec " + u0.ns().name() + " ethtool -K "
          + u0.name() + " tx-udp_tnl-segmentation on tx-udp_tnl-csum-segmentation on");
    });
  }

  private Case s5Tap(Lab lab, TapInjector guest) {
    Topology bad = Scenarios.s5TapIntoSmallerUplink(lab, false);
    Topology ok = Scenarios.s5TapIntoSmallerUplink(lab, true);
    return new Case(bad, ok, List.of(inject(lab, bad, guest), inject(lab, ok, guest)), (t, sent) -> {
      DeviceAt up = bad.device("uplink");
      double skbs = assertSegmentedAt(t, bad, new Segmenting(up, "xmit", Sites.XMIT, "gso_max_size", "tcp4", false,
          true));
      // the guest's super-packets carry no gso_segs (virtio-net headers): segscope counts them from the headers
      int perSkb = (Scenarios.TAP_PAYLOAD + Scenarios.TAP_MSS - 1) / Scenarios.TAP_MSS;
      assertThat(t.delta("segscope_gso_sw_segments_total", dev(up))).as("segments: %d per guest super-packet", perSkb)
          .isEqualTo(skbs * perSkb);
      TapInjector.Sent written = (TapInjector.Sent) sent.get(0);
      assertThat(skbs).as("segmented vs written by the guest %s", written).isLessThanOrEqualTo(written.sends());
      assertOnlyOn(t, bad, up, Sites.XMIT);
      assertHealthyControl(t, ok, ok.device("uplink"), Sites.XMIT);
      // the guest sizes its super-packets for its own virtio-net device: the host raises the uplink back
      JsonNode rec = awaitRecommended("guest_gso_size_mismatch", up);
      assertThat(commands(rec)).containsExactly("ip -n " + up.ns().name() + " link set dev " + up.name()
          + " gso_max_size 65536");
      assertThat(rec.path("evidence").path("guest_devices").toString()).contains(bad.device("tap").name());
    });
  }

  private static Flow inject(Lab lab, Topology s, TapInjector guest) {
    return () -> {
      DeviceAt rcv = s.device("receiver");
      String mac = lab.exec(rcv.ns(), "cat", "/sys/class/net/" + rcv.name() + "/address").strip();
      String guestIp = s.receiverAddr().substring(0, s.receiverAddr().lastIndexOf('.')) + ".1";
      return guest.send(s.sender(), "tap0", Scenarios.TAP_GUEST_MAC, mac, guestIp, s.receiverAddr(),
          Scenarios.TAP_PAYLOAD, Scenarios.TAP_MSS, SHORT);
    };
  }

  /** Forwarding segments at low throughput here: its own drive, so that it is not starved by the others. */
  @Test
  @LabTest
  void s6ForwardedSuperPacketsLargerThanTheEgressMtuAreSegmentedByTheRouter(Lab lab) throws Exception {
    Topology bad = Scenarios.s6RoutedSmallerEgressMtu(lab, false);
    Topology ok = Scenarios.s6RoutedSmallerEgressMtu(lab, true);
    together(lab, List.of(tcp(lab, bad, ok, (t, sent) -> {
      DeviceAt r1 = bad.device("routerOut");
      assertSegmentedAt(t, bad, new Segmenting(r1, "ip_output_mtu", Sites.IP_OUTPUT_MTU, "mtu", "tcp4", false, false));
      assertOnlyOn(t, bad, r1, Sites.IP_OUTPUT_MTU);
      assertHealthyControl(t, ok, ok.device("routerOut"), Sites.IP_OUTPUT_MTU);
      // the route followed through the router namespace: the sender's MTU comes down to the egress MTU
      DeviceAt snd = bad.device("sender");
      assertRecommended(lab, "mtu_mismatch", r1, "ip -n " + snd.ns().name() + " link set dev " + snd.name() + " mtu "
          + Scenarios.ROUTED_EGRESS_MTU);
    })));
  }

  /**
   * tbf segments what exceeds its burst and drops what its queue cannot hold: TCP and, at the same time,
   * small UDP super-packets (8 segments, below the burst) that fill the queue. "Offloaded" is derived
   * (queued - segmented after the queue - dropped before the driver): the test holds it against every
   * super-packet the oracle saw handed whole to the driver, and the oracle's count of everything handed
   * to the driver against the device's own tx counters.
   */
  @Test
  @LabTest
  void s7TbfSegmentsWhatExceedsItsBurstAndOffloadedStaysExact(Lab lab) throws Exception {
    Prerequisites.requireClang();
    Topology bad = Scenarios.s7TbfSmallBurst(lab, false);
    Topology ok = Scenarios.s7TbfSmallBurst(lab, true);
    UdpGsoSender udp = UdpGsoSender.build(lab.workDir());
    Traffic t = driveAll(lab, List.of(bad, ok), List.of(iperf(lab, bad, SHORT), udp(lab, bad, udp, 9007, 11200, true),
        iperf(lab, ok, SHORT)), true);
    DeviceAt snd = bad.device("sender");
    assertSegmentedAt(t, bad, new Segmenting(snd, "qdisc", Sites.QDISC, "qdisc", "tcp4", false, true));
    assertOnlyOn(t, bad, snd, Sites.QDISC);
    for (Topology s : List.of(bad, ok)) {
      DeviceAt d = s.device("sender");
      double offloaded = t.delta("segscope_gso_offloaded_skbs_total", dev(d));
      KernelOracle.Xmit x = t.oracle().xmit(d);
      long extra = t.oracleOnlyTxPackets(d);
      String qdisc = lab.exec(d.ns(), "tc", "-s", "qdisc", "show", "dev", d.name()).replace('\n', ' ');
      System.out.printf("[%s] %s %s: offloaded %.0f; oracle: %s handed to the driver (+%d outside the window);"
          + " device tx %d..%d; %s%n", mode(), s.name(), d.name(), offloaded, x, extra,
          t.outer().txPacketsSince(t.outer0(), d), t.c5().txPacketsSince(t.c0(), d), qdisc);
      // the oracle's count of what the driver was handed, against the device's tx packets over segscope's
      // outer window and over the oracle's own, within 1 % like every oracle comparison: measured here
      // 0.1-0.2 % BELOW the outer window (64 of 63329, 131 of 67369) with no oracle event skipped by the
      // kernel; not explained yet, so not asserted exact
      assertThat((double) x.skbs()).as("%s: skbs the oracle saw handed to %s's driver vs its tx counters",
          s.name(), d.name()).isBetween(t.outer().txPacketsSince(t.outer0(), d) * 0.99,
              t.c5().txPacketsSince(t.c0(), d) * 1.01);
      assertWithinOracle("super-packets offloaded (derived)", s, d, offloaded, x.superPackets(), extra);
    }
    assertHealthyControl(t, ok, ok.device("sender"), Sites.QDISC);
    // tbf's own rate (1gbit = 125,000,000 B/s) with a burst that holds the largest super-packet
    JsonNode rec = awaitRecommended("qdisc_segmentation", snd);
    assertThat(commands(rec)).hasSize(1).first(InstanceOfAssertFactories.STRING)
        .matches("tc -n " + Pattern.quote(snd.ns().name()) + " qdisc change dev snd0 root handle"
            + " [0-9a-f]+: tbf rate 125000000bps burst [0-9]+ limit [0-9]+");
    assertThat(rec.path("evidence").path("largest_super_packet_bytes").asLong())
        .as("burst sized for a 64 KiB super-packet with its headers").isGreaterThan(65536);
    // with that burst, tbf takes TCP's super-packets whole
    fixThenDriveAgain(List.of(new Case(bad, ok, List.of(iperf(lab, bad, SHORT)), (x, y) -> {})
        .fixedBy("qdisc_segmentation", snd)), t);
  }

  private Case s8UdpGso(Lab lab, UdpGsoSender udp) {
    Topology bad = Scenarios.s8UdpGsoOffloadOff(lab, false);
    Topology ok = Scenarios.s8UdpGsoOffloadOff(lab, true);
    return new Case(bad, ok, List.of(udp(lab, bad, udp, 9008, 63000, true), udp(lab, ok, udp, 9008, 63000, true)),
        (t, sent) -> {
          DeviceAt snd = bad.device("sender");
          double skbs = assertSegmentedAt(t, bad, new Segmenting(snd, "xmit", Sites.XMIT, "feature_missing", "udp_l4",
              false, true));
          UdpGsoSender.Sent s = (UdpGsoSender.Sent) sent.get(0);
          assertThat(skbs).as("segmented vs sent %s", s).isLessThanOrEqualTo(s.sends());
          assertThat(t.delta("segscope_gso_sw_segments_total", dev(snd))).as("45 datagrams per super-packet")
              .isEqualTo(skbs * 45);
          assertOnlyOn(t, bad, snd, Sites.XMIT);
          assertHealthyControl(t, ok, ok.device("sender"), Sites.XMIT);
          // UDP GSO: exactly the feature it needs (TSO is on)
          JsonNode rec = awaitRecommended("offload_disabled", snd);
          assertThat(commands(rec)).containsExactly("ip netns exec " + snd.ns().name() + " ethtool -K " + snd.name()
              + " tx-udp-segmentation on");
          assertThat(rec.path("state").asText()).as("S8: the suite's --advice-accept names S10's ifb0 only")
              .isEqualTo("open");
        });
  }

  private Case s9UdpRx(Lab lab, UdpGsoSender udp) {
    Topology bad = Scenarios.s9UdpRxForANonGroSocket(lab, false);
    Topology ok = Scenarios.s9UdpRxForANonGroSocket(lab, true);
    return new Case(bad, ok, List.of(udp(lab, bad, udp, 9009, 63000, false), udp(lab, ok, udp, 9009, 63000, true)),
        (t, sent) -> {
          DeviceAt rcv = bad.device("receiver");
          assertSegmentedAt(t, bad, new Segmenting(rcv, "udp_rx", Sites.UDP_RX, "other", "udp_l4", true, false));
          assertOnlyOn(t, bad, rcv, Sites.UDP_RX);
          assertThat(t.delta("segscope_gso_offloaded_skbs_total", dev(bad.device("sender"))))
              .as("super-packets the sender handed whole to its veth").isGreaterThan(50);
          assertHealthyControl(t, ok, ok.device("sender"), Sites.UDP_RX);
          // no command: the receiving application sets UDP_GRO (an explanation)
          JsonNode rec = awaitRecommended("udp_receive_segmentation", rcv);
          assertThat(commands(rec)).as("udp_receive_segmentation commands").isEmpty();
          assertThat(rec.path("explanation").asText()).contains("UDP_GRO");
        });
  }

  private Case s10Ifb(Lab lab) {
    Topology bad = Scenarios.s10IfbIngressRedirect(lab, false);
    Topology ok = Scenarios.s10IfbIngressRedirect(lab, true);
    return tcp(lab, bad, ok, (t, sent) -> {
      DeviceAt ifb = bad.device("ifb");
      assertSegmentedAt(t, bad, new Segmenting(ifb, "xmit", Sites.XMIT, "feature_missing", "tcp4", false, true));
      assertOnlyOn(t, bad, ifb, Sites.XMIT);
      assertHealthyControl(t, ok, ok.device("ifb"), Sites.XMIT);
      JsonNode rec = awaitRecommended("offload_disabled", ifb);
      assertThat(commands(rec)).contains("ip netns exec " + ifb.ns().name() + " ethtool -K " + ifb.name() + " tso on");
      // the suite's agent runs with --advice-accept ACCEPTED: measured and listed, state accepted, never logged
      // as opened (S8's offload_disabled, on another device, stays open)
      assertThat(rec.path("state").asText()).as("state of S10's accepted finding").isEqualTo("accepted");
      assertThat(rec.path("accepted_by").asText()).isEqualTo(ACCEPTED + " (--advice-accept " + ACCEPTED + ")");
      String id = rec.path("id").asText();
      assertThat(agent().log()).contains("recommendation accepted (measured, not advised): " + id + " [")
          .doesNotContain("recommendation opened: " + id);
    });
  }

  private Case bigTcp(Lab lab, Family family, String type) {
    Topology bad = Scenarios.s11BigTcp(lab, false, family);
    Topology ok = Scenarios.s11BigTcp(lab, true, family);
    return tcp(lab, bad, ok, (t, sent) -> {
      DeviceAt up = bad.device("uplink");
      double skbs = assertSegmentedAt(t, bad, new Segmenting(up, "xmit", Sites.XMIT, "gso_max_size", type, false,
          true));
      assertThat(t.delta("segscope_gso_sw_bytes_total", dev(up)) / skbs)
          .as("mean size of the super-packets segmented on the uplink: BIG TCP, above 64 KiB").isGreaterThan(65536);
      assertOnlyOn(t, bad, up, Sites.XMIT);
      assertHealthyControl(t, ok, ok.device("uplink"), Sites.XMIT);
      // IPv6: the uplink's 64 KiB is a setting (a veth takes 524280): raised to the sender's BIG TCP size.
      // IPv4: only the gso_ipv4_max_size keyword (iproute2 6.3+) raises it, so the sender's BIG TCP limit comes
      // down to the uplink's 64 KiB (gso_max_size <= 64 KiB lowers gso_ipv4_max_size with it) and the raise is
      // explained
      DeviceAt snd = bad.device("sender");
      if (family == Family.IPV6) {
        assertRecommended(lab, "gso_size_mismatch", up, "ip -n " + up.ns().name() + " link set dev " + up.name()
            + " gso_max_size " + Scenarios.BIG_TCP_GSO_MAX_SIZE);
      } else {
        assertRecommended(lab, "gso_size_mismatch", up, "ip -n " + snd.ns().name() + " link set dev " + snd.name()
            + " gso_max_size 65536");
      }
    });
  }
}

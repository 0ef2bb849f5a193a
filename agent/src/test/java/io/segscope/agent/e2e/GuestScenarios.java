package io.segscope.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.segscope.agent.e2e.KernelOracle.Sites;
import io.segscope.lab.DeviceAt;
import io.segscope.lab.GuestKindScenarios;
import io.segscope.lab.Lab;
import io.segscope.lab.LabTest;
import io.segscope.lab.Prerequisites;
import io.segscope.lab.Scenarios;
import io.segscope.lab.Topology;
import io.segscope.probes.ProbeSession;
import io.segscope.probes.sys.StaleKprobeEvents;
import io.segscope.testkit.Await;
import io.segscope.testkit.PromText;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
import java.util.function.Function;
import java.util.function.Predicate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * S1/S2/S3 and their controls (GuestModesIT picks which in which boot) in the mode named by the system property {@code segscope.guest.mode}
 * ({@code kprobe} or {@code fentry}). Not a *Test/*IT: Maven never runs it on the host; GuestModesIT
 * runs it inside Debian's stock kernel under qemu with the JUnit console launcher. Timeouts allow for
 * emulation (~100x slower than hardware).
 *
 * <p>The device kinds the development kernel lacks (geneve, vlan, ipvlan, bond, WireGuard: docs/lab.md
 * G1-G5) are tagged {@value #KINDS}: GuestModesIT runs them in the kprobe boot only (the site comes
 * from __skb_gso_segment's return address there; fentry cannot see its caller), each beside its
 * healthy control, all of them in one drive.
 */
class GuestScenarios extends ScenarioSuite {
  static final String MODE_PROPERTY = "segscope.guest.mode";
  private static final String COPY_TIME = "segscope_xdp_generic_copy_duration_seconds";
  private static final Duration QUANTILE_TRAFFIC = Duration.ofSeconds(2);
  /** The tag of the guest-only device kinds. */
  static final String KINDS = "guest-kinds";
  /** The tag of the copy-time quantiles (the fentry boot runs them). */
  static final String COPY_TIME_TAG = "copy-time";
  /** The tag of the routed scenario (the fentry boot runs it: fentry's call site from the unwinder). */
  static final String ROUTED_TAG = "routed";
  /**
   * The tag of what only the kprobe boot's agent start sets up: the per-path fallback fentry -> kprobe (an injected
   * load failure) and the sweep of stale kprobe events.
   */
  static final String KPROBE_BOOT = "kprobe-boot";
  /** Where the guest mounts tracefs (scripts/guest/guest-init). */
  static final Path TRACEFS = Path.of("/sys/kernel/tracing");
  /** The paths whose fentry programs the kprobe boot's agent is made to fail to load. */
  static final List<String> PATHS = List.of(ProbeSession.PATH_GSO_TX, ProbeSession.PATH_XDP_GENERIC);
  /** The kprobe events planted before the kprobe boot's agent starts: stale (a dead PID's) and foreign. */
  private final List<String> staleEvents = new ArrayList<>();
  private final List<String> foreignEvents = new ArrayList<>();

  @Override
  String mode() {
    String mode = System.getProperty(MODE_PROPERTY, "");
    if (!Set.of("kprobe", "fentry").contains(mode)) {
      throw new IllegalStateException("run GuestScenarios: system property " + MODE_PROPERTY
          + " must be kprobe or fentry, got '" + mode + "'");
    }
    return mode;
  }

  /**
   * The kprobe boot proves the per-path fallback on a real kernel at no extra agent start (issue 12): its agent
   * runs in auto mode with every path's fentry programs made to fail to load ({@link #agentArguments}), so each
   * path falls back to kprobe, and every check of this boot (mode label kprobe in every series and evidence) then
   * holds the mode the fallback landed in.
   */
  @Override
  String probeModeArgument() {
    return mode().equals("kprobe") ? "auto" : mode();
  }

  @Override
  List<String> agentArguments() {
    List<String> args = new ArrayList<>(super.agentArguments());
    if (mode().equals("kprobe")) {
      args.addAll(List.of("--inject-load-failure", String.join(",", PATHS.stream().map(p -> p + ":fentry").toList())));
    }
    return args;
  }

  /**
   * The kprobe boot plants, before its agent starts, the tracefs kprobe events a SIGKILLed libbcc user (segscope
   * before its probe redesign) leaves, named as libbcc names them with a PID that does not exist, and two that
   * must survive the sweep: libbcc's naming with a live PID (1), and a name of another form in another group.
   */
  @Override
  void beforeAgentStarts() throws Exception {
    if (!mode().equals("kprobe")) {
      return;
    }
    if (!Files.exists(TRACEFS.resolve("kprobe_events"))) {
      Process m = new ProcessBuilder("mount", "-t", "tracefs", "tracefs", TRACEFS.toString()).inheritIO().start();
      m.waitFor();
    }
    assertThat(TRACEFS.resolve("kprobe_events")).as("tracefs kprobe_events in the guest").exists();
    long dead = deadPid();
    staleEvents.addAll(List.of("p:kprobes/p___skb_gso_segment_0_bcc_" + dead + " __skb_gso_segment",
        "r:kprobes/r___skb_gso_segment_1_bcc_" + dead + " __skb_gso_segment"));
    foreignEvents.addAll(List.of("p:kprobes/p_do_sys_openat2_bcc_1 do_sys_openat2",
        "p:segscope_guest/foreign_openat2 do_sys_openat2"));
    for (String e : concat(staleEvents, foreignEvents)) {
      appendKprobeEvent(e);
    }
    System.out.printf("[%s] planted kprobe events (dead pid %d):%n%s", mode(), dead, kprobeEvents());
  }

  @Override
  void afterAgentStopped() throws Exception {
    List<String> left = new ArrayList<>();
    Set<String> present = new HashSet<>(eventNames());
    for (String e : concat(foreignEvents, staleEvents)) {
      String groupName = e.substring(e.indexOf(':') + 1, e.indexOf(' '));
      if (present.contains(groupName)) {
        try {
          appendKprobeEvent("-:" + groupName);
        } catch (java.io.IOException x) {
          left.add(groupName + ": " + x.getMessage());
        }
      }
    }
    assertThat(left).as("kprobe events the suite planted and could not remove").isEmpty();
  }

  /** A PID nothing runs as (the guest runs a few hundred processes and threads, from PID 1 up). */
  private static long deadPid() {
    for (long pid = 32_000; pid > 1000; pid -= 13) {
      if (!Files.exists(Path.of("/proc", Long.toString(pid)))) {
        return pid;
      }
    }
    throw new IllegalStateException("no PID between 1000 and 32000 is free");
  }

  /** Appends one command to kprobe_events: O_APPEND, never O_TRUNC (which removes every kprobe event). */
  private static void appendKprobeEvent(String command) throws java.io.IOException {
    try (FileChannel ch = FileChannel.open(TRACEFS.resolve("kprobe_events"), StandardOpenOption.WRITE,
        StandardOpenOption.APPEND)) {
      ch.write(ByteBuffer.wrap((command + "\n").getBytes(StandardCharsets.US_ASCII)));
    }
  }

  private static String kprobeEvents() throws java.io.IOException {
    return Files.readString(TRACEFS.resolve("kprobe_events"), StandardCharsets.ISO_8859_1);
  }

  /** The {@code GROUP/EVENT} of every kprobe event now. */
  private static List<String> eventNames() throws java.io.IOException {
    return StaleKprobeEvents.parse(kprobeEvents()).stream().map(e -> e.group() + "/" + e.name()).toList();
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  /**
   * Issue 12 item 8 on a real kernel: the agent's start removed the kprobe events of the dead libbcc user
   * ({@link #beforeAgentStarts}) from tracefs and left the live PID's and the foreign one; its log names what it
   * removed.
   */
  @Test
  @Tag(KPROBE_BOOT)
  void staleKprobeEventsOfADeadProcessAreSweptAtStartAndOthersKept() throws Exception {
    List<String> now = eventNames();
    System.out.printf("[%s] kprobe events with the agent running: %s%n", mode(), now);
    List<String> stale = staleEvents.stream().map(e -> e.substring(e.indexOf(':') + 1, e.indexOf(' '))).toList();
    List<String> foreign = foreignEvents.stream().map(e -> e.substring(e.indexOf(':') + 1, e.indexOf(' '))).toList();
    assertThat(stale).as("planted stale events").hasSize(2);
    assertThat(now).as("the dead process's events are gone").doesNotContainAnyElementsOf(stale);
    assertThat(now).as("a live PID's and a foreign event stay").containsAll(foreign);
    assertThat(agent().log()).contains("removed 2 stale kprobe events of processes that are gone: ")
        .contains(stale);
  }

  /**
   * Issue 12 item 4 on a real kernel: in auto mode, fentry passes its trial attach on both paths; the injected
   * load failure of every path's real fentry programs ({@link #agentArguments}) makes both fall back, in one
   * compile more, to kprobe, whose programs are attached (and labelled) on every path; the log says, per path,
   * that fentry failed and why. (Every other check of this boot then holds the kprobe mode it landed in.)
   */
  @Test
  @Tag(KPROBE_BOOT)
  void autoModeFallsBackFromFentryToKprobeOnEveryPathWhoseProgramsFailToLoad() throws Exception {
    PromText m = agent().scrape();
    String log = agent().log();
    for (String path : PATHS) {
      List<PromText.Sample> programs = m.samples("segscope_probe_attached").stream()
          .filter(x -> x.labels().get("path").equals(path)).toList();
      assertThat(programs).as("%s programs", path).isNotEmpty()
          .allSatisfy(x -> assertThat(x.labels()).as("%s", x).containsEntry("mode", "kprobe"));
      assertThat(programs).as("%s: its kprobe programs attached", path)
          .anySatisfy(x -> assertThat(x.labels().get("program")).startsWith("kprobe__"))
          .filteredOn(x -> x.labels().get("program").startsWith("k"))
          .allSatisfy(x -> assertThat(x.value()).as("%s", x).isEqualTo(1.0));
      assertThat(log).as("the agent's log").contains("probe path " + path
          + ": mode fentry failed to load (injected load failure (");
    }
    List<String> compiles = log.lines().filter(l -> l.contains("compiling the probe programs")).toList();
    System.out.printf("[%s] agent start: %s%n", mode(), log.lines()
        .filter(l -> l.contains("compil") || l.contains("probe path") || l.contains("probe plan")
            || l.contains("loaded "))
        .toList());
    assertThat(compiles).as("the fentry plan, then both paths in kprobe mode: one compile more for both").hasSize(2);
    assertThat(compiles.get(0)).contains("gso_tx=fentry").contains("xdp_generic=fentry");
    assertThat(compiles.get(1)).contains("gso_tx=kprobe").contains("xdp_generic=kprobe");
  }

  @Override
  Duration readyTimeout() {
    return Duration.ofSeconds(240);
  }

  /**
   * Twice the host's: one emulated vCPU runs the agent, the oracle and iperf3, so the agent's reads
   * come late and irregular; a longer flow keeps the evidence above the rules' rates (100 copies/s
   * for generic_xdp_copy) across several of them. CI saw S3's recommendation stay closed with 778
   * copies in 3 s.
   */
  @Override
  Duration traffic() {
    return Duration.ofSeconds(6);
  }

  /** A read under emulation takes seconds: the hysteresis (2 s) spans several late ones. */
  @Override
  Duration adviceWait() {
    return Duration.ofSeconds(60);
  }

  /**
   * Issue 14 for the generic-XDP copy time, which only kprobe and fentry modes measure (so only in
   * the guest kernel; run in the kprobe boot only, to keep the suite's time: fentry times the same
   * interval with the same code, and its generic-XDP counts are held to the oracle by S3 in the fentry
   * boot; here the copies kprobe mode timed are held to the oracle's). During S3, {@link DurationOracle#genericXdpCopy} records every
   * single copy on the receiver with bpftrace (entry of do_xdp_generic to entry of
   * bpf_prog_run_generic_xdp, "copied" observed as the skb's head moving). No Prometheus runs in the
   * guest: the agent's protobuf exposition is read before and after the traffic, and the quantiles
   * of what was added are computed by {@link ExportedHistogram#nativeQuantile} and {@link
   * ExportedHistogram#classicQuantile}, the same computations as Prometheus' histogram_quantile
   * (TracepointScenariosIT checks them against a real Prometheus). Asserted: the same copies on
   * both sides within 1 %; p50/p90/p99 from the native buckets within 10 % of the exact quantiles;
   * the classic ones in {@code le} buckets that bracket them.
   */
  @Test
  @LabTest
  @Tag(COPY_TIME_TAG)
  void s3CopyDurationQuantilesMatchTheKernel(Lab lab) throws Exception {
    Prerequisites.requireClang();
    Topology s3 = Scenarios.s3GenericXdp(lab, false);
    DeviceAt receiver = s3.device("receiver");
    Map<String, String> rcv = dev(receiver);
    ExportedHistogram before;
    ExportedHistogram after;
    DurationOracle.Durations measured;
    try (DurationOracle oracle = DurationOracle.genericXdpCopy(readyTimeout())) {
      agent().scrapeOfAReadStartedAfter(Instant.now(), readyTimeout());
      before = ExportedHistogram.of(agent().getBytes("/metrics", "Accept", ExportedHistogram.PROTOBUF), COPY_TIME, rcv);
      lab.iperf(s3.sender(), s3.receiver(), s3.receiverAddr(), QUANTILE_TRAFFIC);
      agent().scrapeOfAReadStartedAfter(Instant.now(), readyTimeout());
      after = ExportedHistogram.of(agent().getBytes("/metrics", "Accept", ExportedHistogram.PROTOBUF), COPY_TIME, rcv);
      measured = oracle.stop();
    }
    assertThat(after).as("%s for %s in the protobuf scrape after the traffic", COPY_TIME, rcv).isNotNull();
    ExportedHistogram h = after.since(before);
    TreeMap<Long, Long> durations = measured.of(receiver.ns().inode() + "," + receiver.name());
    long oracleCount = DurationQuantiles.count(durations);
    System.out.printf("[%s] S3 receiver copy durations: oracle %d (all keys %s), mean %.0f ns; exported %d, mean"
        + " %.0f ns%n", mode(), oracleCount, measured.byKey().keySet(),
        oracleCount > 0 ? DurationQuantiles.meanNanos(durations) : 0, h.count(),
        h.count() > 0 ? h.sum() / h.count() * 1e9 : 0);
    assertThat((double) h.count()).as("copies segscope timed vs those the oracle timed").isPositive()
        .isBetween(0.99 * oracleCount, 1.01 * oracleCount);
    double[] exact = new double[3];
    double[] nativeQ = new double[3];
    double[] classicQ = new double[3];
    double[] bucketedQ = new double[3];
    ExportedHistogram oracleBucketed = DurationQuantiles.bucketed(durations);
    for (int i = 0; i < 3; i++) {
      double q = DurationQuantiles.QUANTILES[i];
      exact[i] = DurationQuantiles.exact(durations, q);
      nativeQ[i] = h.nativeQuantile(q);
      classicQ[i] = h.classicQuantile(q);
      bucketedQ[i] = oracleBucketed.nativeQuantile(q);
    }
    Map<String, double[]> estimates = new LinkedHashMap<>();
    estimates.put("native", nativeQ);
    estimates.put("classic", classicQ);
    estimates.put("oracle in native buckets", bucketedQ);
    System.out.println(DurationQuantiles.table("[" + mode() + "] S3 receiver generic-XDP copy time", exact, estimates));
    DurationQuantiles.assertNativeAgree("S3 receiver copy time, native", nativeQ, exact);
    DurationQuantiles.assertClassicBracket("S3 receiver copy time, classic", classicQ, exact, h);
  }

  /**
   * G1-G5, each beside its healthy control, in one drive (one oracle, one pair of agent reads around it): the
   * kinds run one after the other within it, each kind's flow and its control's for {@link #KIND_TRAFFIC}
   * alone on the one emulated vCPU, and each kind's recommendation is awaited while its flow runs. The counts
   * are held to the oracle over the whole drive (each kind has devices of its own). All ten flows at once
   * (2 s) left each kind 32-124 super-packets, too few for the rules (20/s over the 3 s window at every read
   * for 2 s): in three runs of 2026-12-04 (also with 6 s flows) G1-G4 or G4-G5 never opened.
   */
  @Test
  @LabTest
  @Tag(KINDS)
  void guestOnlyDeviceKindsAreSegmentedWhereTheirLowerDeviceFallsShort(Lab lab) throws Exception {
    Prerequisites.requireTool("wg", "the WireGuard scenario (wireguard-tools)");
    List<Kind> kinds = List.of(
        new Kind(GuestKindScenarios.g1GeneveTunnelOffloadOff(lab, false),
            GuestKindScenarios.g1GeneveTunnelOffloadOff(lab, true),
            "underlay", "xmit", Sites.XMIT, "tunnel_feature_missing", "udp_tunnel", "underlay",
            "tunnel_offload_missing", b -> List.of(ethtoolK(b.device("underlay"),
                "tx-udp_tnl-segmentation on tx-udp_tnl-csum-segmentation on"))),
        new Kind(GuestKindScenarios.g2VlanOverLowerWithoutTso(lab, false),
            GuestKindScenarios.g2VlanOverLowerWithoutTso(lab, true),
            "lower", "xmit", Sites.XMIT, "feature_missing", "tcp4", "lower",
            "offload_disabled", b -> List.of(ethtoolK(b.device("lower"), "tso on"))),
        new Kind(GuestKindScenarios.g3IpvlanOffloadLost(lab, false), GuestKindScenarios.g3IpvlanOffloadLost(lab, true),
            "lower", "xmit", Sites.XMIT, "feature_missing", "tcp4", "lower",
            "offload_disabled", b -> List.of(ethtoolK(b.device("lower"), "tso on"))),
        // the bond's own sockets size super-packets for the bond (64 KiB); the port's 16384 is a setting (a
        // veth takes 524280), so the fix raises the port to what the bond uses (issue 28)
        new Kind(GuestKindScenarios.g4BondPortSmallerThanBond(lab, false),
            GuestKindScenarios.g4BondPortSmallerThanBond(lab, true),
            "port", "xmit", Sites.XMIT, "gso_max_size", "tcp4", "port",
            "gso_size_mismatch", b -> List.of("ip -n " + b.device("port").ns().name() + " link set dev "
                + b.device("port").name() + " gso_max_size 65536")),
        // WireGuard segments by design: explained, no command
        new Kind(GuestKindScenarios.g5Wireguard(lab, false), GuestKindScenarios.g5Wireguard(lab, true),
            "sender", "other", Sites.WIREGUARD, "other", "tcp4", "underlay",
            "wireguard_segmentation", b -> List.of()));
    List<Topology> all = new ArrayList<>();
    for (Kind k : kinds) {
      all.add(k.bad());
      all.add(k.ok());
    }
    phase("kinds: topologies built");
    Map<Kind, Advised> advised = new LinkedHashMap<>();
    Flow oneKindAfterTheOther = () -> {
      List<Object> sent = new ArrayList<>();
      for (Kind k : kinds) {
        sent.addAll(driveAwaitingAdvice(lab, k, advised));
      }
      return sent;
    };
    Traffic t = driveAll(lab, all, List.of(oneKindAfterTheOther), false);
    System.out.printf("[%s] call-site resolutions at the start: %s%n", mode(),
        t.after().samples("segscope_probe_call_site_resolved").stream()
            .map(x -> x.labels().get("call_site") + "=" + (long) x.value() + " " + x.labels().get("function"))
            .toList());
    for (Kind k : kinds) {
      DeviceAt at = k.bad().device(k.segmenting());
      assertSegmentedAt(t, k.bad(), new Segmenting(at, k.site(), k.oracleSite(), k.cause(), k.gsoType(), false, true));
      assertOnlyOn(t, k.bad(), at, k.oracleSite());
      assertHealthyControl(t, k.ok(), k.ok().device(k.offloading()), k.oracleSite());
    }
    phase("kinds: counts checked");
    DeviceAt wg = kinds.get(4).bad().device("sender");
    assertThat(t.delta("segscope_gso_offloaded_skbs_total", dev(wg)))
        .as("WireGuard segments every super-packet: none counts as handed whole to a driver").isZero();
    assertEachKindsAdvice(t, kinds, advised);
    phase("kinds: advice checked");
    fixThenDriveAgain(lab, kinds, advised, t);
  }

  /**
   * Runs each kind's commands exactly as the API quoted them (G5 has none), drives G1-G4 once more, all at
   * once for {@link #KIND_FIX_TRAFFIC}, and expects each subject's software-segmented share down by at least
   * 95 % with super-packets still crossing it.
   */
  private void fixThenDriveAgain(Lab lab, List<Kind> kinds, Map<Kind, Advised> advised, Traffic first)
      throws Exception {
    List<Kind> fixed = kinds.stream().filter(k -> !k.commands().apply(k.bad()).isEmpty()).toList();
    phase("fix: commands run");
    for (Kind k : fixed) {
      runCommands(advised.get(k).recommendation());
    }
    phase("fix: flows start");
    PromText before = agent().scrapeOfAReadStartedAfter(Instant.now(), readyTimeout());
    ExecutorService pool = Executors.newFixedThreadPool(fixed.size());
    try {
      List<Future<Object>> running = new ArrayList<>();
      for (Kind k : fixed) {
        running.add(pool.submit(() -> iperf(lab, k.bad(), KIND_FIX_TRAFFIC).send()));
      }
      for (Future<Object> r : running) {
        r.get(KIND_FIX_TRAFFIC.toSeconds() + 120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    PromText after = agent().scrapeOfAReadStartedAfter(Instant.now(), readyTimeout());
    AllChecks soft = new AllChecks();
    for (Kind k : fixed) {
      soft.check(() -> assertFixed(k.bad().name(), k.rule(), k.bad().device(k.segmenting()), first, before, after));
    }
    soft.assertAll();
  }

  /** The fixed kinds' flows, all at once: no software segmentation is left to make them slow. */
  static final Duration KIND_FIX_TRAFFIC = Duration.ofSeconds(3);

  /** Each kind's flow (and its control's) in the kinds' drive; a fault's advice needs more than 2 s of it. */
  static final Duration KIND_TRAFFIC = Duration.ofSeconds(5);
  /** How long after a kind's flows its recommendation is still looked for (it stays open 60 s after them). */
  static final Duration KIND_ADVICE_AFTER = Duration.ofSeconds(30);

  /** What the wait for one kind's recommendation found: the recommendation (null: none) and when. */
  private record Advised(JsonNode recommendation, long afterMs, String open) {}

  /**
   * Runs {@code k}'s flow and its control's at once for {@link #KIND_TRAFFIC} while polling the API every
   * second for the kind's recommendation (a request the busy guest does not answer within its 10 s is asked
   * again), and after the flows for up to {@link #KIND_ADVICE_AFTER} more. Returns what the flows sent; puts what the wait found in {@code advised}.
   */
  private List<Object> driveAwaitingAdvice(Lab lab, Kind k, Map<Kind, Advised> advised) throws Exception {
    DeviceAt subject = k.bad().device(k.segmenting());
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      long start = System.nanoTime();
      List<Future<Object>> flows = List.of(
          pool.submit(() -> iperf(lab, k.bad(), KIND_TRAFFIC).send()),
          pool.submit(() -> iperf(lab, k.ok(), KIND_TRAFFIC).send()));
      JsonNode[] open = {null};
      long[] flowsDone = {0};
      int[] unanswered = {0};
      // a recommendation stays open for --advice-close-after (60 s) after its evidence stopped: one that
      // opened while the flows ran is still there to be read for a while after them
      JsonNode found = Await.whileTrue(() -> {
        boolean done = flows.stream().allMatch(Future::isDone);
        if (done && flowsDone[0] == 0) {
          flowsDone[0] = System.nanoTime();
        }
        return !(done && System.nanoTime() - flowsDone[0] > KIND_ADVICE_AFTER.toNanos());
      }).every(Duration.ofSeconds(1)).poll(() -> {
        try {
          open[0] = openRecommendations();
          JsonNode hit = null;
          for (JsonNode r : open[0]) {
            if (concerns(r, k.rule(), subject)) {
              hit = r;
            }
          }
          return Optional.ofNullable(hit);
        } catch (HttpTimeoutException e) {
          unanswered[0]++; // the flows may hold the one vCPU for longer than the 10 s of a request: ask again
          return Optional.<JsonNode>empty();
        }
      }).orElse(null);
      int unanswered0 = unanswered[0];
      if (unanswered0 > 0) {
        System.out.printf("[%s] %s: %d requests for the recommendations timed out while its flows ran%n", mode(),
            k.bad().name(), unanswered0);
      }
      advised.put(k, new Advised(found, (System.nanoTime() - start) / 1_000_000, String.valueOf(open[0])));
      phase(k.bad().name() + ": advice " + (found == null ? "not found" : "found"));
      List<Object> sent = new ArrayList<>();
      for (Future<Object> f : flows) {
        try {
          sent.add(f.get(KIND_TRAFFIC.toSeconds() + 60, TimeUnit.SECONDS));
        } catch (ExecutionException e) {
          throw e.getCause() instanceof Exception x ? x : e;
        }
      }
      return sent;
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Each kind's recommendation opened while its flow ran (or just after), about its segmenting device, with
   * exactly the commands its rule gives (docs/recommendations.md), severity {@code info} without a command and
   * {@code warning} with one, evidence in this mode; no other recommendation concerns the kind's namespaces,
   * and none concerns a healthy control.
   */
  private void assertEachKindsAdvice(Traffic t, List<Kind> kinds, Map<Kind, Advised> advised) throws Exception {
    JsonNode recs = openRecommendations();
    AllChecks soft = new AllChecks();
    for (Kind k : kinds) {
      DeviceAt subject = k.bad().device(k.segmenting());
      Advised a = advised.get(k);
      JsonNode r = a == null ? null : a.recommendation();
      System.out.printf("[%s] %s: %s on %s %s%n", mode(), k.bad().name(), k.rule(), subject,
          r == null ? "NOT open" : "open " + (a.afterMs()) + " ms after its flow began: " + commands(r));
      soft.check(() -> assertThat(r).as(
          "[%s] %s: %s recommendation about %s while its flow ran; segmented %.0f super-packets"
              + " in the drive; open: %s",
          mode(), k.bad().name(), k.rule(), subject,
          t.delta("segscope_gso_sw_skbs_total", dev(subject)), a == null ? "" : a.open()).isNotNull());
      if (r == null) {
        continue;
      }
      soft.check(() -> assertThat(r.path("evidence").path("mode").asText()).as("%s evidence mode", k.bad().name())
          .isEqualTo(mode()));
      List<String> expected = k.commands().apply(k.bad());
      soft.check(() -> assertThat(commands(r)).as("[%s] %s %s commands", mode(), k.bad().name(), k.rule())
          .containsExactlyElementsOf(expected));
      soft.check(() -> assertThat(r.path("severity").asText()).as("%s severity", k.bad().name())
          .isEqualTo(expected.isEmpty() ? "info" : "warning"));
      if (expected.isEmpty()) {
        soft.check(() -> assertThat(r.path("explanation").asText()).as("%s explanation", k.bad().name())
            .contains("WireGuard encrypts every segment separately"));
      }
      Set<String> ours = new HashSet<>();
      k.bad().devices().values().forEach(d -> ours.add(d.ns().inode() + "/" + d.ns().name()));
      for (JsonNode other : recs) {
        if (ours.contains(other.path("subject").path("netns").asLong() + "/"
            + other.path("subject").path("netns_name").asText())) {
          soft.check(
              () -> assertThat(concerns(other, k.rule(), subject)).as("[%s] %s: another recommendation: %s", mode(),
                  k.bad().name(), other).isTrue());
        }
      }
    }
    soft.assertAll();
    for (Kind k : kinds) {
      assertNoAdviceFor(k.ok(), recs);
    }
  }

  /** {@code ethtool -K} on a lab device in its namespace's form (NetnsCommands: {@code ip netns exec NAME}). */
  private static String ethtoolK(DeviceAt d, String settings) {
    return "ip netns exec " + d.ns().name() + " ethtool -K " + d.name() + " " + settings;
  }

  /**
   * fentry mode names a call site other than xmit from the kernel's unwinder: S6 (routed, the router's egress
   * MTU smaller than the sender's, no PMTU discovery) is segmented by the router in ip_finish_output_gso
   * (site ip_output_mtu, cause mtu), held to the oracle's kprobe on __skb_gso_segment (its return address
   * names the caller), beside its healthy control; and mtu_mismatch opens with its exact command. Before the
   * unwinder, fentry could not see its caller and called this segmentation "other".
   */
  @Test
  @LabTest
  @Tag(ROUTED_TAG)
  void routedSegmentationIsNamedAtItsCallSite(Lab lab) throws Exception {
    Topology bad = Scenarios.s6RoutedSmallerEgressMtu(lab, false);
    Topology ok = Scenarios.s6RoutedSmallerEgressMtu(lab, true);
    Traffic t = driveAll(lab, List.of(bad, ok), List.of(iperf(lab, bad, SHORT), iperf(lab, ok, SHORT)), false);
    DeviceAt r1 = bad.device("routerOut");
    assertSegmentedAt(t, bad, new Segmenting(r1, "ip_output_mtu", Sites.IP_OUTPUT_MTU, "mtu", "tcp4", false, true));
    assertOnlyOn(t, bad, r1, Sites.IP_OUTPUT_MTU);
    assertHealthyControl(t, ok, ok.device("routerOut"), Sites.IP_OUTPUT_MTU);
    DeviceAt snd = bad.device("sender");
    assertRecommended(lab, "mtu_mismatch", r1,
        "ip -n " + snd.ns().name() + " link set dev " + snd.name() + " mtu " + Scenarios.ROUTED_EGRESS_MTU);
  }

  /**
   * One guest-only kind: the topology that segments, its control, where and why it segments, and the
   * recommendation its fault calls for (the rule, about the segmenting device, with these commands).
   */
  private record Kind(Topology bad, Topology ok, String segmenting, String site,
      Predicate<String> oracleSite, String cause, String gsoType, String offloading, String rule,
      Function<Topology, List<String>> commands) {}
}

package io.segscope.agent.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.segscope.agent.advice.AdviceContext;
import io.segscope.agent.advice.Advisor;
import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Features;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.model.Link;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.inventory.model.XdpAttachment;
import io.segscope.agent.inventory.model.XdpMode;
import io.segscope.agent.workload.Workloads;
import io.segscope.device.DeviceId;
import io.segscope.exporters.RecordErrors;
import io.segscope.exporters.SelfMetrics;
import io.segscope.exporters.model.BuildInfo;
import io.segscope.exporters.model.CallSiteStatus;
import io.segscope.exporters.model.DeviceInfo;
import io.segscope.exporters.model.GsoDeviceStats;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.probes.MeasuredPath;
import io.segscope.probes.ProbeAttachment;
import io.segscope.probes.ProbeMode;
import io.segscope.probes.ProbeReading;
import io.segscope.probes.ProbeSource;
import io.segscope.probes.ProgramRunStats;
import io.segscope.probes.program.CallSites;
import io.segscope.probes.wire.Counts;
import io.segscope.probes.wire.DeviceReading;
import io.segscope.probes.wire.DurationBuckets;
import io.segscope.probes.wire.GsoDetail;
import io.segscope.vocabulary.Cause;
import io.segscope.vocabulary.GsoType;
import io.segscope.vocabulary.Site;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The read logic of {@link TelemetryPipeline} on recorded readings: names the kernel accepts are
 * data, one record the model refuses never stops the read, vanished devices are always forgotten,
 * and the device selection applies to metrics, API and advice.
 */
class TelemetryPipelineTest {
  private static final long ROOT = 4026531840L;
  private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
  /** Names dev_valid_name accepts that Java calls blank, or that a terminal would act on, or not UTF-8. */
  private static final List<String> HOSTILE = List.of("\u001c", "\u001f", "\u2028", "\u3000", "e\u001b[31m",
      "\\xff\\xfe", "a\\\\b", "$(touch${IFS}c)");

  /** The probe side: recorded readings, and what the service asked it to forget. */
  static final class RecordedProbes implements ProbeSource {
    volatile ProbeReading reading = new ProbeReading(0, List.of(), Map.of());
    final List<String> forgotten = new ArrayList<>();

    @Override
    public ProbeReading read() {
      return reading;
    }

    @Override
    public void forget(DeviceId key) {
      forgotten.add(key.netns() + "/" + key.ifindex());
    }

    @Override
    public void setGenericXdpPresent(boolean present) {}

    final List<Boolean> segmentationSeen = new ArrayList<>();

    @Override
    public void setSegmentationSeen(boolean seen) {
      segmentationSeen.add(seen);
    }

    @Override
    public List<ProbeAttachment> attachments() {
      return List.of(new ProbeAttachment("gso_tx", "tp_btf__net_dev_queue", "tracepoint", "tp_btf:net_dev_queue",
          "tp_btf", true, false, ""));
    }

    @Override
    public List<ProgramRunStats> programStats() {
      return List.of();
    }

    @Override
    public Optional<ProbeMode> mode(MeasuredPath path) {
      return path == MeasuredPath.GSO_TX ? Optional.of(ProbeMode.TRACEPOINT) : Optional.empty();
    }

    /** The call sites the session resolved (one found, one not), and how often they were asked for. */
    final List<CallSites.Resolution> sites = List.of(
        new CallSites.Resolution(CallSites.CALL_SITES.get(0), Optional.of("validate_xmit_skb.isra.0"), ""),
        new CallSites.Resolution(CallSites.CALL_SITES.get(1), Optional.empty(), ""));
    int callSiteQueries;

    @Override
    public List<CallSites.Resolution> callSites() {
      callSiteQueries++;
      return sites;
    }
  }

  /** A clock the test moves. */
  static final class TestClock extends Clock {
    Instant now = T0;

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  private final List<LogRecord> logged = new ArrayList<>();
  private final Handler capture = new Handler() {
    @Override
    public void publish(LogRecord r) {
      synchronized (logged) {
        logged.add(r);
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };
  private final Logger recordErrorsLog = Logger.getLogger(RecordErrors.class.getName());

  @BeforeEach
  void captureLog() {
    recordErrorsLog.addHandler(capture);
  }

  @AfterEach
  void releaseLog() {
    recordErrorsLog.removeHandler(capture);
  }

  static DeviceReading counters(long netns, int ifindex, String name, long swSkbs) {
    long sw = Math.max(0, swSkbs);
    long[] causes = new long[Cause.values().length];
    causes[Cause.GSO_MAX_SIZE.ordinal()] = sw;
    long[] sites = new long[Site.values().length];
    sites[Site.XMIT.ordinal()] = sw;
    long[] dur = new long[DurationBuckets.SLOTS];
    dur[DurationBuckets.slotOf(8000)] = sw;
    Counts c = new Counts(sw + 5, (sw + 5) * 65000, 0, swSkbs, sw * 10, sw * 65000, sw, 0, 0, 0, 0);
    return new DeviceReading(new DeviceId(0, netns, ifindex), name, c, 5,
        Optional.of(new GsoDetail(name, sw, sw * 8000, causes, sites, new long[GsoType.values().length],
            new long[GsoDetail.SEG_SLOTS], dur)),
        Optional.empty());
  }

  static Device device(int ifindex, String name) {
    Link l = new Link(ifindex, name, "veth", "", 1500, OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty(),
        OptionalLong.of(65536), OptionalLong.of(65535), OptionalLong.of(524280), OptionalLong.of(65535),
        OptionalLong.of(65536), OptionalLong.of(65536), OptionalLong.of(65536),
        new XdpAttachment(XdpMode.NONE, OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty(),
            OptionalInt.empty()),
        "UP", OptionalLong.of(68), OptionalLong.of(65535), OptionalLong.of(1000), 1,
        OptionalInt.empty());
    return new Device(ROOT, "", l, Features.unavailable("not read in this test"));
  }

  static Inventory inventory(List<Device> devices) {
    return new Inventory(List.of(new Netns(ROOT, "", Path.of("/proc/1/ns/net"), true)), devices, Map.of(), T0);
  }

  private final RecordedProbes probes = new RecordedProbes();
  private final TestClock clock = new TestClock();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final RecordErrors errors = new RecordErrors(meters);

  private TelemetryPipeline service(Inventory[] inv, DeviceSelection.Config selection) {
    Advisor advisor = new Advisor(Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofMinutes(2),
        AdviceContext.Thresholds.DEFAULT, false);
    return new TelemetryPipeline(probes, new SelfCost(SelfCost.Mode.OFF, Duration.ofSeconds(1), Duration.ofSeconds(60),
        List::of), () -> inv[0], Workloads::none, advisor, new BuildInfo("test", "0.26.0", "6.18"),
        new SelfMetrics(meters), errors, selection, VanishedDevices.GRACE,
        clock);
  }

  private static List<String> gsoNames(TelemetrySnapshot s) {
    return s.gso().stream().map(g -> g.device().device()).toList();
  }

  private double errorCount() {
    return RecordErrors.KINDS.stream().mapToDouble(errors::count).sum();
  }

  @Test
  void namesTheKernelAcceptsAreExportedExactlyAndVanishedDevicesAreStillForgotten() {
    List<Device> devices = new ArrayList<>(List.of(device(2, "eth0")));
    List<DeviceReading> counted = new ArrayList<>(List.of(counters(ROOT, 2, "eth0", 100)));
    for (int i = 0; i < HOSTILE.size(); i++) {
      devices.add(device(10 + i, HOSTILE.get(i)));
      counted.add(counters(ROOT, 10 + i, HOSTILE.get(i), 100 + i));
    }
    counted.add(counters(ROOT, 99, "gone0", 7)); // counted, but no longer in the inventory
    probes.reading = new ProbeReading(1, counted, Map.of());
    Inventory[] inv = {inventory(devices)};
    TelemetryPipeline t = service(inv, DeviceSelection.Config.DEFAULT);

    t.turn();
    clock.now = T0.plusSeconds(16); // past the 15 s grace of a vanished device
    t.turn();

    TelemetrySnapshot s = t.latest();
    assertThat(s.takenAt()).isEqualTo(T0.plusSeconds(16));
    List<String> expected = new ArrayList<>(List.of("eth0"));
    expected.addAll(HOSTILE);
    expected.add("gone0");
    assertThat(gsoNames(s)).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(s.devices()).extracting(DeviceInfo::device).extracting(d -> d.device())
        .containsExactlyInAnyOrderElementsOf(expected.subList(0, expected.size() - 1));
    assertThat(probes.forgotten).containsExactly(ROOT + "/99");
    assertThat(errorCount()).as("no record was refused").isZero();
    assertThat(t.inventory().devices()).hasSize(devices.size());
  }

  @Test
  void aRecordTheModelRefusesIsSkippedCountedAndLoggedOnceWhileTheRestGoesOn() {
    List<Device> devices = List.of(device(2, "eth0"), device(3, "\u001c"), device(4, "wrapped"));
    Inventory[] inv = {inventory(devices)};
    TelemetryPipeline t = service(inv, DeviceSelection.Config.DEFAULT);
    for (int read = 0; read < 3; read++) {
      probes.reading = new ProbeReading(read, List.of(
          counters(ROOT, 2, "eth0", 100 + read),
          counters(ROOT, 3, "\u001c", 50 + read),
          counters(ROOT, 4, "wrapped", Long.MIN_VALUE + read), // a u64 past 2^63: negative in Java
          counters(ROOT, -1, "bad-ifindex", 10),                // no device has ifindex -1
          counters(ROOT, 98, "gone0", 7)), Map.of());
      clock.now = T0.plusSeconds(10L * read);
      t.turn();
      TelemetrySnapshot s = t.latest();
      assertThat(s.takenAt()).as("read %d produced a snapshot", read).isEqualTo(clock.now);
      assertThat(gsoNames(s)).as("read %d", read).containsExactlyInAnyOrder("eth0", "\u001c", "gone0");
      assertThat(s.gso().stream().filter(g -> g.device().device().equals("eth0")).map(GsoDeviceStats::swSkbs))
          .containsExactly(100L + read);
    }
    assertThat(errors.count(RecordErrors.COUNTERS)).as("two bad records on each of three reads").isEqualTo(6);
    List<String> warnings;
    synchronized (logged) {
      warnings = logged.stream().filter(r -> r.getLevel() == Level.WARNING).map(LogRecord::getMessage).toList();
    }
    assertThat(warnings).as("each bad record logged once, not on every read").hasSize(2)
        .anySatisfy(w -> assertThat(w).contains("wrapped").contains("must not be negative"))
        .anySatisfy(w -> assertThat(w).contains("bad-ifindex").contains("ifindex must be positive"));
    assertThat(probes.forgotten).as("vanished devices are forgotten though bad records came first")
        .containsExactlyInAnyOrder(ROOT + "/98", ROOT + "/-1");
  }

  @Test
  void includeExcludeAndTheDeviceLimitApplyToMetricsApiAndAdviceAlike() {
    List<Device> devices = new ArrayList<>();
    List<DeviceReading> counted = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      devices.add(device(2 + i, "veth" + i));
      counted.add(counters(ROOT, 2 + i, "veth" + i, 10));
    }
    devices.add(device(20, "eth0"));
    counted.add(counters(ROOT, 20, "eth0", 10));
    probes.reading = new ProbeReading(1, counted, Map.of());
    Inventory[] inv = {inventory(devices)};
    var config = new DeviceSelection.Config(Optional.of(Pattern.compile("^veth")),
        Optional.of(Pattern.compile("^veth[45]$")), 3);
    TelemetryPipeline t = service(inv, config);
    t.turn();
    TelemetrySnapshot s = t.latest();
    assertThat(gsoNames(s)).containsExactlyInAnyOrder("veth0", "veth1", "veth2");
    assertThat(s.devices()).extracting(d -> d.device().device()).containsExactlyInAnyOrder("veth0", "veth1", "veth2");
    assertThat(t.inventory().devices()).extracting(Device::name).containsExactlyInAnyOrder("veth0", "veth1", "veth2");
    assertThat(meters.get("segscope.devices.dropped").functionCounter().count()).as("veth3 refused once").isEqualTo(1);
    assertThat(meters.get("segscope.devices.reported").gauge().value()).isEqualTo(3);

    // the same devices again: nothing new is counted; reported devices keep their place
    t.turn();
    assertThat(meters.get("segscope.devices.dropped").functionCounter().count()).isEqualTo(1);
    // veth1 goes away: veth3 takes its place
    devices.removeIf(d -> d.name().equals("veth1"));
    counted.removeIf(c -> c.kernelName().equals("veth1"));
    inv[0] = inventory(devices);
    probes.reading = new ProbeReading(2, counted, Map.of());
    t.turn();
    assertThat(gsoNames(t.latest())).containsExactlyInAnyOrder("veth0", "veth2", "veth3");
  }

  @Test
  void callSitesAreTranslatedOnceWhenTheServiceOpensAndEverySnapshotSharesTheResult() {
    Inventory[] inv = {inventory(List.of(device(2, "eth0")))};
    TelemetryPipeline t = service(inv, DeviceSelection.Config.DEFAULT);
    assertThat(probes.callSiteQueries).isEqualTo(1);
    probes.reading = new ProbeReading(1, List.of(counters(ROOT, 2, "eth0", 10)), Map.of());
    t.turn();
    List<CallSiteStatus> first = t.latest().callSites();
    probes.reading = new ProbeReading(2, List.of(counters(ROOT, 2, "eth0", 20)), Map.of());
    clock.now = clock.now.plusSeconds(5);
    t.turn();
    TelemetrySnapshot second = t.latest();
    assertThat(second.gso()).singleElement().satisfies(g -> assertThat(g.swSkbs()).isEqualTo(20));
    assertThat(probes.callSiteQueries).as("asked once, at construction").isEqualTo(1);
    assertThat(second.callSites()).as("the same list, not a new translation").isSameAs(first);
    CallSites.CallSite found = CallSites.CALL_SITES.get(0);
    CallSites.CallSite absent = CallSites.CALL_SITES.get(1);
    assertThat(first).containsExactly(
        new CallSiteStatus(found.name(), found.site().label(), "validate_xmit_skb.isra.0", true),
        new CallSiteStatus(absent.name(), absent.site().label(), "", false));
  }

  @Test
  void theTimingWindowsKeepOpeningWhileSegmentationGrewWithinTheLingerAndStopAfter() {
    Inventory[] inv = {inventory(List.of(device(2, "eth0")))};
    TelemetryPipeline t = service(inv, DeviceSelection.Config.DEFAULT);
    long[] sw = {0, 0, 40, 40, 40, 40, 90, 90};
    long[] at = {0, 1, 2, 3, 301, 303, 304, 605};
    for (int i = 0; i < sw.length; i++) {
      clock.now = T0.plusSeconds(at[i]);
      probes.reading = new ProbeReading(i, List.of(counters(ROOT, 2, "eth0", sw[i])), Map.of());
      t.turn();
    }
    // no growth; none; grew at 2 s; 1 s later; 299 s later (within 5 min); 301 s later (gone);
    // grew again at 304 s; 301 s after that (gone)
    assertThat(probes.segmentationSeen).containsExactly(false, false, true, true, true, false, true, false);
    assertThat(TelemetryPipeline.SEGMENTATION_LINGER).isEqualTo(Duration.ofMinutes(5));
  }
}

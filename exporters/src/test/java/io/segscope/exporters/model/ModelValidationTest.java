package io.segscope.exporters.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.segscope.device.DeviceId;
import io.segscope.vocabulary.Cause;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ModelValidationTest {
  private static final DeviceRef DEV = new DeviceRef(DeviceId.of(4026531840L, 2), "", "eth0");
  private static final NativeHistogram EMPTY = NativeHistogram.empty(3, 0);

  @Test
  void aCallSiteIsResolvedExactlyWhenItNamesItsFunction() {
    assertThat(new CallSiteStatus("validate_xmit_skb", "xmit", "validate_xmit_skb.isra.0", true).resolved()).isTrue();
    assertThat(new CallSiteStatus("cake_enqueue", "qdisc", "", false).function()).isEmpty();
    assertThatThrownBy(() -> new CallSiteStatus("cake_enqueue", "qdisc", "", true))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("resolved true");
    assertThatThrownBy(() -> new CallSiteStatus("tbf_segment", "qdisc", "tbf_enqueue", false))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new CallSiteStatus(" ", "qdisc", "", false)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new CallSiteStatus("x", "qdisc", null, false)).isInstanceOf(RuntimeException.class);
  }

  @Test
  void deviceRefRejectsBadFields() {
    // the inode's range is the identity's rule (DeviceIdTest); the record refuses a missing one
    assertThatThrownBy(() -> new DeviceRef(DeviceId.of(-1, 1), "", "eth0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("DeviceId.netns must be a namespace inode (0 to 4294967295), got -1");
    assertThatThrownBy(() -> new DeviceRef(null, "", "eth0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("DeviceRef.id must not be null");
    assertThatThrownBy(() -> new DeviceRef(DeviceId.of(1, 1), null, "eth0"))
        .hasMessageStartingWith("DeviceRef.netnsName (use \"\" for an unnamed namespace) must not be null");
    assertThatThrownBy(() -> new DeviceRef(DeviceId.of(1, 0), "", "eth0"))
        .hasMessage("DeviceRef.ifindex must be positive, got 0");
    assertThatThrownBy(() -> new DeviceRef(DeviceId.of(1, 1), "", ""))
        .hasMessage("DeviceRef.device must not be empty");
    // names the kernel accepts though Java calls them blank: data, never a reason to fail
    for (String name : List.of("\u001c", "\u001f", "\u2028", "\u3000", "\u001b[31m", "\\xff\\xfe")) {
      assertThat(new DeviceRef(DeviceId.of(1, 1), "", name).device()).isEqualTo(name);
    }
    assertThat(new DeviceRef(DeviceId.of(4026531840L, 1), "", "lo").netnsLabel()).isEqualTo("4026531840");
  }

  @Test
  void gsoStatsRejectNegativeCounters() {
    assertThatThrownBy(() -> new GsoDeviceStats(DEV, "kprobe", -1, 0, 0, EMPTY, EMPTY, 0, Map.of(), Map.of(), Map.of()))
        .hasMessage("GsoDeviceStats.swSkbs must not be negative, got -1");
    assertThatThrownBy(() -> new GsoDeviceStats(DEV, "kprobe", 0, -5, 0, EMPTY, EMPTY, 0, Map.of(), Map.of(), Map.of()))
        .hasMessage("GsoDeviceStats.swSegments must not be negative, got -5");
    assertThatThrownBy(() -> new GsoDeviceStats(DEV, "kprobe", 0, 0, -1, EMPTY, EMPTY, 0, Map.of(), Map.of(), Map.of()))
        .hasMessage("GsoDeviceStats.swBytes must not be negative, got -1");
    assertThatThrownBy(() -> new GsoDeviceStats(DEV, "kprobe", 0, 0, 0, EMPTY, EMPTY, -3, Map.of(), Map.of(), Map.of()))
        .hasMessage("GsoDeviceStats.offloadedSkbs must not be negative, got -3");
    assertThatThrownBy(
        () -> new GsoDeviceStats(DEV, "kprobe", 0, 0, 0, EMPTY, EMPTY, 0,
            Map.of(Cause.CHECKSUM, -1L), Map.of(), Map.of()))
        .hasMessage("GsoDeviceStats.causes[CHECKSUM] must not be negative, got -1");
  }

  @Test
  void gsoStatsRejectMissingParts() {
    assertThatThrownBy(() -> new GsoDeviceStats(null, "kprobe", 0, 0, 0, EMPTY, EMPTY, 0, Map.of(), Map.of(), Map.of()))
        .hasMessage("GsoDeviceStats.device must not be null");
    assertThatThrownBy(() -> new GsoDeviceStats(DEV, "", 0, 0, 0, EMPTY, EMPTY, 0, Map.of(), Map.of(), Map.of()))
        .hasMessage("GsoDeviceStats.mode must not be blank");
    assertThatThrownBy(() -> new GsoDeviceStats(DEV, "kprobe", 0, 0, 0, null, EMPTY, 0, Map.of(), Map.of(),
        Map.of())).hasMessage("GsoDeviceStats.duration must not be null");
    assertThatThrownBy(() -> new GsoDeviceStats(DEV, "kprobe", 0, 0, 0, EMPTY, null, 0, Map.of(), Map.of(),
        Map.of())).hasMessage("GsoDeviceStats.segmentsPerSkb must not be null");
    assertThatThrownBy(() -> new GsoDeviceStats(DEV, "kprobe", 0, 0, 0, EMPTY, EMPTY, 0, null, Map.of(), Map.of()))
        .hasMessage("GsoDeviceStats.causes must not be null");
    assertThatThrownBy(() -> new GsoDeviceStats(DEV, "kprobe", 0, 0, 0, EMPTY, EMPTY, 0, Map.of(), null, Map.of()))
        .hasMessage("GsoDeviceStats.sites must not be null");
    Map<Cause, Long> nullValue = new HashMap<>();
    nullValue.put(Cause.OTHER, null);
    assertThatThrownBy(() -> new GsoDeviceStats(DEV, "kprobe", 0, 0, 0, EMPTY, EMPTY, 0, nullValue, Map.of(),
        Map.of()))
        .hasMessage("GsoDeviceStats.causes[OTHER] must not be null");
  }

  @Test
  void gsoCausesAreAnImmutableCopyWithZeroForMissing() {
    Map<Cause, Long> causes = new EnumMap<>(Cause.class);
    causes.put(Cause.GSO_MAX_SIZE, 4L);
    GsoDeviceStats stats = new GsoDeviceStats(DEV, "kprobe", 4, 8, 100, EMPTY, EMPTY, 0, causes, Map.of(), Map.of());
    causes.put(Cause.OTHER, 9L);
    assertThat(stats.causes()).containsOnlyKeys(Cause.GSO_MAX_SIZE);
    assertThat(stats.cause(Cause.GSO_MAX_SIZE)).isEqualTo(4);
    assertThat(stats.cause(Cause.CHECKSUM)).isZero();
    assertThatThrownBy(() -> stats.causes().put(Cause.OTHER, 1L))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void gsoCauseLabelsAreTheContractValues() {
    assertThat(Arrays.stream(Cause.values()).map(Cause::label))
        .containsExactly("feature_missing", "gso_max_size", "gso_max_segs", "checksum", "other", "mtu", "qdisc",
            "tunnel_feature_missing");
  }

  @Test
  void xdpStatsRejectBadFields() {
    Optional<NativeHistogram> none = Optional.empty();
    assertThatThrownBy(() -> new XdpDeviceStats(DEV, "kprobe", -1, 0, 0, 0, none))
        .hasMessage("XdpDeviceStats.copiedSkbs must not be negative, got -1");
    assertThatThrownBy(() -> new XdpDeviceStats(DEV, "kprobe", 0, -1, 0, 0, none))
        .hasMessage("XdpDeviceStats.passedSkbs must not be negative, got -1");
    assertThatThrownBy(() -> new XdpDeviceStats(DEV, "kprobe", 0, 0, -1, 0, none))
        .hasMessage("XdpDeviceStats.copiedBytes must not be negative, got -1");
    assertThatThrownBy(() -> new XdpDeviceStats(DEV, "kprobe", 0, 0, 0, -1, none))
        .hasMessage("XdpDeviceStats.passedBytes must not be negative, got -1");
    assertThatThrownBy(() -> new XdpDeviceStats(DEV, "kprobe", 0, 0, 0, 0, null))
        .hasMessage("XdpDeviceStats.copyDuration must not be null");
    assertThatThrownBy(() -> new XdpDeviceStats(DEV, null, 0, 0, 0, 0, none))
        .hasMessage("XdpDeviceStats.mode must not be null");
  }

  @Test
  void probeProgramAndBuildRejectBadFields() {
    assertThatThrownBy(() -> new ProbeStatus("", "p", "kprobe", "tp_btf", true))
        .hasMessage("ProbeStatus.path must not be blank");
    assertThatThrownBy(() -> new ProbeStatus("gso_tx", null, "kprobe", "tp_btf", true))
        .hasMessage("ProbeStatus.program must not be null");
    assertThatThrownBy(() -> new ProbeStatus("gso_tx", "p", " ", "tp_btf", true))
        .hasMessage("ProbeStatus.mode must not be blank");
    assertThatThrownBy(() -> new ProgramStats("p", -1, 0))
        .hasMessage("ProgramStats.runTimeNanos must not be negative, got -1");
    assertThatThrownBy(() -> new ProgramStats("p", 0, -1))
        .hasMessage("ProgramStats.runCount must not be negative, got -1");
    assertThatThrownBy(() -> new ProgramStats("", 0, 0))
        .hasMessage("ProgramStats.program must not be blank");
    assertThatThrownBy(() -> new BuildInfo("1", "", "6.18"))
        .hasMessage("BuildInfo.libbcc must not be blank");
    assertThat(BuildInfo.unknown()).isEqualTo(new BuildInfo("unknown", "unknown", "unknown"));
  }

  @Test
  void snapshotRejectsNullElementsNamingTheIndex() {
    List<ProbeStatus> probes = new ArrayList<>();
    probes.add(new ProbeStatus("gso_tx", "p", "kprobe", "tp_btf", true));
    probes.add(null);
    assertThatThrownBy(
        () -> new TelemetrySnapshot(Instant.EPOCH, List.of(), List.of(), probes, List.of(),
            BuildInfo.unknown(), List.of(), List.of(), List.of(), List.of(), 0))
        .hasMessage("TelemetrySnapshot.probes[1] must not be null");
    assertThatThrownBy(
        () -> new TelemetrySnapshot(null, List.of(), List.of(), List.of(), List.of(),
            BuildInfo.unknown(), List.of(), List.of(), List.of(), List.of(), 0))
        .hasMessage("TelemetrySnapshot.takenAt must not be null");
    assertThatThrownBy(
        () -> new TelemetrySnapshot(Instant.EPOCH, List.of(), List.of(), List.of(), List.of(),
            null, List.of(), List.of(), List.of(), List.of(), 0))
        .hasMessage("TelemetrySnapshot.build must not be null");
    assertThatThrownBy(() -> TelemetrySnapshot.builder().addGso(null))
        .hasMessage("TelemetrySnapshot.Builder.addGso argument must not be null");
  }

  @Test
  void snapshotListsAreImmutableCopies() {
    List<ProgramStats> programs = new ArrayList<>(List.of(new ProgramStats("p", 1, 1)));
    TelemetrySnapshot s =
        new TelemetrySnapshot(Instant.EPOCH, List.of(), List.of(), List.of(), programs,
            BuildInfo.unknown(), List.of(), List.of(), List.of(), List.of(), 0);
    programs.clear();
    assertThat(s.programs()).hasSize(1);
    assertThatThrownBy(() -> s.programs().clear()).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void builderCollectsRecordsInOrder() {
    Instant at = Instant.parse("2026-01-01T00:00:00Z");
    GsoDeviceStats gso = new GsoDeviceStats(DEV, "kprobe", 1, 2, 3, EMPTY, EMPTY, 4, Map.of(), Map.of(), Map.of());
    XdpDeviceStats xdp = new XdpDeviceStats(DEV, "kprobe", 1, 2, 3, 4, Optional.of(EMPTY));
    TelemetrySnapshot s =
        TelemetrySnapshot.builder()
            .takenAt(at)
            .addGso(gso)
            .addXdp(xdp)
            .addProbe(new ProbeStatus("gso_tx", "a", "kprobe", "tp_btf", true))
            .addProbe(new ProbeStatus("gso_tx", "b", "kprobe", "tp_btf", false))
            .addProgram(new ProgramStats("a", 1, 1))
            .buildInfo(new BuildInfo("1", "2", "3"))
            .build();
    assertThat(s.takenAt()).isEqualTo(at);
    assertThat(s.gso()).containsExactly(gso);
    assertThat(s.xdp()).containsExactly(xdp);
    assertThat(s.probes()).extracting(ProbeStatus::program).containsExactly("a", "b");
    assertThat(s.build()).isEqualTo(new BuildInfo("1", "2", "3"));
  }

  @Test
  void emptySnapshotHasNoRecordsAndUnknownBuild() {
    TelemetrySnapshot empty = TelemetrySnapshot.empty();
    assertThat(empty.takenAt()).isEqualTo(Instant.EPOCH);
    assertThat(empty.gso()).isEmpty();
    assertThat(empty.xdp()).isEmpty();
    assertThat(empty.probes()).isEmpty();
    assertThat(empty.programs()).isEmpty();
    assertThat(empty.build()).isEqualTo(BuildInfo.unknown());
  }
}

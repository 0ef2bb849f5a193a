package io.segscope.agent.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.segscope.device.DeviceId;
import io.segscope.exporters.model.DeviceRef;
import io.segscope.exporters.model.GsoDeviceStats;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.exporters.model.XdpDeviceStats;
import io.segscope.probes.wire.DurationBuckets;
import io.segscope.vocabulary.Cause;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CostModelTest {
  private static final Instant T = Instant.parse("2026-11-30T19:00:00Z");
  private static final DeviceRef UP = new DeviceRef(DeviceId.of(7, 3), "sw", "up0");

  private static GsoDeviceStats gso(long sw, long timed, double nanos, long offloaded) {
    long[] dur = new long[DurationBuckets.SLOTS];
    dur[DurationBuckets.slotOf(8000)] = timed;
    long[] segs = new long[18];
    segs[7] = sw;
    return new GsoDeviceStats(UP, "tracepoint", sw, sw * 45, sw * 65000, Histograms.duration(dur, (long) nanos),
        Histograms.segments(segs, sw * 45), offloaded, Map.of(Cause.GSO_MAX_SIZE, sw), Map.of(), Map.of());
  }

  private static TelemetrySnapshot snap(int s, GsoDeviceStats... g) {
    var b = TelemetrySnapshot.builder().takenAt(T.plusSeconds(s));
    for (GsoDeviceStats x : g) {
      b.addGso(x);
    }
    return b.build();
  }

  @Test
  void ratesAndMeasuredCpuFromCounterDeltas() {
    var c = CostModel.window(snap(0, gso(1000, 1000, 8e6, 0)), snap(10, gso(11000, 11000, 88e6, 500)))
        .get(DeviceId.of(7, 3));
    assertThat(c.seconds()).isEqualTo(10.0);
    assertThat(c.swSkbsPerSec()).isEqualTo(1000.0);
    assertThat(c.swSegmentsPerSec()).isEqualTo(45000.0);
    assertThat(c.offloadedSkbsPerSec()).isEqualTo(50.0);
    assertThat(c.causePerSec(Cause.GSO_MAX_SIZE)).isEqualTo(1000.0);
    assertThat(c.causeShare(Cause.GSO_MAX_SIZE)).isEqualTo(1.0);
    assertThat(c.gsoCpu().basis()).isEqualTo("measured");
    assertThat(c.gsoCpu().cores()).isCloseTo(80e6 / 1e9 / 10, within(1e-12)); // 8 ms of CPU per second
    assertThat(c.swDuration().count()).isEqualTo(10000);
    assertThat(c.swDurationQuantileNanos(0.5)).isBetween(7600.0, 8300.0); // inside 8000 ns's native bucket
  }

  @Test
  void partlyTimedCpuIsExtrapolatedAndSaysSo() {
    var c = CostModel.window(snap(0, gso(0, 0, 0, 0)), snap(10, gso(10000, 5000, 40e6, 0)))
        .get(DeviceId.of(7, 3));
    assertThat(c.gsoCpu().basis()).isEqualTo("extrapolated");
    assertThat(c.gsoCpu().cores()).isCloseTo(2 * 40e6 / 1e9 / 10, within(1e-12));
    assertThat(c.gsoCpu().explanation()).contains("50%");
    // every timed one took 8 us: the sample shows no spread beyond its bucket, so the error is ~0 and known
    assertThat(c.gsoCpu().relativeError()).isBetween(0.0, 1e-9);
    assertThat(c.gsoCpu().explanation()).contains("95 % confidence from the timed sample");
  }

  @Test
  void measuredCpuHasNoSamplingErrorAndAnUntimedEstimateHasNoneKnown() {
    var c = CostModel.window(snap(0, gso(1000, 1000, 8e6, 0)), snap(10, gso(11000, 11000, 88e6, 500)))
        .get(DeviceId.of(7, 3));
    assertThat(c.gsoCpu().relativeError()).isZero();
    assertThat(CpuEstimate.NONE.relativeError()).isNaN();
    assertThatThrownBy(() -> new CpuEstimate(1, "measured", -0.1, "x")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aWindowThatTimedNothingTakesTheMeanOfEveryEarlierTimingTimesTheExactCount() {
    // issue 25: no sampling window fell in these 10 s; 2,000 segmentations were timed earlier at 8 us each
    var c = CostModel.window(snap(0, gso(5000, 2000, 16e6, 0)), snap(10, gso(15000, 2000, 16e6, 0)))
        .get(DeviceId.of(7, 3));
    assertThat(c.gsoCpu().basis()).isEqualTo("extrapolated");
    assertThat(c.gsoCpu().cores()).isCloseTo(10000 * 8000e-9 / 10, within(1e-12));
    assertThat(c.gsoCpu().explanation()).contains("none timed in this window").contains("2000 timed earlier")
        .contains("8000 ns");
  }

  @Test
  void aCounterResetCountsFromTheRestart() {
    // the device was forgotten and seen again: its counters restarted below their old values
    var c = CostModel.window(snap(0, gso(90000, 90000, 9e8, 0)), snap(10, gso(2000, 2000, 2e7, 0)))
        .get(DeviceId.of(7, 3));
    assertThat(c.swSkbsPerSec()).isEqualTo(200.0);
    assertThat(c.gsoCpu().cores()).isCloseTo(2e7 / 1e9 / 10, within(1e-12));
  }

  @Test
  void aVanishedDeviceHasNoCostAndANewOneCountsAll() {
    var gone = CostModel.window(snap(0, gso(5, 5, 5, 0)), snap(10));
    assertThat(gone).isEmpty();
    var fresh = CostModel.window(snap(0), snap(10, gso(300, 300, 3e6, 0)));
    assertThat(fresh.get(DeviceId.of(7, 3)).swSkbsPerSec()).isEqualTo(30.0);
  }

  @Test
  void untimedXdpCopiesGetAnEstimateWithItsBasis() {
    var x = new XdpDeviceStats(UP, "tracepoint", 36000, 10, 36000L * 65000, 10L * 1500, Optional.empty());
    var after = TelemetrySnapshot.builder().takenAt(T.plusSeconds(1)).addXdp(x).build();
    var c = CostModel.window(snap(0), after).get(DeviceId.of(7, 3));
    assertThat(c.xdpCopiedPerSec()).isEqualTo(36000.0);
    assertThat(c.xdpCpu().basis()).isEqualTo("estimated");
    assertThat(c.xdpCpu().relativeError()).as("a stated per-copy cost: no error known").isNaN();
    assertThat(c.xdpCpu().cores()).isCloseTo(36000 * 600e-9, within(1e-12));
    assertThat(c.xdpCpu().explanation()).contains("cannot time");
  }

  @Test
  void aWindowMustMoveForward() {
    assertThatThrownBy(() -> CostModel.window(snap(10), snap(10)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be after");
  }
}

package io.segscope.bench.jmh;

import io.segscope.agent.telemetry.TelemetryPipeline;
import io.segscope.bench.agent.AgentProcess;
import io.segscope.exporters.MetricsRegistry;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.probes.ProbeReading;
import io.segscope.probes.wire.Counts;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The agent's per-read and per-scrape Java work for a host of {@code devices} devices, in the agent's own
 * heap and collector (the launcher's flags are passed by JmhPart): summing the per-CPU counter values of
 * the map, one read of the reader (TelemetryPipeline.turn: selection, snapshot, advice, device infos;
 * the kernel read itself excluded), rendering a new snapshot's families once (MetricsRegistry.render, on
 * the reader), and serving one scrape of the cached bytes as Prometheus asks (gzip) and as plain text.
 * One operation = the whole host once.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class HotPathBenchmarks {
  @Param({"100", "1000"})
  int devices;

  private Fleet fleet;
  private byte[][] values;
  private ProbeReading[] readings;
  private Fleet.Probes probes;
  private Fleet.StepClock clock;
  private TelemetryPipeline service;
  private MetricsRegistry registry;
  private TelemetrySnapshot[] snapshots;
  private volatile TelemetrySnapshot current;
  private int turn;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    fleet = new Fleet(devices, 2);
    values = fleet.counterValues(1);
    readings = new ProbeReading[] {fleet.reading(1), fleet.reading(2)};
    probes = new Fleet.Probes(readings[0], fleet.attachments);
    clock = new Fleet.StepClock();
    registry = new MetricsRegistry(() -> current);
    service = fleet.service(probes, clock, registry.self(), registry.recordErrors());
    snapshots = new TelemetrySnapshot[2];
    for (int i = 0; i < 2; i++) {
      probes.reading = readings[i];
      clock.now = clock.now.plusSeconds(5);
      service.turn();
      snapshots[i] = service.latest();
    }
    current = snapshots[1];
    registry.render();
    // the variants scrapers ask for: Prometheus (gzip) and plain text
    registry.scrapeParts(AgentProcess.PROMETHEUS_ACCEPT, true);
    registry.scrapeParts(null, false);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    registry.close();
  }

  /** Every device's per-CPU counter value summed over the CPUs (Counts.sumPerCpu), as a map read does. */
  @Benchmark
  public long decode() {
    long total = 0;
    for (byte[] v : values) {
      total += Counts.sumPerCpu(ByteBuffer.wrap(v).order(ByteOrder.nativeOrder()), 0, fleet.cpus, Counts.SIZE)
          .gsoQueued();
    }
    return total;
  }

  /** One read of the reader on new counters: TelemetryPipeline.turn, one interval later each time. */
  @Benchmark
  public Object refresh() {
    probes.reading = readings[turn++ & 1];
    clock.now = clock.now.plusSeconds(5);
    service.turn();
    return service.latest();
  }

  /** What the reader adds to each read for the scrapes: MetricsRegistry.render of a new snapshot. */
  @Benchmark
  public void render() {
    current = snapshots[turn++ & 1];
    registry.render();
  }

  /** One scrape as Prometheus asks (its Accept header, gzip): the cached bytes plus the small JVM families. */
  @Benchmark
  public int scrapeGzip() throws IOException {
    return registry.scrapeParts(AgentProcess.PROMETHEUS_ACCEPT, true).length();
  }

  /** The same as Prometheus text 0.0.4 without compression (curl, or a scraper without gzip). */
  @Benchmark
  public int scrapeText() throws IOException {
    return registry.scrapeParts(null, false).length();
  }
}

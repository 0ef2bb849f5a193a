package io.segscope.bench.jmh;

import io.segscope.agent.advice.AdviceContext;
import io.segscope.agent.advice.Finding;
import io.segscope.agent.advice.Recommender;
import io.segscope.agent.cost.CostModel;
import io.segscope.agent.cost.DeviceCost;
import io.segscope.exporters.MetricsRegistry;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.probes.gso.DeviceCounters;
import io.segscope.probes.gso.DeviceStatsDecoder;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
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
 * The agent's per-read and per-scrape work for a host of {@code devices} devices on 2 CPUs, in the agent's
 * own JVM configuration (-Xmx192m, serial GC): decoding the per-CPU map, assembling the snapshot, rendering
 * the snapshot's families (once per read, on the reader), serving one scrape, and the cost window +
 * recommender. One operation = the whole host once.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgs = {"-Xms32m", "-Xmx192m", "-XX:+UseSerialGC"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class HotPathBenchmarks {
  @Param({"100", "1000"})
  int devices;

  private Fleet fleet;
  private DeviceStatsDecoder decoder;
  private List<DeviceCounters> counters;
  private TelemetrySnapshot earlier;
  private TelemetrySnapshot later;
  private final AtomicReference<TelemetrySnapshot> current = new AtomicReference<>();
  private MetricsRegistry registry;
  private Recommender recommender;
  private AdviceContext context;
  private TelemetrySnapshot[] alternate;
  private int turn;
  /** What Prometheus 2.x sends. */
  static final String PROMETHEUS_ACCEPT = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
      + "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

  @Setup(Level.Trial)
  public void setUp() {
    fleet = new Fleet(devices, 2);
    decoder = fleet.decoder();
    counters = fleet.decode(fleet.values);
    earlier = fleet.snapshot(counters, Fleet.T0);
    later = fleet.snapshot(fleet.decode(fleet.valuesAt(2)), Fleet.T0.plusSeconds(5));
    current.set(later);
    registry = new MetricsRegistry(current::get);
    alternate = new TelemetrySnapshot[] {earlier, later};
    try {
      // the variants the agent's scrapers ask for: Prometheus (OpenMetrics, gzip) and plain text
      registry.scrapeParts(PROMETHEUS_ACCEPT, true);
      registry.scrapeParts(null, false);
    } catch (IOException e) {
      throw new IllegalStateException("first scrape: " + e.getMessage(), e);
    }
    recommender = new Recommender();
    context = new AdviceContext(fleet.inventory, AdviceContext.Thresholds.DEFAULT, true);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    registry.close();
  }

  /** DeviceStatsDecoder.decode of every device's per-CPU value (2 CPUs). */
  @Benchmark
  public List<DeviceCounters> decode() {
    List<DeviceCounters> out = new ArrayList<>(devices);
    for (int i = 0; i < devices; i++) {
      out.add(decoder.decode(fleet.keys[i], fleet.values[i]));
    }
    return out;
  }

  /** SnapshotAssembler (naming every device from the inventory) + the inventory's device infos. */
  @Benchmark
  public TelemetrySnapshot assemble() {
    return fleet.snapshot(counters, Fleet.T0);
  }

  /**
   * One scrape as the agent serves Prometheus (OpenMetrics, gzip), the snapshot already rendered by the
   * reader: MetricsRegistry.scrapeParts (the cached snapshot bytes plus the JVM and self families rendered
   * and compressed now).
   */
  @Benchmark
  public int scrape() throws IOException {
    return registry.scrapeParts(PROMETHEUS_ACCEPT, true).length();
  }

  /** The same in Prometheus text 0.0.4 without compression (curl, or a scraper without gzip). */
  @Benchmark
  public int scrapeText() throws IOException {
    return registry.scrapeParts(null, false).length();
  }

  /**
   * What the reader adds to each map read for the scrapes: MetricsRegistry.render of a new snapshot
   * (translate once, encode OpenMetrics + gzip and text 0.0.4, the two variants asked for).
   */
  @Benchmark
  public void render() {
    current.set(alternate[turn++ & 1]);
    registry.render();
  }

  /** Everything a map read and the scrape after it cost: decode + assemble + render + one scrape. */
  @Benchmark
  public int readAndScrape() throws IOException {
    List<DeviceCounters> c = decode();
    current.set(fleet.snapshot(c, Fleet.T0.plusSeconds(5)));
    registry.render();
    return registry.scrapeParts(PROMETHEUS_ACCEPT, true).length();
  }

  /** CostModel.window over two snapshots + Recommender.evaluate with the inventory. */
  @Benchmark
  public List<Finding> advise() {
    Map<io.segscope.agent.inventory.DeviceKey, DeviceCost> costs = CostModel.window(earlier, later);
    Collection<DeviceCost> values = costs.values();
    return recommender.evaluate(values, context);
  }
}

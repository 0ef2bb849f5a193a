package io.segscope.bench.jmh;

import io.segscope.agent.advice.AdviceContext;
import io.segscope.agent.advice.Advisor;
import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Features;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.model.Link;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.inventory.model.XdpAttachment;
import io.segscope.agent.inventory.model.XdpMode;
import io.segscope.agent.telemetry.DeviceSelection;
import io.segscope.agent.telemetry.SelfCost;
import io.segscope.agent.telemetry.TelemetryPipeline;
import io.segscope.agent.telemetry.VanishedDevices;
import io.segscope.agent.workload.Workloads;
import io.segscope.device.DeviceId;
import io.segscope.exporters.RecordErrors;
import io.segscope.exporters.SelfMetrics;
import io.segscope.exporters.model.BuildInfo;
import io.segscope.probes.MeasuredPath;
import io.segscope.probes.ProbeAttachment;
import io.segscope.probes.ProbeMode;
import io.segscope.probes.ProbeReading;
import io.segscope.probes.ProbeSource;
import io.segscope.probes.ProgramRunStats;
import io.segscope.probes.wire.Counts;
import io.segscope.probes.wire.DeviceReading;
import io.segscope.probes.wire.DurationBuckets;
import io.segscope.probes.wire.GsoDetail;
import io.segscope.vocabulary.Cause;
import io.segscope.vocabulary.GsoType;
import io.segscope.vocabulary.Site;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
import java.util.Set;

/**
 * A synthetic host of {@code n} veth devices (n/2 pairs between two namespaces) as the agent's reader sees
 * it: the readings its probes would return (every device queued GSO super-packets, handed intact to the
 * driver; every tenth b-side device also segments in software because its gso_max_size, 16384, is below
 * that of a macvlan stacked on it, so it has the full histogram series and the recommender a finding),
 * the inventory, and the per-CPU map bytes of the counters (for the decode benchmark). The input of the
 * Java hot paths the JMH benchmarks time, checked by FleetTest.
 *
 * <p>Not shared with the agent tests' SyntheticHost, on purpose: both are built of the agent's types (readings,
 * inventory, snapshot), so one shared copy could live only in the agent's main code (test data in the product)
 * or in a module above the agent; testkit sits below the agent and cannot see them. This one is the bench's
 * fleet (its own shape: veth pairs, a tenth of them mismatched), that one the agent tests' host.
 */
final class Fleet {
  static final long ROOT = 4026531840L;
  static final long NS_A = 4026532500L;
  static final long NS_B = 4026532501L;
  static final Instant T0 = Instant.parse("2026-12-01T20:00:00Z");
  static final List<String> FEATURES = List.of("tx-scatter-gather", "tx-checksum-ip-generic",
      "tx-generic-segmentation", "tx-tcp-segmentation", "tx-tcp6-segmentation", "tx-udp-segmentation",
      "tx-gso-list", "rx-gro", "rx-gro-list");
  static final BuildInfo BUILD = new BuildInfo("0.1.0-SNAPSHOT", "0.26.0", "6.18.44");

  final int devices;
  final int cpus;
  final Inventory inventory;
  final List<ProbeAttachment> attachments = List.of(
      new ProbeAttachment("gso_tx", "tp_btf__net_dev_queue", "tracepoint", "tp_btf:net_dev_queue", "tp_btf", true,
          false, ""),
      new ProbeAttachment("gso_tx", "tp_btf__kfree_skb", "tracepoint", "tp_btf:kfree_skb", "tp_btf", true, false, ""),
      new ProbeAttachment("gso_tx", "tp_btf__consume_skb", "tracepoint", "tp_btf:consume_skb", "tp_btf", true, false,
          ""),
      new ProbeAttachment("gso_tx", "tp_btf__qdisc_dequeue", "tracepoint", "tp_btf:qdisc_dequeue", "tp_btf", true,
          true, ""),
      new ProbeAttachment("xdp_generic", "tp_btf__netif_receive_skb", "tracepoint", "tp_btf:netif_receive_skb",
          "tp_btf", false, true, "no generic XDP program"));

  Fleet(int devices, int cpus) {
    if (devices < 2 || devices % 2 != 0) {
      throw new IllegalArgumentException("build fleet: an even number of devices >= 2, got " + devices);
    }
    this.devices = devices;
    this.cpus = cpus;
    List<Device> inv = new ArrayList<>();
    for (int i = 0; i < devices; i++) {
      long ns = netns(i);
      int ifindex = ifindex(i);
      long gsoMax = software(i) ? 16384 : 65536;
      inv.add(new Device(ns, ns == NS_A ? "fleeta" : "fleetb", link(ifindex, name(i), "veth", ifindex, 0, gsoMax),
          features()));
      if (software(i)) {
        inv.add(new Device(ns, "fleetb", link(10000 + i, "mv" + i / 2, "macvlan", ifindex, -1, 65536), features()));
      }
    }
    this.inventory = new Inventory(List.of(ns(ROOT, ""), ns(NS_A, "fleeta"), ns(NS_B, "fleetb")), inv,
        Map.of(NS_A, Map.of(0, NS_B), NS_B, Map.of(0, NS_A)), T0);
  }

  /** Every tenth b-side device segments in software. */
  static boolean software(int i) {
    return i % 20 == 1;
  }

  static String name(int i) {
    return (i % 2 == 0 ? "fa" : "fb") + i / 2;
  }

  static long netns(int i) {
    return i % 2 == 0 ? NS_A : NS_B;
  }

  static int ifindex(int i) {
    return 2 + i / 2;
  }

  /** The probes' reading after {@code reads} reads' worth of traffic (counters grow with it). */
  ProbeReading reading(int reads) {
    List<DeviceReading> out = new ArrayList<>(devices);
    for (int i = 0; i < devices; i++) {
      out.add(reading(i, reads));
    }
    return new ProbeReading(reads, out, Map.of());
  }

  static DeviceReading reading(int i, int reads) {
    long sw = software(i) ? 1000L * reads : 0;
    long offloaded = 2000L * reads + i;
    Counts c = new Counts(offloaded + sw, (offloaded + sw) * 60000, 0, sw, sw * 45, sw * 63000, sw, 0, 0, 0, 0);
    Optional<GsoDetail> gso = Optional.empty();
    if (sw > 0) {
      long[] causes = new long[Cause.values().length];
      causes[Cause.GSO_MAX_SIZE.ordinal()] = sw;
      long[] sites = new long[Site.values().length];
      sites[Site.XMIT.ordinal()] = sw;
      long[] types = new long[GsoType.values().length];
      long[] segs = new long[GsoDetail.SEG_SLOTS];
      segs[7] = sw; // 45 segments: native schema-0 index 6, slot 7
      long[] dur = new long[DurationBuckets.SLOTS];
      dur[DurationBuckets.slotOf(9000)] = sw;
      gso = Optional.of(new GsoDetail(name(i), sw, sw * 9000, causes, sites, types, segs, dur));
    }
    return new DeviceReading(new DeviceId(0, netns(i), ifindex(i)), name(i), c, offloaded, gso, Optional.empty());
  }

  /** The per-CPU map value of every device's counters, as the kernel returns it (CPU after CPU). */
  byte[][] counterValues(int reads) {
    byte[][] out = new byte[devices][];
    for (int i = 0; i < devices; i++) {
      Counts c = reading(i, reads).counts();
      long[] v = {c.gsoQueued(), c.gsoQueuedBytes(), c.gsoTxDropped(), c.swSkbs(), c.swSegments(), c.swBytes(),
          c.swAfterQueue(), c.xdpCopied(), c.xdpCopiedBytes(), c.xdpPassed(), c.xdpPassedBytes()};
      ByteBuffer b = ByteBuffer.allocate(Counts.SIZE * cpus).order(ByteOrder.nativeOrder());
      for (int cpu = 0; cpu < cpus; cpu++) {
        for (int k = 0; k < v.length; k++) {
          // split the total over the CPUs; the last takes the remainder
          long share = cpu == cpus - 1 ? v[k] - (v[k] / cpus) * (cpus - 1) : v[k] / cpus;
          b.putLong(cpu * Counts.SIZE + 8 * k, share);
        }
      }
      out[i] = b.array();
    }
    return out;
  }

  /** The probe side of the agent, answering with {@code reading} (a read of the kernel maps is not timed). */
  static final class Probes implements ProbeSource {
    volatile ProbeReading reading;
    private final List<ProbeAttachment> attachments;

    Probes(ProbeReading reading, List<ProbeAttachment> attachments) {
      this.reading = reading;
      this.attachments = attachments;
    }

    @Override
    public ProbeReading read() {
      return reading;
    }

    @Override
    public List<ProbeAttachment> attachments() {
      return attachments;
    }

    @Override
    public Optional<ProbeMode> mode(MeasuredPath path) {
      return Optional.of(ProbeMode.TRACEPOINT);
    }

    @Override
    public void setGenericXdpPresent(boolean present) {}

    @Override
    public void setSegmentationSeen(boolean seen) {}

    @Override
    public void forget(DeviceId key) {}

    @Override
    public List<ProgramRunStats> programStats() {
      return List.of();
    }
  }

  /** A clock the benchmark moves one read interval per read. */
  static final class StepClock extends Clock {
    volatile Instant now = T0;

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

  /** The agent's reader over {@code probes}, with the default advice settings and no workloads. */
  TelemetryPipeline service(Probes probes, Clock clock, SelfMetrics self, RecordErrors errors) {
    Advisor advisor = new Advisor(Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofMinutes(2),
        AdviceContext.Thresholds.DEFAULT, false);
    Inventory inv = inventory;
    return new TelemetryPipeline(probes, new SelfCost(SelfCost.Mode.OFF, Duration.ofSeconds(1), Duration.ofSeconds(60),
        List::of), () -> inv, Workloads::none, advisor, BUILD, self, errors,
        DeviceSelection.Config.DEFAULT, VanishedDevices.GRACE, clock);
  }

  private static Netns ns(long inode, String name) {
    return new Netns(inode, name, Path.of(name.isEmpty() ? "/proc/1/ns/net" : "/run/netns/" + name), inode == ROOT);
  }

  /** @param linkNetnsId the nsid of {@code lower}'s namespace, -1 for the device's own */
  private static Link link(int ifindex, String name, String kind, int lower, int linkNetnsId, long gsoMaxSize) {
    XdpAttachment none = new XdpAttachment(XdpMode.NONE, OptionalInt.empty(), OptionalInt.empty(),
        OptionalInt.empty(), OptionalInt.empty());
    return new Link(ifindex, name, kind, "", 1500, OptionalInt.of(lower), OptionalInt.empty(),
        linkNetnsId < 0 ? OptionalInt.empty() : OptionalInt.of(linkNetnsId),
        OptionalLong.of(gsoMaxSize), OptionalLong.of(65535), OptionalLong.of(524280), OptionalLong.of(65535),
        OptionalLong.of(65536), OptionalLong.of(gsoMaxSize), OptionalLong.of(65536), none, "UP",
        OptionalLong.of(68), OptionalLong.of(65535), OptionalLong.of(1000), Link.IFF_UP | 0x10000,
        OptionalInt.empty());
  }

  private static Features features() {
    return new Features(Features.Source.ETHTOOL_NETLINK, FEATURES, Set.copyOf(FEATURES), Set.copyOf(FEATURES),
        Set.copyOf(FEATURES), Set.of(), "");
  }
}

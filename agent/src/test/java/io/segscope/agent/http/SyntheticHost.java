package io.segscope.agent.http;

import io.segscope.agent.advice.Recommendation;
import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Features;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.model.Link;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.inventory.model.XdpAttachment;
import io.segscope.agent.inventory.model.XdpMode;
import io.segscope.agent.telemetry.InventoryView;
import io.segscope.agent.telemetry.SelfCost;
import io.segscope.agent.telemetry.SnapshotAssembler;
import io.segscope.agent.workload.Workloads;
import io.segscope.device.DeviceId;
import io.segscope.exporters.model.BuildInfo;
import io.segscope.exporters.model.DeviceInfo;
import io.segscope.exporters.model.ProgramStats;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.probes.ProbeAttachment;
import io.segscope.probes.ProbeReading;
import io.segscope.probes.wire.Counts;
import io.segscope.probes.wire.DeviceReading;
import io.segscope.probes.wire.DurationBuckets;
import io.segscope.probes.wire.GsoDetail;
import io.segscope.vocabulary.Cause;
import io.segscope.vocabulary.GsoType;
import io.segscope.vocabulary.Site;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * (Copied from the benchmarks' Fleet, bench/.../jmh/Fleet.java, which the agent's tests cannot see.)
 * A synthetic host of {@code n} veth devices (n/2 pairs between two namespaces), with the readings the
 * probes would return for them and the inventory the agent would read:
 * the input of the hot paths the JMH benchmarks time. Every device carries GSO traffic (offloaded); every
 * tenth b-side device also segments in software because its gso_max_size (16384) is below that of a
 * macvlan stacked on it (the S2 shape; cause gso_max_size), so the recommender has findings to make. The
 * inventory holds those n/20 macvlans besides the n veths.
 */
public final class SyntheticHost {
  static final long ROOT = 4026531840L;
  static final long NS_A = 4026532500L;
  static final long NS_B = 4026532501L;
  static final Instant T0 = Instant.parse("2026-11-30T20:00:00Z");
  static final List<String> FEATURES = List.of("tx-scatter-gather", "tx-checksum-ip-generic",
      "tx-generic-segmentation", "tx-tcp-segmentation", "tx-tcp6-segmentation", "tx-tcp-ecn-segmentation",
      "tx-tcp-mangleid-segmentation", "tx-udp-segmentation", "tx-gso-list", "tx-scatter-gather-fraglist",
      "rx-gro", "rx-gro-list");

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
          "tp_btf", false, true, "on demand: not needed now"));
  final SelfCost.Reading programs = new SelfCost.Reading(List.of(
      new ProgramStats("tp_btf__net_dev_queue", 123456789, 4567890),
      new ProgramStats("tp_btf__consume_skb", 223456789, 9567890)), 12);
  final BuildInfo build = new BuildInfo("0.1.0-SNAPSHOT", "0.26.0", "6.18.44");

  public SyntheticHost(int devices, int cpus) {
    if (devices < 2 || devices % 2 != 0) {
      throw new IllegalArgumentException("build fleet: an even number of devices >= 2, got " + devices);
    }
    this.devices = devices;
    this.cpus = cpus;
    List<Device> inv = new ArrayList<>();
    for (int i = 0; i < devices; i++) {
      long ns = i % 2 == 0 ? NS_A : NS_B;
      int ifindex = 2 + i / 2;
      int peer = 2 + i / 2;
      long gsoMax = software(i) ? 16384 : 65536;
      inv.add(new Device(ns, ns == NS_A ? "fleeta" : "fleetb", link(ifindex, name(i), "veth", peer, 0, gsoMax),
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

  /** The probes' readings of every device, with every counter multiplied by {@code scale} (a later read). */
  public List<DeviceReading> readings(int scale) {
    List<DeviceReading> out = new ArrayList<>(devices);
    for (int i = 0; i < devices; i++) {
      long ns = i % 2 == 0 ? NS_A : NS_B;
      long sw = software(i) ? 1000L * scale : 0;
      long off = 2000L * scale + i;
      Counts c = new Counts(off + sw, (off + sw) * 60000, 0, sw, sw * 45, sw * 65000, sw, 0, 0, 0, 0);
      Optional<GsoDetail> gso = Optional.empty();
      if (sw > 0) {
        long[] causes = new long[Cause.values().length];
        causes[Cause.GSO_MAX_SIZE.ordinal()] = sw;
        long[] sites = new long[Site.values().length];
        sites[Site.XMIT.ordinal()] = sw;
        long[] types = new long[GsoType.values().length];
        types[GsoType.TCP4.ordinal()] = sw;
        long[] seg = new long[GsoDetail.SEG_SLOTS];
        seg[7] = sw; // (32, 64] segments
        long[] dur = new long[DurationBuckets.SLOTS];
        dur[DurationBuckets.slotOf(9000)] = sw;
        gso = Optional.of(new GsoDetail(name(i), sw, sw * 9000, causes, sites, types, seg, dur));
      }
      out.add(new DeviceReading(new DeviceId(0, ns, 2 + i / 2), name(i), c, off, gso, Optional.empty()));
    }
    return out;
  }

  /** The agent's snapshot of one read: GSO records named from the inventory, plus every device's info. */
  public TelemetrySnapshot snapshot(List<DeviceReading> counters, Instant at) {
    ProbeReading reading = new ProbeReading(0, counters, Map.of());
    Map<Long, String> names = new HashMap<>();
    TelemetrySnapshot base = new SnapshotAssembler(build).assemble(at, reading, attachments, programs,
        "tracepoint", "tracepoint", (key, kernelName) -> InventoryView.name(inventory, names, key, kernelName));
    List<DeviceInfo> infos = new ArrayList<>(devices);
    for (Device dev : inventory.devices()) {
      infos.add(InventoryView.info(inventory, dev));
    }
    return base.withDevicesAndRecommendations(infos, List.of());
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

  private int reads;

  /** Publishes the snapshot of a later read into {@code current} (every counter grown), as the pipeline would. */
  public synchronized void nextRead(AtomicReference<TelemetrySnapshot> current) {
    reads++;
    current.set(snapshot(readings(reads + 1), T0.plusSeconds(5L * reads)));
  }

  /**
   * A backend serving this host from {@code current} (see {@link #nextRead}); readiness says what
   * {@code notReady} holds.
   */
  public Backend backend(AtomicReference<TelemetrySnapshot> current,
      Supplier<List<String>> notReady) {
    current.set(snapshot(readings(1), T0));
    return new Backend() {
      @Override
      public Inventory inventory() {
        return inventory;
      }

      @Override
      public Workloads workloads() {
        return Workloads.none();
      }

      @Override
      public Collection<DeviceCost> costs() {
        return List.of();
      }

      @Override
      public List<Recommendation> recommendations() {
        return List.of();
      }

      @Override
      public List<String> notReadyReasons() {
        return notReady.get();
      }
    };
  }
}

package io.segscope.agent.http;

import io.segscope.agent.inventory.Device;
import io.segscope.agent.inventory.Features;
import io.segscope.agent.inventory.Inventory;
import io.segscope.agent.inventory.Link;
import io.segscope.agent.inventory.Netns;
import io.segscope.agent.inventory.XdpAttachment;
import io.segscope.agent.inventory.XdpMode;
import io.segscope.agent.telemetry.InventoryView;
import io.segscope.agent.telemetry.SnapshotAssembler;
import io.segscope.exporters.model.BuildInfo;
import io.segscope.exporters.model.DeviceInfo;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.probes.ProbeAttachment;
import io.segscope.probes.ProbeReading;
import io.segscope.probes.bcc.ProgramStats;
import io.segscope.probes.gso.DeviceCounters;
import io.segscope.probes.gso.DeviceStatsDecoder;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * (Copied from the benchmarks' Fleet, bench/.../jmh/Fleet.java, which the agent's tests cannot see.)
 * A synthetic host of {@code n} veth devices (n/2 pairs between two namespaces), with the raw per-CPU
 * {@code dev_stats} map entries the programs would hold for them and the inventory the agent would read:
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
  final byte[][] keys;
  final byte[][] values;
  final Inventory inventory;
  final List<ProbeAttachment> attachments = List.of(
      new ProbeAttachment("gso_tx", "tracepoint__net__net_dev_queue", "tracepoint", "tracepoint:net:net_dev_queue", true, ""),
      new ProbeAttachment("gso_tx", "tracepoint__qdisc__qdisc_dequeue", "tracepoint", "tracepoint:qdisc:qdisc_dequeue", true, ""),
      new ProbeAttachment("gso_tx", "tracepoint__skb__consume_skb", "tracepoint", "tracepoint:skb:consume_skb", true, ""),
      new ProbeAttachment("gso_tx", "tracepoint__net__net_dev_start_xmit", "tracepoint", "tracepoint:net:net_dev_start_xmit", true, ""),
      new ProbeAttachment("xdp_generic", "tracepoint__net__netif_receive_skb", "tracepoint", "tracepoint:net:netif_receive_skb", true, ""));
  final List<ProgramStats> programs = List.of(new ProgramStats("tracepoint__net__net_dev_queue", 10, 123456789, 4567890),
      new ProgramStats("tracepoint__skb__consume_skb", 12, 223456789, 9567890));
  final BuildInfo build = new BuildInfo("0.1.0-SNAPSHOT", "0.26.0", "6.18.44");

  public SyntheticHost(int devices, int cpus) {
    if (devices < 2 || devices % 2 != 0) {
      throw new IllegalArgumentException("build fleet: an even number of devices >= 2, got " + devices);
    }
    this.devices = devices;
    this.cpus = cpus;
    this.keys = new byte[devices][];
    this.values = new byte[devices][];
    List<Device> inv = new ArrayList<>();
    for (int i = 0; i < devices; i++) {
      long ns = i % 2 == 0 ? NS_A : NS_B;
      int ifindex = 2 + i / 2;
      keys[i] = key(ns, ifindex);
      values[i] = value(i, name(i), 1);
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

  /** The map entries again, with every counter multiplied by {@code scale} (a later read). */
  public byte[][] valuesAt(int scale) {
    byte[][] out = new byte[devices][];
    for (int i = 0; i < devices; i++) {
      out[i] = value(i, name(i), scale);
    }
    return out;
  }

  public List<DeviceCounters> decode(byte[][] vals) {
    DeviceStatsDecoder d = decoder();
    List<DeviceCounters> out = new ArrayList<>(devices);
    for (int i = 0; i < devices; i++) {
      out.add(d.decode(keys[i], vals[i]));
    }
    return out;
  }

  DeviceStatsDecoder decoder() {
    return new DeviceStatsDecoder(cpus, DeviceStatsDecoder.KEY_SIZE, DeviceStatsDecoder.LEAF_SIZE);
  }

  /** The agent's snapshot of one read: GSO records named from the inventory, plus every device's info. */
  public TelemetrySnapshot snapshot(List<DeviceCounters> counters, Instant at) {
    ProbeReading reading = new ProbeReading(0, counters, Map.of());
    Map<Long, String> names = new HashMap<>();
    TelemetrySnapshot base = new SnapshotAssembler(build).assemble(at, reading, attachments, programs,
        "tracepoint", "tracepoint", (netns, ifindex, kernelName) ->
            InventoryView.name(inventory, names, netns, ifindex, kernelName));
    List<DeviceInfo> infos = new ArrayList<>(devices);
    for (Device dev : inventory.devices()) {
      infos.add(InventoryView.info(inventory, dev));
    }
    return base.withDevicesAndRecommendations(infos, List.of());
  }

  private static byte[] key(long netns, int ifindex) {
    return ByteBuffer.allocate(DeviceStatsDecoder.KEY_SIZE).order(ByteOrder.nativeOrder())
        .putInt((int) netns).putInt(ifindex).array();
  }

  /** Per-CPU values as the kernel returns them: each CPU's struct dev_stats, 8-byte aligned. */
  private byte[] value(int i, String name, int scale) {
    int stride = (DeviceStatsDecoder.LEAF_SIZE + 7) & ~7;
    ByteBuffer b = ByteBuffer.allocate(stride * cpus).order(ByteOrder.nativeOrder());
    for (int c = 0; c < cpus; c++) {
      int base = c * stride;
      byte[] n = name.getBytes(StandardCharsets.UTF_8);
      b.position(base);
      b.put(n);
      long sw = software(i) ? 1000L * scale : 0;
      long[] counters = new long[(DeviceStatsDecoder.LEAF_SIZE - 16) / 8];
      counters[0] = sw; // sw_skbs
      counters[1] = sw * 45; // sw_segs
      counters[2] = sw * 65000; // sw_bytes
      counters[3] = sw; // sw_timed
      counters[4] = sw * 9000; // sw_ns
      counters[5] = 2000L * scale + i; // off_skbs
      counters[6] = counters[5] * 60000; // off_bytes
      counters[7 + 1] = sw; // cause gso_max_size
      int dur = 7 + DeviceStatsDecoder.CAUSES;
      counters[dur + 14] = sw; // [8192, 16383] ns
      counters[dur + DeviceStatsDecoder.DUR_SLOTS + 6] = sw; // [32, 63] segments
      for (int k = 0; k < counters.length; k++) {
        b.putLong(base + 16 + 8 * k, counters[k]);
      }
    }
    return b.array();
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

  /**
   * A backend serving this host: each {@link Backend#refresh()} publishes the snapshot of a later read
   * (every counter grown), as the real map reader would; readiness says what {@code notReady} holds.
   */
  public Backend backend(java.util.concurrent.atomic.AtomicReference<TelemetrySnapshot> current,
      java.util.function.Supplier<List<String>> notReady) {
    int[] reads = {0};
    current.set(snapshot(decode(values), T0));
    return new Backend() {
      @Override
      public void refresh() {
        reads[0]++;
        current.set(snapshot(decode(valuesAt(reads[0] + 1)), T0.plusSeconds(5L * reads[0])));
      }

      @Override
      public Inventory inventory() {
        return inventory;
      }

      @Override
      public java.util.Collection<io.segscope.agent.cost.DeviceCost> costs() {
        return List.of();
      }

      @Override
      public List<io.segscope.agent.advice.Recommendation> recommendations() {
        return List.of();
      }

      @Override
      public List<String> notReadyReasons() {
        return notReady.get();
      }
    };
  }
}

package io.segscope.agent.inventory.model;

import io.segscope.device.DeviceId;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * An immutable snapshot of every device in every network namespace, with the namespaces' nsid
 * maps needed to follow IFLA_LINK across namespaces, their routing and qdiscs, and the device graph
 * built from all of it ({@link #graph()}).
 */
public final class Inventory {
  private final List<Netns> namespaces;
  private final List<Device> devices;
  private final Map<Long, Map<Integer, Long>> nsids;
  /** By {@link DeviceId#withoutCookie()}: a snapshot holds one namespace per inode. */
  private final Map<DeviceId, Device> byId = new HashMap<>();
  private final long rootNetns;
  private final Instant readAt;
  private final Map<Long, Routing> routing;
  private final Map<Long, List<Qdisc>> qdiscs;
  private volatile DeviceGraph graph;

  /**
   * @param namespaces the namespaces read
   * @param devices their devices
   * @param nsids per namespace inode: nsid → inode of the namespace it designates there
   * @param readAt when the snapshot was completed
   */
  public Inventory(List<Netns> namespaces, List<Device> devices, Map<Long, Map<Integer, Long>> nsids,
      Instant readAt) {
    this(namespaces, devices, nsids, Map.of(), Map.of(), readAt);
  }

  /**
   * @param namespaces the namespaces read
   * @param devices their devices
   * @param nsids per namespace inode: nsid → inode of the namespace it designates there
   * @param routing per namespace inode: its routes and forwarding (absent: not read)
   * @param qdiscs per namespace inode: its qdiscs
   * @param readAt when the snapshot was completed
   */
  public Inventory(List<Netns> namespaces, List<Device> devices, Map<Long, Map<Integer, Long>> nsids,
      Map<Long, Routing> routing, Map<Long, List<Qdisc>> qdiscs, Instant readAt) {
    List<Netns> ns = new ArrayList<>(namespaces);
    ns.sort(Comparator.comparing((Netns n) -> !n.root()).thenComparingLong(Netns::inode));
    this.namespaces = List.copyOf(ns);
    List<Device> sorted = new ArrayList<>(devices);
    sorted.sort(Comparator.comparing(Device::id));
    this.devices = List.copyOf(sorted);
    Map<Long, Map<Integer, Long>> copy = new HashMap<>();
    nsids.forEach((k, v) -> copy.put(k, Map.copyOf(v)));
    this.nsids = Map.copyOf(copy);
    this.readAt = readAt;
    this.routing = Map.copyOf(routing);
    Map<Long, List<Qdisc>> q = new HashMap<>();
    qdiscs.forEach((k, v) -> q.put(k, List.copyOf(v)));
    this.qdiscs = Map.copyOf(q);
    for (Device d : this.devices) {
      byId.put(d.id().withoutCookie(), d);
    }
    this.rootNetns = this.namespaces.stream().filter(Netns::root).mapToLong(Netns::inode).findFirst()
        .orElse(-1);
  }

  public static Inventory empty() {
    return new Inventory(List.of(), List.of(), Map.of(), Instant.EPOCH);
  }

  /** Namespaces, root first, then by inode. */
  public List<Netns> namespaces() {
    return namespaces;
  }

  /** Devices ordered by namespace inode, then ifindex. */
  public List<Device> devices() {
    return devices;
  }

  /** The namespace of that inode, if it was read. */
  public Optional<Netns> namespace(long inode) {
    return namespaces.stream().filter(n -> n.inode() == inode).findFirst();
  }

  /** The root namespace's inode, -1 when it was not read. */
  public long rootNetns() {
    return rootNetns;
  }

  public Instant readAt() {
    return readAt;
  }

  /** nsid → namespace inode, as namespace {@code netns} numbers the others it knows. */
  public Map<Integer, Long> nsids(long netns) {
    return nsids.getOrDefault(netns, Map.of());
  }

  /**
   * The device {@code id} designates: the one of its inode and ifindex, unless both it and {@code id}
   * know their namespace's cookie and the cookies differ (another namespace had the inode).
   */
  public Optional<Device> device(DeviceId id) {
    return Optional.ofNullable(byId.get(id.withoutCookie())).filter(d -> d.id().sameDevice(id));
  }

  public Optional<Device> device(long netns, int ifindex) {
    return device(DeviceId.of(netns, ifindex));
  }

  public Optional<Device> device(long netns, String name) {
    return devices.stream().filter(d -> d.netns() == netns && d.name().equals(name)).findFirst();
  }

  /**
   * The namespace of a device's IFLA_LINK (or vxlan lower): its own namespace without
   * IFLA_LINK_NETNSID, the namespace the nsid designates with it, empty when the nsid is unknown.
   */
  public OptionalLong linkNetns(Device d) {
    if (d.link().linkNetnsId().isEmpty()) {
      return OptionalLong.of(d.netns());
    }
    Long target = nsids(d.netns()).get(d.link().linkNetnsId().getAsInt());
    return target == null ? OptionalLong.empty() : OptionalLong.of(target);
  }

  /** The device IFLA_LINK designates (a veth's peer, a macvlan's lower, ...), if it was found. */
  public Optional<Device> linkTarget(Device d) {
    if (d.link().lower().isEmpty()) {
      return Optional.empty();
    }
    OptionalLong ns = linkNetns(d);
    return ns.isEmpty() ? Optional.empty() : device(ns.getAsLong(), d.link().lower().getAsInt());
  }

  public Optional<Device> master(Device d) {
    return d.link().master().isEmpty() ? Optional.empty()
        : device(d.netns(), d.link().master().getAsInt());
  }

  /** Devices whose master is {@code master}. */
  public List<Device> ports(Device master) {
    return devices.stream().filter(d -> d.netns() == master.netns()
        && d.link().master().isPresent() && d.link().master().getAsInt() == master.ifindex()).toList();
  }

  /** Every namespace's routing that was read, by namespace inode. */
  public Map<Long, Routing> routing() {
    return routing;
  }

  /** Every namespace's qdiscs, by namespace inode. */
  public Map<Long, List<Qdisc>> qdiscs() {
    return qdiscs;
  }

  /** This snapshot with its devices replaced (namespaces, nsids, routing and qdiscs kept). */
  public Inventory withDevices(List<Device> replacement) {
    Map<Long, Map<Integer, Long>> n = new HashMap<>();
    namespaces.forEach(x -> n.put(x.inode(), nsids(x.inode())));
    nsids.forEach(n::putIfAbsent);
    return new Inventory(namespaces, replacement, n, routing, qdiscs, readAt);
  }

  /** A namespace's routing, {@link Routing#UNREAD} when it was not read. */
  public Routing routing(long netns) {
    return routing.getOrDefault(netns, Routing.UNREAD);
  }

  /** The qdiscs of a device (root first, then the others in dump order). */
  public List<Qdisc> qdiscs(Device d) {
    List<Qdisc> all = qdiscs.getOrDefault(d.netns(), List.of());
    List<Qdisc> out = new ArrayList<>();
    all.stream().filter(q -> q.ifindex() == d.ifindex() && q.root()).forEach(out::add);
    all.stream().filter(q -> q.ifindex() == d.ifindex() && !q.root()).forEach(out::add);
    return out;
  }

  /** The device graph of this snapshot (built once, on first use); see {@link DeviceGraph}. */
  public DeviceGraph graph() {
    DeviceGraph g = graph;
    if (g == null) {
      g = new DeviceGraph(this);
      graph = g;
    }
    return g;
  }

  /** The chain around {@code device}: {@code graph().chain(device)}; see docs/inventory.md. */
  public Chain chain(Device device) {
    return graph().chain(device);
  }
}

package io.segscope.agent.advice;

import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.DeviceGraph;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.device.DeviceId;
import io.segscope.exporters.model.DeviceRef;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the rules know besides one device's cost: the device inventory (settings, features, routing,
 * qdiscs) and its one device graph, every device's cost in the same window, the thresholds, and what
 * the running kernel supports.
 *
 * @param xdpFragsCopy the kernel copies frags-aware generic-XDP skbs into a page_pool instead of
 *     linearizing them (6.9+; detected from BTF)
 */
public record AdviceContext(Inventory inventory, Thresholds thresholds, boolean xdpFragsCopy,
    Map<DeviceId, DeviceCost> costs) {

  /**
   * How much evidence a rule needs.
   *
   * @param minSoftwareGsoPerSec software-segmented super-packets per second on a device before the
   *     GSO rules speak
   * @param minXdpCopiesPerSec generic-XDP copies per second before the XDP rule speaks
   * @param minOffloadedPerSec super-packets per second a device must carry before BIG TCP advice
   * @param minCauseShare share of a device's software segmentations a cause must explain
   */
  public record Thresholds(double minSoftwareGsoPerSec, double minXdpCopiesPerSec, double minOffloadedPerSec,
      double minCauseShare) {
    public static final Thresholds DEFAULT = new Thresholds(20, 100, 100, 0.5);
  }

  public AdviceContext {
    costs = Map.copyOf(costs);
  }

  /** A context without the other devices' costs (every source counts as unmeasured). */
  public AdviceContext(Inventory inventory, Thresholds thresholds, boolean xdpFragsCopy) {
    this(inventory, thresholds, xdpFragsCopy, Map.of());
  }

  /** The context of one window's costs. */
  public static AdviceContext of(Inventory inventory, Thresholds thresholds, boolean xdpFragsCopy,
      Collection<DeviceCost> costs) {
    Map<DeviceId, DeviceCost> byKey = new HashMap<>();
    costs.forEach(c -> byKey.put(c.id().withoutCookie(), c));
    return new AdviceContext(inventory, thresholds, xdpFragsCopy, byKey);
  }

  /** A measured device found in the inventory, with its namespace. */
  record Located(Device device, Netns netns) {}

  /**
   * Where a cause rule starts: the device segments enough super-packets in software, at least
   * {@code minCauseShare} of them for the rule's cause ({@code causeShare}), and the inventory has it.
   */
  Optional<Located> locateSegmenting(DeviceCost cost, double causeShare) {
    if (cost.swSkbsPerSec() < thresholds().minSoftwareGsoPerSec() || causeShare < thresholds().minCauseShare()) {
      return Optional.empty();
    }
    return locate(cost);
  }

  /** The inventory's device and namespace for a cost's (netns, ifindex); empty if either is unknown. */
  Optional<Located> locate(DeviceCost cost) {
    Optional<Device> d = inventory.device(cost.id());
    Optional<Netns> ns = netns(cost.device().netns());
    return d.isPresent() && ns.isPresent() ? Optional.of(new Located(d.get(), ns.get())) : Optional.empty();
  }

  Optional<Netns> netns(long inode) {
    return inventory.namespace(inode);
  }

  DeviceGraph graph() {
    return inventory.graph();
  }

  /** GSO super-packets per second that reached the device's transmit path in this window (0 if unmeasured). */
  double gsoTraffic(DeviceId key) {
    DeviceCost c = costs.get(key.withoutCookie());
    return c == null ? 0 : c.gsoSkbsPerSec();
  }

  /**
   * The sources of {@code d} a command should change: among the graph's {@link DeviceGraph.Origin#LOCAL}
   * sources, those that carried GSO traffic in this window; when none did (or the costs are not
   * known), those nothing else on the host feeds ({@link DeviceGraph.Source#leaf()}) that are not
   * bridges (a bridge transmits only for its own host stack). At most {@code max}.
   */
  List<DeviceGraph.Source> localSources(Device d, int max) {
    List<DeviceGraph.Source> local = graph().sources(d.id()).stream()
        .filter(s -> s.origin() == DeviceGraph.Origin.LOCAL).toList();
    List<DeviceGraph.Source> measured = local.stream().filter(s -> gsoTraffic(s.device().id()) > 0).toList();
    List<DeviceGraph.Source> chosen = !measured.isEmpty() ? measured : local.stream()
        .filter(s -> s.leaf() && !s.device().kind().equals("bridge") && !s.device().kind().equals("openvswitch"))
        .toList();
    return chosen.size() > max ? chosen.subList(0, max) : chosen;
  }

  /** The exporters' name of a device (the one identity the API, metrics and findings share). */
  static DeviceRef ref(Device d) {
    return new DeviceRef(d.id(), d.netnsName(), d.name());
  }

  /** A device as a person finds it: {@code NETNS_NAME/DEVICE}, or {@code netns:INODE/DEVICE} when unnamed. */
  public static String label(DeviceRef d) {
    return (d.netnsName().isEmpty() ? "netns:" + d.netns() : d.netnsName()) + "/" + d.device();
  }

  static String label(Device d) {
    return label(ref(d));
  }
}

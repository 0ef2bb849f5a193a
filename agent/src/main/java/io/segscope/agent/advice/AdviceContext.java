package io.segscope.agent.advice;

import io.segscope.agent.inventory.Device;
import io.segscope.agent.inventory.Inventory;
import io.segscope.agent.inventory.Netns;
import java.util.Optional;

/**
 * What the rules know besides the cost: the device inventory (settings, features, chains), the
 * thresholds, and what the running kernel supports.
 *
 * @param xdpFragsCopy the kernel copies frags-aware generic-XDP skbs into a page_pool instead of
 *     linearizing them (6.9+; detected from BTF)
 */
public record AdviceContext(Inventory inventory, Thresholds thresholds, boolean xdpFragsCopy) {

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

  /** A measured device found in the inventory, with its namespace. */
  record Located(Device device, Netns netns) {}

  /** The inventory's device and namespace for a cost's (netns, ifindex); empty if either is unknown. */
  Optional<Located> locate(io.segscope.agent.cost.DeviceCost cost) {
    Optional<Device> d = inventory.device(cost.device().netns(), cost.device().ifindex());
    Optional<Netns> ns = netns(cost.device().netns());
    return d.isPresent() && ns.isPresent() ? Optional.of(new Located(d.get(), ns.get())) : Optional.empty();
  }

  Optional<Netns> netns(long inode) {
    return inventory.namespaces().stream().filter(n -> n.inode() == inode).findFirst();
  }

  static DeviceName name(Device d) {
    return new DeviceName(d.netns(), d.netnsName(), d.name(), d.ifindex());
  }
}

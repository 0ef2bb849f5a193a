package io.segscope.agent.workload;

import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.device.DeviceId;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Which workload each device serves: the one of its own namespace, unless the device's link (a
 * veth's peer, a macvlan's lower device) lives in a namespace whose workload ranks higher
 * ({@link WorkloadKind#outranks}) and is a pod, a container or a service. So a pod's eth0 and the host
 * side of its veth (in the host's or a node namespace) both serve the pod, a physical NIC serves the
 * host, and a host-side veth whose peer namespace only has a plain process in it stays the host's (the
 * process names its own namespace's devices, not the host's: any process can be in such a namespace).
 * Pure.
 */
public final class DeviceWorkloads {
  /** A device's workload and the namespace it comes from. */
  public record Served(long netns, Workload workload, boolean viaLink) {}

  private final Inventory inventory;
  private final Map<Long, Workload> byNetns = new HashMap<>();

  public DeviceWorkloads(Inventory inventory, Workloads workloads) {
    this.inventory = inventory;
    for (Netns n : inventory.namespaces()) {
      byNetns.put(n.inode(), workloads.of(n));
    }
  }

  /** The workload of namespace {@code netns} (unknown for a namespace the inventory lacks). */
  public Workload ofNetns(long netns) {
    return byNetns.getOrDefault(netns, Workload.unknown());
  }

  public Served served(Device d) {
    Workload own = ofNetns(d.netns());
    if (d.link().lower().isPresent()) {
      OptionalLong peerNs = inventory.linkNetns(d);
      if (peerNs.isPresent() && peerNs.getAsLong() != d.netns()) {
        Workload peer = ofNetns(peerNs.getAsLong());
        if (peer.kind().outranks(WorkloadKind.PROCESS) && peer.kind().outranks(own.kind())) {
          return new Served(peerNs.getAsLong(), peer, true);
        }
      }
    }
    return new Served(d.netns(), own, false);
  }

  /** The workload a device serves; its namespace's when the device is not in the inventory. */
  public Served served(DeviceId id) {
    return inventory.device(id).map(this::served)
        .orElseGet(() -> new Served(id.netns(), ofNetns(id.netns()), false));
  }
}

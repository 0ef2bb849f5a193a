package io.segscope.agent.advice;

import io.segscope.agent.inventory.model.Device;
import java.util.Map;
import java.util.Optional;

/**
 * Device kinds and drivers for which fleets switch offloads off on purpose, to work around kernel,
 * driver or hypervisor bugs: advice to turn them on must say so.
 */
final class DeliberateOffloads {
  private DeliberateOffloads() {}

  private static final Map<String, String> KINDS = Map.of(
      "vxlan", "Calico (vxlan.calico) and Flannel (flannel.1) turn tx checksum offload off on their vxlan devices "
          + "on purpose, to avoid a kernel/NIC bug that corrupted the checksums of encapsulated packets",
      "geneve", "Kube-OVN and OVN turn tx checksum/segmentation offload off on geneve devices (genev_sys_6081) "
          + "on purpose where the NIC mishandles encapsulated packets",
      "bridge", "KubeVirt and some CNI plugins turn tx checksum offload off on the pod bridge on purpose, so that "
          + "guests and pods behind it get correct checksums");
  private static final Map<String, String> DRIVERS = Map.of(
      "vmxnet3", "VMware vmxnet3 has had TSO and checksum-offload bugs with encapsulated (vxlan/geneve) traffic; "
          + "fleets turn these offloads off on purpose",
      "hv_netvsc", "Hyper-V netvsc has had segmentation-offload bugs with encapsulated traffic; fleets turn "
          + "offloads off on purpose",
      "xen-netfront", "Xen netfront guests often run with offloads off on purpose (checksum bugs in older "
          + "backends)");

  /** Why this device's offloads may be off on purpose, if its kind or driver is a known case. */
  static Optional<String> reason(Device d) {
    String k = KINDS.get(d.kind());
    if (k != null) {
      return Optional.of(k);
    }
    return Optional.ofNullable(DRIVERS.get(d.driver()));
  }

  /** The risk sentence for turning an offload on at {@code d}. */
  static String risk(Device d) {
    return reason(d).map(r -> "this device is a " + (DRIVERS.containsKey(d.driver()) && !KINDS.containsKey(d.kind())
        ? d.driver() + " NIC" : d.kind() + " device") + ": " + r + "; if that is why it is off here, "
        + "accept this finding (--advice-accept) instead of running the command")
        .orElse("whoever turned the offload off may have had a reason (a driver bug, a capture tool that wants "
            + "wire-size packets): check before turning it on");
  }
}

package io.segscope.agent.telemetry;

import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Features;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.model.Link;
import io.segscope.agent.inventory.model.LinkLimit;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.device.DeviceId;
import io.segscope.exporters.model.DeviceInfo;
import io.segscope.exporters.model.DeviceLimit;
import io.segscope.exporters.model.DeviceRef;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/** Translates the device inventory into the exporters' model, and names probe keys. Pure. */
public final class InventoryView {

  /**
   * The offload features exported as {@code segscope_device_feature_active}: segmentation, checksum,
   * scatter-gather and GRO (docs/metrics.md). Others stay in /api/v1/devices.
   */
  public static final List<String> CURATED_FEATURES = List.of(
      "tx-scatter-gather", "tx-scatter-gather-fraglist",
      "tx-checksum-ipv4", "tx-checksum-ip-generic", "tx-checksum-ipv6",
      "tx-generic-segmentation", "tx-tcp-segmentation", "tx-tcp-ecn-segmentation",
      "tx-tcp-mangleid-segmentation", "tx-tcp6-segmentation", "tx-udp-segmentation", "tx-gso-list",
      "tx-gso-partial", "tx-udp_tnl-segmentation",
      "rx-gro", "rx-gro-hw", "rx-gro-list", "rx-udp-gro-forwarding");

  private InventoryView() {}

  /**
   * Names a device the probes counted from the inventory record of the same namespace; the kernel's
   * name when the inventory lacks it.
   *
   * <p>Both sides identify a device by {@link DeviceId} (netns cookie, netns inode, ifindex); the
   * inventory holds one namespace per inode, with the cookie it read for it. An inode is reused once its namespace is
   * destroyed, so the inventory's namespace under {@code key}'s inode may be another namespace than the
   * key's: when both cookies are known and differ, nothing of that record names the device (not its
   * device name, not its namespace name, not the /run/netns name of that inode, which is the same
   * namespace's): it gets the kernel's name and no namespace name. Where either cookie is unknown (0:
   * the inventory has not read the namespace's cookie yet, or the kernel has no namespace cookies), the
   * namespace is matched by inode alone, as it was before cookies: for the moment an inode is reused
   * before the inventory has read the new namespace's cookie, a device can be named from the other
   * namespace's record.
   *
   * @param netnsNames namespace names under /run/netns by inode (the fallback when the inventory's
   *     device has no namespace name)
   */
  public static DeviceRef name(Inventory inv, Map<Long, String> netnsNames, DeviceId key, String kernelName) {
    if (!sameNamespace(inv, key)) {
      return new DeviceRef(key, "", kernelName);
    }
    Optional<Device> d = inv.device(key);
    String nsName = d.map(Device::netnsName).filter(n -> !n.isEmpty())
        .orElse(netnsNames.getOrDefault(key.netns(), ""));
    return new DeviceRef(key, nsName, d.map(Device::name).orElse(kernelName));
  }

  /**
   * Whether the inventory's namespace under the key's inode is the key's namespace: the cookies are
   * equal, or either is unknown (0), or the inventory has no namespace under that inode.
   */
  private static boolean sameNamespace(Inventory inv, DeviceId key) {
    Optional<Netns> ns = inv.namespace(key.netns());
    return ns.isEmpty() || key.sameNamespace(ns.get().cookie());
  }

  /** Each limit's exported family: the {@link DeviceLimit} of the same name. */
  static final Map<LinkLimit, DeviceLimit> EXPORTED_LIMITS = exportedLimits();

  private static Map<LinkLimit, DeviceLimit> exportedLimits() {
    Map<LinkLimit, DeviceLimit> m = new EnumMap<>(LinkLimit.class);
    for (LinkLimit k : LinkLimit.values()) {
      m.put(k, DeviceLimit.valueOf(k.name()));
    }
    return m;
  }

  public static DeviceInfo info(Inventory inv, Device d) {
    Link l = d.link();
    String master = inv.master(d).map(Device::name).orElse("");
    String link = "";
    String linkNetns = "";
    if (l.lower().isPresent()) {
      Optional<Device> t = inv.linkTarget(d);
      link = t.map(Device::name).orElse("ifindex:" + l.lower().getAsInt());
      OptionalLong ns = inv.linkNetns(d);
      if (ns.isPresent() && ns.getAsLong() != d.netns()) {
        linkNetns = Long.toString(ns.getAsLong());
      }
    }
    Map<DeviceLimit, Long> limits = new EnumMap<>(DeviceLimit.class);
    for (LinkLimit k : LinkLimit.values()) {
      OptionalLong v = k.of(l);
      if (v.isPresent() && v.getAsLong() >= 0) {
        limits.put(EXPORTED_LIMITS.get(k), v.getAsLong());
      }
    }
    Map<String, DeviceInfo.Feature> features = new LinkedHashMap<>();
    Features f = d.features();
    if (f.available()) {
      for (String name : CURATED_FEATURES) {
        if (f.known().contains(name)) {
          features.put(name, new DeviceInfo.Feature(f.isActive(name), f.isFixed(name)));
        }
      }
    }
    DeviceRef ref = new DeviceRef(d.id(), d.netnsName(), d.name());
    return new DeviceInfo(ref, d.kind(), master, link, linkNetns, l.xdp().mode().label(), limits, features);
  }

}

package io.segscope.exporters.model;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * One network device's settings from the inventory.
 *
 * @param device namespace and name
 * @param kind link kind ("veth", "bridge", "macvlan", ... ; "" for a physical NIC)
 * @param master the bridge/bond it is a port of ("" if none)
 * @param link its IFLA_LINK device: a veth's peer or a stacked device's lower ("" if none)
 * @param linkNetns the namespace inode of {@code link} ("" when the same namespace or unknown)
 * @param xdpMode none, drv, generic, hw, multi or unreported
 * @param limits only the limits the kernel reported: an absent limit is absent, never 0
 * @param features offload features by ethtool name (a curated set)
 */
public record DeviceInfo(DeviceRef device, String kind, String master, String link, String linkNetns,
    String xdpMode, Map<DeviceLimit, Long> limits, Map<String, Feature> features) {

  /** One offload feature: on or off, and whether the user can change it ("[fixed]" in ethtool -k). */
  public record Feature(boolean active, boolean fixed) {}

  public DeviceInfo {
    Checks.notNull(device, "DeviceInfo.device");
    Checks.notNull(kind, "DeviceInfo.kind");
    Checks.notNull(master, "DeviceInfo.master");
    Checks.notNull(link, "DeviceInfo.link");
    Checks.notNull(linkNetns, "DeviceInfo.linkNetns");
    Checks.notNull(xdpMode, "DeviceInfo.xdpMode");
    EnumMap<DeviceLimit, Long> l = new EnumMap<>(DeviceLimit.class);
    Checks.notNull(limits, "DeviceInfo.limits").forEach((k, v) -> {
      if (v == null || v < 0) {
        throw new IllegalArgumentException("DeviceInfo.limits." + k + " must be >= 0, got " + v);
      }
      l.put(k, v);
    });
    limits = Collections.unmodifiableMap(l);
    features = Collections.unmodifiableMap(new TreeMap<>(Checks.notNull(features, "DeviceInfo.features")));
  }
}

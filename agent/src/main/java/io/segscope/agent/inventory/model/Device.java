package io.segscope.agent.inventory.model;

import io.segscope.device.DeviceId;
import java.util.Objects;
/**
 * One device of the inventory.
 *
 * @param netns the inode of its network namespace (the probes' netns label)
 * @param netnsName the namespace's name under /run/netns, "" when it has none
 * @param link what rtnetlink reports about it
 * @param features its offload features ({@link Features#unavailable} when unreadable)
 * @param driver its driver's name (e.g. {@code vmxnet3}) for a physical device of the root namespace,
 *     read from sysfs; "" when unknown or not applicable (virtual devices, other namespaces)
 * @param netnsCookie its namespace's cookie ({@link Netns#cookie()}), 0 when not known
 */
public record Device(long netns, String netnsName, Link link, Features features, String driver, long netnsCookie) {

  public Device {
    Objects.requireNonNull(driver, "driver");
  }

  /** A device whose namespace's cookie is not known. */
  public Device(long netns, String netnsName, Link link, Features features, String driver) {
    this(netns, netnsName, link, features, driver, DeviceId.UNKNOWN_COOKIE);
  }

  /** A device whose driver and namespace cookie are not known. */
  public Device(long netns, String netnsName, Link link, Features features) {
    this(netns, netnsName, link, features, "");
  }

  /** Which device this is: its namespace's cookie where known, inode and ifindex. */
  public DeviceId id() {
    return new DeviceId(netnsCookie, netns, link.ifindex());
  }

  public String name() {
    return link.name();
  }

  public int ifindex() {
    return link.ifindex();
  }

  public String kind() {
    return link.kind();
  }
}

package io.segscope.agent.inventory;

/**
 * One device of the inventory.
 *
 * @param netns the inode of its network namespace (the probes' netns label)
 * @param netnsName the namespace's name under /run/netns, "" when it has none
 * @param link what rtnetlink reports about it
 * @param features its offload features ({@link Features#unavailable} when unreadable)
 * @param driver its driver's name (e.g. {@code vmxnet3}) for a physical device of the root namespace,
 *     read from sysfs; "" when unknown or not applicable (virtual devices, other namespaces)
 */
public record Device(long netns, String netnsName, Link link, Features features, String driver) {

  public Device {
    java.util.Objects.requireNonNull(driver, "driver");
  }

  /** A device whose driver is not known. */
  public Device(long netns, String netnsName, Link link, Features features) {
    this(netns, netnsName, link, features, "");
  }

  public DeviceKey key() {
    return new DeviceKey(netns, link.ifindex());
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

package io.segscope.agent.inventory;

/**
 * One device of the inventory.
 *
 * @param netns the inode of its network namespace (the probes' netns label)
 * @param netnsName the namespace's name under /run/netns, "" when it has none
 * @param link what rtnetlink reports about it
 * @param features its offload features ({@link Features#unavailable} when unreadable)
 */
public record Device(long netns, String netnsName, Link link, Features features) {

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

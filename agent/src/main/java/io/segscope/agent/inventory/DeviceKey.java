package io.segscope.agent.inventory;

/** A device's identity on the host: its namespace inode and its ifindex there. */
public record DeviceKey(long netns, int ifindex) implements Comparable<DeviceKey> {
  @Override
  public int compareTo(DeviceKey o) {
    int c = Long.compare(netns, o.netns);
    return c != 0 ? c : Integer.compare(ifindex, o.ifindex);
  }

  @Override
  public String toString() {
    return netns + "/" + ifindex;
  }
}

package io.segscope.agent.advice;

/**
 * A device as a person finds it: its namespace (inode and name, "" when unnamed), its name, and its
 * ifindex (kept so a recommendation still names its device after the device is gone).
 */
public record DeviceName(long netns, String netnsName, String device, int ifindex) {
  @Override
  public String toString() {
    return (netnsName.isEmpty() ? "netns:" + netns : netnsName) + "/" + device;
  }
}

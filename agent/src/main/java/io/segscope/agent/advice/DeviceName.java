package io.segscope.agent.advice;

/** A device as a person finds it: its namespace (inode and name, "" when unnamed) and its name. */
public record DeviceName(long netns, String netnsName, String device) {
  @Override
  public String toString() {
    return (netnsName.isEmpty() ? "netns:" + netns : netnsName) + "/" + device;
  }
}

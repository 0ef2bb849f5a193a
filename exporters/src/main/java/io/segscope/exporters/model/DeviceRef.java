package io.segscope.exporters.model;

/**
 * A network device, named the way every per-device metric labels it.
 *
 * @param netns the network namespace's inode number (exported as the decimal {@code netns} label)
 * @param netnsName the namespace's name under /run/netns, or {@code ""} if it has none
 * @param ifindex the interface index inside that namespace (positive)
 * @param device the interface name (the {@code device} label), exactly: segscope's name form
 *     (valid UTF-8 as is, a backslash as {@code \\}, other bytes as {@code \xHH}); any non-empty
 *     string, control characters included
 */
public record DeviceRef(long netns, String netnsName, int ifindex, String device) {
  public DeviceRef {
    Checks.notNegative(netns, "DeviceRef.netns (namespace inode)");
    Checks.notNull(netnsName, "DeviceRef.netnsName (use \"\" for an unnamed namespace)");
    if (ifindex <= 0) {
      throw new IllegalArgumentException("DeviceRef.ifindex must be positive, got " + ifindex);
    }
    // any non-empty name: the kernel accepts names Java calls blank (0x1c-0x1f, U+2028, U+3000)
    Checks.notEmpty(device, "DeviceRef.device");
  }

  /** The {@code netns} label value: the inode as a decimal string. */
  public String netnsLabel() {
    return Long.toString(netns);
  }
}

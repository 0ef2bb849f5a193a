package io.segscope.exporters.model;

import io.segscope.device.DeviceId;

/**
 * A network device, named the way every per-device metric labels it: its identity and its names.
 *
 * @param id which device ({@link DeviceId}: netns cookie, inode, ifindex); the inode is exported as
 *     the decimal {@code netns} label, the cookie is not exported (it tells apart the namespaces that
 *     had one inode, and records only ever carry the current one's)
 * @param netnsName the namespace's name under /run/netns, or {@code ""} if it has none
 * @param device the interface name (the {@code device} label), exactly: segscope's name form
 *     (valid UTF-8 as is, a backslash as {@code \\}, other bytes as {@code \xHH}); any non-empty
 *     string, control characters included
 */
public record DeviceRef(DeviceId id, String netnsName, String device) {
  public DeviceRef {
    Checks.notNull(id, "DeviceRef.id");
    Checks.notNull(netnsName, "DeviceRef.netnsName (use \"\" for an unnamed namespace)");
    if (id.ifindex() <= 0) {
      throw new IllegalArgumentException("DeviceRef.ifindex must be positive, got " + id.ifindex());
    }
    // any non-empty name: the kernel accepts names Java calls blank (0x1c-0x1f, U+2028, U+3000)
    Checks.notEmpty(device, "DeviceRef.device");
  }

  /** The namespace's inode number. */
  public long netns() {
    return id.netns();
  }

  /** The interface index inside that namespace (positive). */
  public int ifindex() {
    return id.ifindex();
  }

  /** The {@code netns} label value: the inode as a decimal string. */
  public String netnsLabel() {
    return Long.toString(id.netns());
  }
}

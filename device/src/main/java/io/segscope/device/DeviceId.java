package io.segscope.device;

/**
 * Which network device on this host: its namespace's cookie, its namespace's inode and its interface
 * index there. The one identity the probes decode ({@code struct dev_key}), the inventory keys its
 * devices by and the exported records carry.
 *
 * <p>The inode is what every series is labelled with ({@code netns}), but the kernel reuses it once a
 * namespace is destroyed; the cookie is unique for the life of the host and tells the namespaces that
 * had one inode apart. A cookie is {@link #UNKNOWN_COOKIE} (0) where it is not known: a kernel without
 * namespace cookies, a namespace the inventory has not read the cookie of yet, a device known only by
 * its exported labels.
 *
 * <p><b>Equality is exact</b>: all three fields, so a map keyed by ids never merges two namespaces that
 * had one inode, and an id with its cookie is not equal to the same device's id without one. Where one
 * side may not know the cookie, compare with {@link #sameDevice} (same inode and ifindex, and the
 * cookies equal or either unknown; not an equivalence, so never a map key's equality), or key by
 * {@link #withoutCookie()} where the source holds one namespace per inode at a time (an inventory
 * snapshot, one telemetry snapshot).
 *
 * <p>Validated: the inode is an nsfs inode number (0 to 2<sup>32</sup>−1, as {@code struct dev_key}
 * holds it). The ifindex is not: the probes decode whatever the kernel wrote, and the exported records
 * refuse a non-positive one (one bad record skipped, not the whole read).
 *
 * @param netnsCookie the namespace's cookie (an unsigned 64-bit number), 0 when unknown
 * @param netns the namespace's inode number
 * @param ifindex the interface index inside that namespace
 */
public record DeviceId(long netnsCookie, long netns, int ifindex) implements Comparable<DeviceId> {
  /** The cookie of a namespace whose cookie is not known. */
  public static final long UNKNOWN_COOKIE = 0;
  /** The largest namespace inode (an unsigned 32-bit number). */
  public static final long MAX_NETNS = 0xFFFF_FFFFL;

  public DeviceId {
    if (netns < 0 || netns > MAX_NETNS) {
      throw new IllegalArgumentException(
          "DeviceId.netns must be a namespace inode (0 to " + MAX_NETNS + "), got " + netns);
    }
  }

  /** A device whose namespace's cookie is not known. */
  public static DeviceId of(long netns, int ifindex) {
    return new DeviceId(UNKNOWN_COOKIE, netns, ifindex);
  }

  /** Whether the namespace's cookie is known. */
  public boolean cookieKnown() {
    return netnsCookie != UNKNOWN_COOKIE;
  }

  /** This id with the cookie unknown: the device as its labels (inode, ifindex) name it. */
  public DeviceId withoutCookie() {
    return cookieKnown() ? of(netns, ifindex) : this;
  }

  /** This id with the namespace's cookie. */
  public DeviceId withCookie(long cookie) {
    return new DeviceId(cookie, netns, ifindex);
  }

  /**
   * Whether a namespace with cookie {@code cookie} can be this id's namespace: the cookies are equal,
   * or either is unknown. The inode is not compared.
   */
  public boolean sameNamespace(long cookie) {
    return cookie == netnsCookie || cookie == UNKNOWN_COOKIE || netnsCookie == UNKNOWN_COOKIE;
  }

  /**
   * Whether {@code other} can be the same device: same inode and ifindex, and {@link #sameNamespace}
   * by cookie. Not transitive (an id without a cookie matches ids with two different ones).
   */
  public boolean sameDevice(DeviceId other) {
    return other.netns == netns && other.ifindex == ifindex && sameNamespace(other.netnsCookie);
  }

  /** By inode, then ifindex, then cookie (unsigned; unknown first). */
  @Override
  public int compareTo(DeviceId o) {
    int c = Long.compare(netns, o.netns);
    if (c == 0) {
      c = Integer.compare(ifindex, o.ifindex);
    }
    return c != 0 ? c : Long.compareUnsigned(netnsCookie, o.netnsCookie);
  }

  /**
   * {@code netns/ifindex}, the form the labels give, and the cookie where known:
   * {@code 4026532301/2 (netns cookie 4097)}.
   */
  @Override
  public String toString() {
    String s = netns + "/" + ifindex;
    return cookieKnown() ? s + " (netns cookie " + Long.toUnsignedString(netnsCookie) + ")" : s;
  }
}

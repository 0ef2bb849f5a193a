package io.segscope.lab;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Guards the lab's address rule: every address lies in 198.18.0.0/15 (RFC 2544 benchmarking space),
 * with a prefix no shorter than /15 so that no route the kernel derives from it leaves that block; IPv6
 * addresses (the IPv6 scenarios) in its IPv6 counterpart 2001:2::/48 (RFC 5180), prefix /48 or longer.
 */
public final class LabAddress {
  private static final Pattern CIDR6 = Pattern.compile("([0-9A-Fa-f:]*:[0-9A-Fa-f:]*)/(\\d{1,3})");
  private static final int BLOCK6_BITS = 48;
  private static final Pattern CIDR = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})/(\\d{1,2})");
  private static final long BLOCK = (198L << 24) | (18L << 16);
  private static final int BLOCK_BITS = 15;

  private LabAddress() {
  }

  /**
   * Returns {@code cidr} unchanged if it is an IPv4 host address with prefix inside 198.18.0.0/15.
   *
   * @throws IllegalArgumentException naming the address and the rule it breaks
   */
  public static String requireLab(String cidr) {
    Matcher v6 = CIDR6.matcher(cidr == null ? "" : cidr);
    if (v6.matches()) {
      return requireLab6(cidr, v6.group(1), Integer.parseInt(v6.group(2)));
    }
    Matcher m = CIDR.matcher(cidr == null ? "" : cidr);
    if (!m.matches()) {
      throw new IllegalArgumentException("check lab address " + cidr
          + ": not an IPv4 address with prefix length (a.b.c.d/len)");
    }
    long ip = 0;
    for (int i = 1; i <= 4; i++) {
      int octet = Integer.parseInt(m.group(i));
      if (octet > 255) {
        throw new IllegalArgumentException("check lab address " + cidr + ": octet " + octet + " above 255");
      }
      ip = (ip << 8) | octet;
    }
    int len = Integer.parseInt(m.group(5));
    if (len < BLOCK_BITS || len > 32) {
      throw new IllegalArgumentException("check lab address " + cidr + ": prefix /" + len
          + " reaches outside 198.18.0.0/15 (use /15 to /32)");
    }
    if ((ip >>> (32 - BLOCK_BITS)) != (BLOCK >>> (32 - BLOCK_BITS))) {
      throw new IllegalArgumentException("check lab address " + cidr
          + ": outside 198.18.0.0/15, the only block the lab may use");
    }
    return cidr;
  }

  private static String requireLab6(String cidr, String address, int len) {
    byte[] a;
    try {
      InetAddress parsed = InetAddress.getByName(address); // a literal: never a name lookup
      if (!(parsed instanceof Inet6Address)) {
        throw new IllegalArgumentException("check lab address " + cidr + ": not an IPv6 address");
      }
      a = parsed.getAddress();
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("check lab address " + cidr + ": not an IPv6 address", e);
    }
    if (len < BLOCK6_BITS || len > 128) {
      throw new IllegalArgumentException("check lab address " + cidr + ": prefix /" + len
          + " reaches outside 2001:2::/48 (use /48 to /128)");
    }
    if (a[0] != 0x20 || a[1] != 0x01 || a[2] != 0 || a[3] != 0x02 || a[4] != 0 || a[5] != 0) {
      throw new IllegalArgumentException("check lab address " + cidr
          + ": outside 2001:2::/48, the only IPv6 block the lab may use");
    }
    return cidr;
  }

  /** Whether {@code address} (with or without prefix length) is an IPv6 address. */
  public static boolean isIpv6(String address) {
    return address.contains(":");
  }

  /** The address part of {@code cidr} (without the prefix length). */
  public static String host(String cidr) {
    int slash = cidr.indexOf('/');
    return slash < 0 ? cidr : cidr.substring(0, slash);
  }
}

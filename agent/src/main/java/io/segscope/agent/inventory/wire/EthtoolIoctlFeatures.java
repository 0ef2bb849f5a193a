package io.segscope.agent.inventory.wire;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import io.segscope.agent.inventory.model.Features;
import io.segscope.agent.netlink.NetlinkException;
import io.segscope.host.names.NameCodec;
import io.segscope.host.sys.Libc;
import java.util.List;

/**
 * Offload features through the SIOCETHTOOL ioctl, for kernels without the ethtool netlink family
 * (before 5.6, or CONFIG_ETHTOOL_NETLINK=n). Uses an AF_INET datagram socket created in the
 * namespace (the ioctl resolves the device name in the socket's namespace). The feature names are
 * global to the kernel and read once.
 */
public final class EthtoolIoctlFeatures implements FeatureReader {
  private static final int IFREQ_LENGTH = 40;
  private static final int IFNAMSIZ = 16;

  private final int fd;
  private List<String> names;
  private boolean closed;

  private EthtoolIoctlFeatures(int fd) {
    this.fd = fd;
  }

  /** Opens the ioctl socket in the calling thread's network namespace. */
  public static EthtoolIoctlFeatures open() {
    int fd = Libc.INSTANCE.socket(Libc.AF_INET, Libc.SOCK_DGRAM | Libc.SOCK_CLOEXEC, 0);
    if (fd < 0) {
      throw NetlinkException.errno("open socket for SIOCETHTOOL", Native.getLastError());
    }
    return new EthtoolIoctlFeatures(fd);
  }

  @Override
  public Features.Source source() {
    return Features.Source.ETHTOOL_IOCTL;
  }

  @Override
  public synchronized Features read(int ifindex, String name) {
    try {
      if (names == null) {
        int count = EthtoolIoctlCodec.parseSsetInfo(ethtool(name, EthtoolIoctlCodec.ssetInfoRequest(),
            "read feature count (ETHTOOL_GSSET_INFO)"));
        names = EthtoolIoctlCodec.parseGstrings(ethtool(name, EthtoolIoctlCodec.gstringsRequest(count),
            "read feature names (ETHTOOL_GSTRINGS)"), count);
      }
      byte[] reply = ethtool(name, EthtoolIoctlCodec.gfeaturesRequest(names.size()),
          "read features (ETHTOOL_GFEATURES)");
      return EthtoolIoctlCodec.parseGfeatures(reply, names);
    } catch (NetlinkException e) {
      return Features.unavailable(e.getMessage());
    }
  }

  /** Runs one SIOCETHTOOL command on device {@code name}; returns the kernel-filled buffer. */
  private byte[] ethtool(String name, byte[] command, String what) {
    if (closed) {
      throw new NetlinkException(what + " of " + name + ": reader is closed");
    }
    byte[] ifname = NameCodec.encode(name);
    if (ifname.length >= IFNAMSIZ) {
      throw new NetlinkException(what + ": device name " + name + " is longer than IFNAMSIZ-1");
    }
    Memory data = new Memory(command.length);
    data.write(0, command, 0, command.length);
    Memory ifreq = new Memory(IFREQ_LENGTH);
    ifreq.clear();
    ifreq.write(0, ifname, 0, ifname.length);
    ifreq.setPointer(IFNAMSIZ, data);
    if (Libc.INSTANCE.ioctl(fd, EthtoolIoctlCodec.SIOCETHTOOL, ifreq) != 0) {
      throw NetlinkException.errno(what + " of " + name, Native.getLastError());
    }
    return data.getByteArray(0, command.length);
  }

  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      Libc.INSTANCE.close(fd);
    }
  }
}

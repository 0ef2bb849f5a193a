package io.segscope.probes.wire;

import io.segscope.device.DeviceId;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The codec of {@code struct dev_key}, the key the programs count a device under: its namespace's
 * cookie (0 on kernels without namespace cookies), the namespace's inode and the interface index,
 * decoded as the host-wide {@link DeviceId}. The layout is here, the identity in the device module.
 */
public final class DeviceKey {
  /** Bytes of {@code struct dev_key}. */
  public static final int SIZE = 16;
  /** Fields of {@code struct dev_key}, in order. */
  public static final List<String> FIELDS = List.of("netns_cookie", "netns", "ifindex");

  private DeviceKey() {}

  /** Reads a key at {@code offset} of a native-order buffer. */
  public static DeviceId read(ByteBuffer b, int offset) {
    return new DeviceId(b.getLong(offset), Integer.toUnsignedLong(b.getInt(offset + 8)), b.getInt(offset + 12));
  }

  /** Writes {@code id} as a key at {@code offset} of a native-order buffer. */
  public static void write(DeviceId id, ByteBuffer b, int offset) {
    b.putLong(offset, id.netnsCookie());
    b.putInt(offset + 8, (int) id.netns());
    b.putInt(offset + 12, id.ifindex());
  }
}

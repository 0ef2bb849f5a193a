package io.segscope.probes.wire;

import java.nio.ByteBuffer;

/**
 * A network device as the programs key it ({@code struct dev_key}): its namespace's cookie (unique
 * for the life of the host; 0 on kernels without namespace cookies), the namespace's inode (the
 * {@code netns} label) and the interface index.
 */
public record DeviceKey(long netnsCookie, long netns, int ifindex) {
  /** Bytes of {@code struct dev_key}. */
  public static final int SIZE = 16;
  /** Fields of {@code struct dev_key}, in order. */
  public static final java.util.List<String> FIELDS = java.util.List.of("netns_cookie", "netns", "ifindex");

  /** Reads a key at {@code offset} of a native-order buffer. */
  public static DeviceKey read(ByteBuffer b, int offset) {
    return new DeviceKey(b.getLong(offset), Integer.toUnsignedLong(b.getInt(offset + 8)), b.getInt(offset + 12));
  }

  /** Writes this key at {@code offset} of a native-order buffer. */
  public void write(ByteBuffer b, int offset) {
    b.putLong(offset, netnsCookie);
    b.putInt(offset + 8, (int) netns);
    b.putInt(offset + 12, ifindex);
  }
}

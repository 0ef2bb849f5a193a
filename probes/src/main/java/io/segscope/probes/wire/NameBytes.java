package io.segscope.probes.wire;

import io.segscope.host.names.NameCodec;
import java.nio.ByteBuffer;

/** The NUL-terminated {@code char name[16]} the programs copy from {@code net_device.name}. */
public final class NameBytes {
  static final int SIZE = 16;

  private NameBytes() {}

  /** The raw bytes of the name at {@code offset} (up to the first NUL). */
  static byte[] read(ByteBuffer b, int offset) {
    int n = 0;
    while (n < SIZE && b.get(offset + n) != 0) {
      n++;
    }
    byte[] out = new byte[n];
    for (int i = 0; i < n; i++) {
      out[i] = b.get(offset + i);
    }
    return out;
  }

  /** The name as text, byte-exact: {@link io.segscope.host.names.NameCodec#decode}. */
  public static String text(byte[] name) {
    return NameCodec.decode(name);
  }
}

package io.segscope.probes.load;

import com.sun.jna.Memory;
import io.segscope.host.sys.Errno;
import io.segscope.host.sys.SysException;
import io.segscope.probes.sys.Bpf;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Reads every entry of one hash map, streaming: entries come in batches ({@code BPF_MAP_LOOKUP_BATCH},
 * 5.6+) into native buffers allocated once, and each is handed to the caller as offsets into those
 * buffers, so a read allocates nothing per entry. Kernels or map types without batch lookups are
 * read with {@code GET_NEXT_KEY} + {@code LOOKUP_ELEM} into the same buffers. Per-CPU values arrive in
 * the kernel's layout: possible CPUs × the value size rounded up to 8. Not thread-safe.
 */
public final class MapReader implements AutoCloseable {
  /** Receives one entry: the key at {@code keyOffset} of {@code keys}, its value at {@code valueOffset} of {@code values}. */
  @FunctionalInterface
  public interface EntryConsumer {
    void accept(ByteBuffer keys, int keyOffset, ByteBuffer values, int valueOffset);
  }

  private static final int BATCH = 256;

  private final int fd;
  private final String name;
  private final int keySize;
  private final int valueBytes;
  private int batch;
  private Memory keys;
  private Memory values;
  private final Memory inToken;
  private final Memory outToken;
  private Boolean batchSupported;

  /**
   * @param valueBytes bytes of one whole value: the value size, or for per-CPU maps possible CPUs ×
   *     the value size rounded up to 8
   */
  public MapReader(int fd, String name, int keySize, int valueBytes) {
    this.fd = fd;
    this.name = name;
    this.keySize = keySize;
    this.valueBytes = valueBytes;
    this.batch = BATCH;
    this.keys = new Memory((long) keySize * batch);
    this.values = new Memory((long) valueBytes * batch);
    int token = Math.max(8, keySize);
    this.inToken = new Memory(token);
    this.outToken = new Memory(token);
  }

  /** The bytes of one per-CPU value of {@code valueSize} on {@code cpus} possible CPUs. */
  public static int perCpuBytes(int valueSize, int cpus) {
    return Math.multiplyExact(cpus, (valueSize + 7) & ~7);
  }

  /** Calls {@code consumer} for every entry; returns how many there were. */
  public int forEach(EntryConsumer consumer) throws SysException {
    if (!Boolean.FALSE.equals(batchSupported)) {
      try {
        int n = batched(consumer);
        batchSupported = true;
        return n;
      } catch (SysException e) {
        if (batchSupported != null || !e.unsupported()) {
          throw e;
        }
        batchSupported = false; // before 5.6, or a map type without batch ops: walk the keys
      }
    }
    return walked(consumer);
  }

  private int batched(EntryConsumer consumer) throws SysException {
    int total = 0;
    boolean first = true;
    while (true) {
      int got;
      try {
        got = Bpf.mapLookupBatch(fd, first ? null : inToken, outToken, keys, values, batch);
      } catch (SysException e) {
        if (e.errno() == Errno.ENOSPC && batch < 1 << 16) {
          grow(); // a hash bucket holds more entries than fit: retry from the same place, larger
          continue;
        }
        throw new SysException("read map " + name, e.errno(), e.getMessage());
      }
      boolean end = got < 0;
      int n = end ? -got - 1 : got;
      ByteBuffer k = keys.getByteBuffer(0, (long) keySize * n).order(ByteOrder.nativeOrder());
      ByteBuffer v = values.getByteBuffer(0, (long) valueBytes * n).order(ByteOrder.nativeOrder());
      for (int i = 0; i < n; i++) {
        consumer.accept(k, i * keySize, v, i * valueBytes);
      }
      total += n;
      if (end) {
        return total;
      }
      inToken.write(0, outToken.getByteArray(0, (int) outToken.size()), 0, (int) outToken.size());
      first = false;
    }
  }

  private void grow() {
    batch *= 2;
    keys.close();
    values.close();
    keys = new Memory((long) keySize * batch);
    values = new Memory((long) valueBytes * batch);
  }

  private int walked(EntryConsumer consumer) throws SysException {
    int total = 0;
    Memory key = new Memory(keySize);
    Memory next = new Memory(keySize);
    try (key; next) {
      boolean first = true;
      long limit = 1L << 24;
      while (Bpf.mapNextKey(fd, first ? null : key, next)) {
        first = false;
        key.write(0, next.getByteArray(0, keySize), 0, keySize);
        if (!Bpf.mapLookup(fd, key, values)) {
          continue; // deleted between the two calls
        }
        ByteBuffer k = key.getByteBuffer(0, keySize).order(ByteOrder.nativeOrder());
        ByteBuffer v = values.getByteBuffer(0, valueBytes).order(ByteOrder.nativeOrder());
        consumer.accept(k, 0, v, 0);
        if (++total > limit) {
          throw new SysException("read map " + name, Errno.E2BIG, "more than " + limit + " keys: the map changes"
              + " faster than it can be walked");
        }
      }
    }
    return total;
  }

  @Override
  public void close() {
    keys.close();
    values.close();
    inToken.close();
    outToken.close();
  }
}

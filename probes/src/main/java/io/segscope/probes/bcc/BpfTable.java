package io.segscope.probes.bcc;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One BPF map of a {@link BpfModule}, read and written as raw bytes: keys are {@link #keySize()}
 * bytes; values are {@link #valueSize()} bytes, or for per-CPU maps {@link Bcc#possibleCpus()}
 * slots of {@link #valueStride()} bytes each (CPU 0 first) — the kernel's own layout.
 *
 * <p>{@link #entries()} uses {@code bpf_lookup_batch} where the kernel supports it for the map type
 * (tried once per type; EINVAL/EOPNOTSUPP/ENOSYS/ENOTSUPP mean "no", and the answer is cached), else
 * walks {@code bpf_get_next_key} + {@code bpf_lookup_elem}. Array maps list every slot.
 *
 * <p>Operations run while the module is open and fail with a {@link BccException} after it closed
 * (the fd would belong to someone else by then). Native byte order throughout.
 */
public final class BpfTable {
  /** {@code enum bpf_map_type} values this class treats specially. */
  static final int HASH = 1;
  static final int ARRAY = 2;
  static final int PERCPU_HASH = 5;
  static final int PERCPU_ARRAY = 6;
  static final int STACK_TRACE = 7;
  static final int LRU_PERCPU_HASH = 10;
  static final int PERCPU_CGROUP_STORAGE = 21;

  private static final int MAX_BATCH = 1024;
  private static final long BPF_ANY = 0;
  /** Per map type: does the kernel support {@code bpf_lookup_batch}? Only definite answers. */
  private static final Map<Integer, Boolean> BATCH_SUPPORT = new ConcurrentHashMap<>();

  private final BpfModule owner;
  private final String name;
  private final int fd;
  private final int type;
  private final int keySize;
  private final int valueSize;
  private final long maxEntries;
  private final boolean perCpu;
  private final int valueBytes;

  /** A key and its value, copied out of the map. */
  public record Entry(byte[] key, byte[] value) {
    @Override
    public String toString() {
      return "Entry[key=" + HexFormat.of().formatHex(key) + ", value="
          + HexFormat.of().formatHex(value) + "]";
    }
  }

  BpfTable(BpfModule owner, String name, int fd, int type, int keySize, int valueSize, long maxEntries) {
    this.owner = owner;
    this.name = name;
    this.fd = fd;
    this.type = type;
    this.keySize = keySize;
    this.valueSize = valueSize;
    this.maxEntries = maxEntries;
    this.perCpu = isPerCpuType(type);
    this.valueBytes = perCpu ? Math.multiplyExact(Bcc.possibleCpus(), stride(valueSize)) : valueSize;
  }

  /** The table's name in the BCC program. */
  public String name() {
    return name;
  }

  /** The map fd (owned by the module: valid until it closes). */
  public int fd() {
    return fd;
  }

  /** Key size in bytes. */
  public int keySize() {
    return keySize;
  }

  /** Leaf (value) size in bytes — per CPU for per-CPU maps. */
  public int valueSize() {
    return valueSize;
  }

  /** The uapi {@code enum bpf_map_type} ({@code bpf_table_type}). */
  public int type() {
    return type;
  }

  /** The map's max_entries. */
  public long maxEntries() {
    return maxEntries;
  }

  /** True for PERCPU_HASH (5), PERCPU_ARRAY (6), LRU_PERCPU_HASH (10), PERCPU_CGROUP_STORAGE (21). */
  public boolean isPerCpu() {
    return perCpu;
  }

  /** Size of one CPU's slot in a per-CPU value: the leaf size rounded up to 8. */
  public int valueStride() {
    return stride(valueSize);
  }

  /** Bytes of a whole value as lookup/update/entries use it: possibleCpus()*valueStride() for per-CPU maps. */
  public int valueBytes() {
    return valueBytes;
  }

  /** All entries; see the class comment for batch vs. key walk. */
  public List<Entry> entries() throws BccException {
    return owner.whileOpen("entries", name, () -> {
      if (!Boolean.FALSE.equals(BATCH_SUPPORT.get(type))) {
        List<Entry> batched = entriesByBatch();
        if (batched != null) {
          return batched;
        }
      }
      return entriesByKeyWalkUnlocked();
    });
  }

  /** All entries by {@code bpf_get_next_key} + {@code bpf_lookup_elem}, never by batch. */
  List<Entry> entriesByKeyWalk() throws BccException {
    return owner.whileOpen("entries", name, this::entriesByKeyWalkUnlocked);
  }

  /** Cached batch support for a map type: empty until a batch lookup was tried on one. */
  static Optional<Boolean> batchSupport(int mapType) {
    return Optional.ofNullable(BATCH_SUPPORT.get(mapType));
  }

  /** The value for {@code key}, empty when absent. */
  public Optional<byte[]> lookup(byte[] key) throws BccException {
    checkKey("lookup", key);
    return owner.whileOpen("bpf_lookup_elem", name, () -> {
      try (Memory k = copyOf(key); Memory v = new Memory(valueBytes)) {
        int ret = owner.bcc().bpf_lookup_elem(fd, k, v);
        if (ret < 0) {
          int errno = Errno.ofFailure(ret);
          if (errno == Errno.ENOENT) {
            return Optional.empty();
          }
          throw new BccException("bpf_lookup_elem", name, errno);
        }
        return Optional.of(v.getByteArray(0, valueBytes));
      }
    });
  }

  /** Creates or replaces the value of {@code key} ({@code BPF_ANY}); value is {@link #valueBytes()} long. */
  public void update(byte[] key, byte[] value) throws BccException {
    checkKey("update", key);
    if (value == null || value.length != valueBytes) {
      throw new IllegalArgumentException("update " + name + ": value has "
          + (value == null ? "no" : String.valueOf(value.length)) + " bytes, table needs " + valueBytes
          + (perCpu ? " (" + Bcc.possibleCpus() + " CPUs x " + valueStride() + ")" : ""));
    }
    owner.whileOpen("bpf_update_elem", name, () -> {
      try (Memory k = copyOf(key); Memory v = copyOf(value)) {
        int ret = owner.bcc().bpf_update_elem(fd, k, v, BPF_ANY);
        if (ret < 0) {
          throw new BccException("bpf_update_elem", name, Errno.ofFailure(ret));
        }
        return null;
      }
    });
  }

  /** Deletes {@code key}; false when it was absent (ENOENT). Array maps refuse deletes (EINVAL). */
  public boolean delete(byte[] key) throws BccException {
    checkKey("delete", key);
    return owner.whileOpen("bpf_delete_elem", name, () -> {
      try (Memory k = copyOf(key)) {
        int ret = owner.bcc().bpf_delete_elem(fd, k);
        if (ret < 0) {
          int errno = Errno.ofFailure(ret);
          if (errno == Errno.ENOENT) {
            return false;
          }
          throw new BccException("bpf_delete_elem", name, errno);
        }
        return true;
      }
    });
  }

  /** Batch read; null when the kernel does not support batches for this map type. */
  private List<Entry> entriesByBatch() throws BccException {
    LibBcc bcc = owner.bcc();
    int batch = (int) Math.max(1, Math.min(maxEntries, MAX_BATCH));
    int tokenBytes = Math.max(keySize, 8);
    List<Entry> entries = new ArrayList<>();
    try (Memory in = new Memory(tokenBytes); Memory out = new Memory(tokenBytes);
        Memory count = new Memory(4)) {
      boolean first = true;
      while (true) {
        try (Memory keys = new Memory((long) batch * keySize);
            Memory values = new Memory((long) batch * valueBytes)) {
          count.setInt(0, batch);
          int ret = bcc.bpf_lookup_batch(fd, first ? null : in, out, keys, values, count);
          int errno = ret < 0 ? Errno.ofFailure(ret) : 0;
          if (ret < 0 && errno != Errno.ENOENT) {
            if (first && isBatchUnsupported(errno)) {
              BATCH_SUPPORT.put(type, false);
              return null;
            }
            if (errno == Errno.ENOSPC && batch < maxEntries) {
              batch = (int) Math.min(maxEntries, (long) batch * 2);
              continue;
            }
            throw new BccException("bpf_lookup_batch", name, errno);
          }
          BATCH_SUPPORT.putIfAbsent(type, true);
          int n = count.getInt(0);
          for (int i = 0; i < n; i++) {
            entries.add(new Entry(keys.getByteArray((long) i * keySize, keySize),
                values.getByteArray((long) i * valueBytes, valueBytes)));
          }
          if (ret < 0 || n == 0) {
            return entries; // ENOENT: that was the last batch
          }
          in.write(0, out.getByteArray(0, tokenBytes), 0, tokenBytes);
          first = false;
        }
      }
    }
  }

  private List<Entry> entriesByKeyWalkUnlocked() throws BccException {
    LibBcc bcc = owner.bcc();
    List<Entry> entries = new ArrayList<>();
    Set<ByteBuffer> seen = new HashSet<>();
    long limit = 2 * maxEntries + 2;
    try (Memory current = new Memory(keySize); Memory next = new Memory(keySize);
        Memory value = new Memory(valueBytes)) {
      Pointer previous = null;
      for (long steps = 0; steps < limit; steps++) {
        int ret = bcc.bpf_get_next_key(fd, previous, next);
        if (ret < 0) {
          int errno = Errno.ofFailure(ret);
          if (errno == Errno.ENOENT) {
            break;
          }
          throw new BccException("bpf_get_next_key", name, errno);
        }
        byte[] key = next.getByteArray(0, keySize);
        current.write(0, key, 0, keySize);
        previous = current;
        if (!seen.add(ByteBuffer.wrap(key))) {
          continue; // the walk restarted because a key vanished meanwhile
        }
        int found = bcc.bpf_lookup_elem(fd, current, value);
        if (found < 0) {
          int errno = Errno.ofFailure(found);
          if (errno == Errno.ENOENT) {
            continue; // deleted between get_next_key and lookup
          }
          throw new BccException("bpf_lookup_elem", name, errno);
        }
        entries.add(new Entry(key, value.getByteArray(0, valueBytes)));
      }
    }
    return entries;
  }

  private void checkKey(String operation, byte[] key) {
    if (key == null || key.length != keySize) {
      throw new IllegalArgumentException(operation + " " + name + ": key has "
          + (key == null ? "no" : String.valueOf(key.length)) + " bytes, table key size is " + keySize);
    }
  }

  private static Memory copyOf(byte[] bytes) {
    Memory memory = new Memory(Math.max(bytes.length, 1));
    memory.write(0, bytes, 0, bytes.length);
    return memory;
  }

  static boolean isPerCpuType(int mapType) {
    return mapType == PERCPU_HASH || mapType == PERCPU_ARRAY || mapType == LRU_PERCPU_HASH
        || mapType == PERCPU_CGROUP_STORAGE;
  }

  /** Per-CPU slot size: {@code leaf} rounded up to 8. */
  static int stride(int leaf) {
    return (leaf + 7) & ~7;
  }

  static boolean isBatchUnsupported(int errno) {
    return errno == Errno.EINVAL || errno == Errno.EOPNOTSUPP || errno == Errno.ENOSYS
        || errno == Errno.ENOTSUPP;
  }

  @Override
  public String toString() {
    return "BpfTable[" + name + ", type " + type + ", key " + keySize + " B, value " + valueSize + " B"
        + (perCpu ? " per CPU" : "") + ", max " + maxEntries + "]";
  }
}

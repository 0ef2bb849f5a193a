package io.segscope.probes.gso;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Decodes the {@code dev_stats} per-CPU hash map ({@code struct dev_key} → {@code struct dev_stats} in
 * {@code bpf/common.h}) into {@link DeviceCounters}. The layout constants mirror the C struct; the
 * map's key and leaf sizes are checked against them before any read, so a mismatch between the two
 * is reported instead of decoded into wrong numbers.
 */
public final class DeviceStatsDecoder {

  public static final int KEY_SIZE = 8;
  public static final int CAUSES = 5;
  public static final int DUR_SLOTS = 40;
  public static final int SEG_SLOTS = 18;
  private static final int NAME = 16;
  /** name and the time it was read, then the counters. */
  private static final int HEADER = NAME + 8;
  /** name, name_ns, 7 counters, causes, duration and segment histograms, 5 xdp counters, xdp histogram. */
  public static final int LEAF_SIZE = HEADER + 8 * (7 + CAUSES + DUR_SLOTS + SEG_SLOTS + 5 + DUR_SLOTS);

  private final int cpus;
  private final int stride;

  /**
   * @param cpus number of possible CPUs (per-CPU values come back as one slot each)
   * @param keySize the map's key size, checked
   * @param leafSize the map's value size per CPU, checked
   */
  public DeviceStatsDecoder(int cpus, int keySize, int leafSize) {
    if (keySize != KEY_SIZE || leafSize != LEAF_SIZE) {
      throw new IllegalStateException("decode dev_stats: map has key " + keySize + " / value " + leafSize
          + " bytes, the decoder expects " + KEY_SIZE + " / " + LEAF_SIZE
          + " (bpf/common.h and DeviceStatsDecoder disagree)");
    }
    if (cpus < 1) {
      throw new IllegalArgumentException("decode dev_stats: cpus must be >= 1, got " + cpus);
    }
    this.cpus = cpus;
    this.stride = (leafSize + 7) & ~7;
  }

  /** Sums one entry's per-CPU values. */
  public DeviceCounters decode(byte[] key, byte[] value) {
    if (key.length != KEY_SIZE) {
      throw new IllegalArgumentException("decode dev_stats: key of " + key.length + " bytes, expected " + KEY_SIZE);
    }
    if (value.length < (long) stride * cpus) {
      throw new IllegalArgumentException("decode dev_stats: value of " + value.length + " bytes, expected "
          + stride * cpus + " (" + cpus + " CPUs x " + stride + ")");
    }
    ByteBuffer k = ByteBuffer.wrap(key).order(ByteOrder.nativeOrder());
    long netns = Integer.toUnsignedLong(k.getInt(0));
    int ifindex = k.getInt(4);
    ByteBuffer v = ByteBuffer.wrap(value).order(ByteOrder.nativeOrder());
    // the name of the CPU that read it last: a reused (netns, ifindex) key may leave an older
    // device's name on CPUs the new device has not run on yet
    String name = "";
    long newest = Long.MIN_VALUE;
    long[] sums = new long[(LEAF_SIZE - HEADER) / 8];
    for (int c = 0; c < cpus; c++) {
      int base = c * stride;
      String cpuName = cString(value, base, NAME);
      long readAt = v.getLong(base + NAME);
      if (!cpuName.isEmpty() && (name.isEmpty() || Long.compareUnsigned(readAt, newest) > 0)) {
        name = cpuName;
        newest = readAt;
      }
      for (int i = 0; i < sums.length; i++) {
        sums[i] += v.getLong(base + HEADER + 8 * i);
      }
    }
    int i = 0;
    long swSkbs = sums[i++];
    long swSegs = sums[i++];
    long swBytes = sums[i++];
    long swTimed = sums[i++];
    long swNs = sums[i++];
    long offSkbs = sums[i++];
    long offBytes = sums[i++];
    long[] causes = slice(sums, i, CAUSES);
    i += CAUSES;
    long[] dur = slice(sums, i, DUR_SLOTS);
    i += DUR_SLOTS;
    long[] seg = slice(sums, i, SEG_SLOTS);
    i += SEG_SLOTS;
    long xdpCopied = sums[i++];
    long xdpPassed = sums[i++];
    long xdpBytes = sums[i++];
    long xdpTimed = sums[i++];
    long xdpNs = sums[i++];
    long[] xdpDur = slice(sums, i, DUR_SLOTS);
    return new DeviceCounters(netns, ifindex, name, swSkbs, swSegs, swBytes, swTimed, swNs, offSkbs, offBytes,
        causes, dur, seg, xdpCopied, xdpPassed, xdpBytes, xdpTimed, xdpNs, xdpDur);
  }

  private static long[] slice(long[] a, int from, int n) {
    long[] out = new long[n];
    System.arraycopy(a, from, out, 0, n);
    return out;
  }

  private static String cString(byte[] b, int off, int max) {
    int n = 0;
    while (n < max && b[off + n] != 0) {
      n++;
    }
    return new String(b, off, n, StandardCharsets.UTF_8);
  }
}

package io.segscope.probes.wire;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * A device's counters summed over CPUs ({@code struct dev_counts}, a per-CPU value): what it queued,
 * dropped before the driver, segmented in software, and what generic XDP copied or passed.
 */
public record Counts(long gsoQueued, long gsoQueuedBytes, long gsoTxDropped, long swSkbs, long swSegments,
    long swBytes, long swAfterQueue, long xdpCopied, long xdpCopiedBytes, long xdpPassed, long xdpPassedBytes) {

  /** Fields of {@code struct dev_counts}, in order, all u64. */
  public static final List<String> FIELDS = List.of("gso_queued", "gso_queued_bytes", "gso_tx_dropped", "sw_skbs",
      "sw_segs", "sw_bytes", "sw_after_queue", "xdp_copied", "xdp_copied_bytes", "xdp_passed", "xdp_passed_bytes");
  /** Bytes of one CPU's value. */
  public static final int SIZE = 8 * 11;

  public static final Counts ZERO = new Counts(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

  /**
   * Sums {@code cpus} per-CPU values laid out {@code stride} bytes apart from {@code offset} of a
   * native-order buffer (the kernel's per-CPU value layout).
   */
  public static Counts sumPerCpu(ByteBuffer b, int offset, int cpus, int stride) {
    long[] s = new long[11];
    for (int c = 0; c < cpus; c++) {
      int base = offset + c * stride;
      for (int i = 0; i < 11; i++) {
        s[i] += b.getLong(base + 8 * i);
      }
    }
    return new Counts(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9], s[10]);
  }

  /** These counts with the software-segmentation ones replaced (the kernel keeps those in gso_detail). */
  public Counts withSoftware(long skbs, long segments, long bytes, long afterQueue) {
    return new Counts(gsoQueued, gsoQueuedBytes, gsoTxDropped, skbs, segments, bytes, afterQueue, xdpCopied,
        xdpCopiedBytes, xdpPassed, xdpPassedBytes);
  }

  /**
   * Super-packets handed intact to the driver: queued, minus those segmented after the queue, minus
   * those dropped on the way. May be transiently negative while a super-packet is between its queue
   * and its fate: callers clamp and keep it monotonic.
   */
  public long offloadedRaw() {
    return gsoQueued - swAfterQueue - gsoTxDropped;
  }
}

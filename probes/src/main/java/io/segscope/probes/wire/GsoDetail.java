package io.segscope.probes.wire;

import io.segscope.vocabulary.Cause;
import io.segscope.vocabulary.GsoType;
import io.segscope.vocabulary.Site;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;

/**
 * What a device that segmented in software also has ({@code struct gso_detail}, one value per CPU,
 * summed by {@link #sumPerCpu}): how many segmentations were timed and their total time, counts by
 * cause, site and GSO type, the segments-per-skb histogram (native schema 0 slots) and the duration
 * histogram ({@link DurationBuckets} slots). Its software-segmentation counts ({@link Sw}) go into the
 * device's {@link Counts}.
 */
public record GsoDetail(String kernelName, long timed, long timedNanos, long[] causes, long[] sites,
    long[] gsoTypes, long[] segmentSlots, long[] durationSlots) {

  /** Slots of the segments-per-skb histogram: the zero bucket, then native schema-0 indexes 0..16. */
  public static final int SEG_SLOTS = 18;
  /** Fields of {@code struct gso_detail}, in order, with their element counts. */
  public static final List<String> FIELDS = List.of("name[16]", "sw_skbs", "sw_segs", "sw_bytes", "sw_after_queue",
      "timed", "timed_ns", "cause[CAUSES]", "site[SITES]", "gtype[GTYPES]", "seg[SEG_SLOTS]", "dur[DUR_SLOTS]");
  /** Bytes of one CPU's value. */
  public static final int SIZE = NameBytes.SIZE + 8 * (6 + Cause.values().length + Site.values().length
      + GsoType.values().length + SEG_SLOTS + DurationBuckets.SLOTS);

  /** The software-segmentation counts of a device, summed over CPUs (exact in every mode). */
  public record Sw(long skbs, long segments, long bytes, long afterQueue) {}

  /** A device's detail and its counts, summed over CPUs. */
  public record Summed(Sw sw, GsoDetail detail) {}

  public GsoDetail {
    causes = causes.clone();
    sites = sites.clone();
    gsoTypes = gsoTypes.clone();
    segmentSlots = segmentSlots.clone();
    durationSlots = durationSlots.clone();
  }

  /**
   * Sums {@code cpus} per-CPU values laid out {@code stride} bytes apart from {@code offset} of a native-order
   * buffer; the name is the first CPU's that has one (the CPU that created the entry wrote it).
   */
  public static Summed sumPerCpu(ByteBuffer b, int offset, int cpus, int stride) {
    int longs = (SIZE - NameBytes.SIZE) / 8;
    long[] sum = new long[longs];
    String name = "";
    for (int c = 0; c < cpus; c++) {
      int base = offset + c * stride;
      if (name.isEmpty()) {
        name = NameBytes.text(NameBytes.read(b, base));
      }
      for (int i = 0; i < longs; i++) {
        sum[i] += b.getLong(base + NameBytes.SIZE + 8 * i);
      }
    }
    ByteBuffer one = ByteBuffer.allocate(SIZE).order(ByteOrder.nativeOrder());
    one.position(NameBytes.SIZE);
    for (long v : sum) {
      one.putLong(v);
    }
    GsoDetail d = read(one, 0);
    return new Summed(new Sw(sum[0], sum[1], sum[2], sum[3]), new GsoDetail(name, d.timed, d.timedNanos,
        d.causes, d.sites, d.gsoTypes, d.segmentSlots, d.durationSlots));
  }

  /** Reads one CPU's value at {@code offset} of a native-order buffer (its sw_* counts are skipped). */
  public static GsoDetail read(ByteBuffer b, int offset) {
    String name = NameBytes.text(NameBytes.read(b, offset));
    int p = offset + NameBytes.SIZE + 8 * 4;
    long timed = b.getLong(p);
    long ns = b.getLong(p + 8);
    p += 16;
    long[] causes = longs(b, p, Cause.values().length);
    p += 8 * causes.length;
    long[] sites = longs(b, p, Site.values().length);
    p += 8 * sites.length;
    long[] types = longs(b, p, GsoType.values().length);
    p += 8 * types.length;
    long[] seg = longs(b, p, SEG_SLOTS);
    p += 8 * SEG_SLOTS;
    long[] dur = longs(b, p, DurationBuckets.SLOTS);
    return new GsoDetail(name, timed, ns, causes, sites, types, seg, dur);
  }

  static long[] longs(ByteBuffer b, int p, int n) {
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      out[i] = b.getLong(p + 8 * i);
    }
    return out;
  }

  public long cause(Cause c) {
    return causes[c.ordinal()];
  }

  public long site(Site s) {
    return sites[s.ordinal()];
  }

  public long gsoType(GsoType t) {
    return gsoTypes[t.ordinal()];
  }

  @Override
  public long[] causes() {
    return causes.clone();
  }

  @Override
  public long[] sites() {
    return sites.clone();
  }

  @Override
  public long[] gsoTypes() {
    return gsoTypes.clone();
  }

  @Override
  public long[] segmentSlots() {
    return segmentSlots.clone();
  }

  @Override
  public long[] durationSlots() {
    return durationSlots.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof GsoDetail d && kernelName.equals(d.kernelName) && timed == d.timed
        && timedNanos == d.timedNanos && Arrays.equals(causes, d.causes) && Arrays.equals(sites, d.sites)
        && Arrays.equals(gsoTypes, d.gsoTypes) && Arrays.equals(segmentSlots, d.segmentSlots)
        && Arrays.equals(durationSlots, d.durationSlots);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(timed) * 31 + Arrays.hashCode(sites);
  }

  @Override
  public String toString() {
    return "GsoDetail[" + kernelName + ", timed=" + timed + ", causes=" + Arrays.toString(causes) + ", sites="
        + Arrays.toString(sites) + ", types=" + Arrays.toString(gsoTypes) + "]";
  }
}

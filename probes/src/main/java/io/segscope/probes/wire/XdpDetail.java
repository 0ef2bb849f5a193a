package io.segscope.probes.wire;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

/**
 * The copy timing of a device whose generic-XDP copies were timed ({@code struct xdp_detail}; kprobe
 * and fentry modes only): how many, their total time and the duration histogram.
 */
public record XdpDetail(String kernelName, long timed, long timedNanos, long[] durationSlots) {
  public static final List<String> FIELDS = List.of("name[16]", "timed", "timed_ns", "dur[DUR_SLOTS]");
  public static final int SIZE = NameBytes.SIZE + 8 * (2 + DurationBuckets.SLOTS);

  public XdpDetail {
    durationSlots = durationSlots.clone();
  }

  public static XdpDetail read(ByteBuffer b, int offset) {
    String name = NameBytes.text(NameBytes.read(b, offset));
    int p = offset + NameBytes.SIZE;
    return new XdpDetail(name, b.getLong(p), b.getLong(p + 8), GsoDetail.longs(b, p + 16, DurationBuckets.SLOTS));
  }

  @Override
  public long[] durationSlots() {
    return durationSlots.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof XdpDetail d && kernelName.equals(d.kernelName) && timed == d.timed
        && timedNanos == d.timedNanos && Arrays.equals(durationSlots, d.durationSlots);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(timed);
  }
}

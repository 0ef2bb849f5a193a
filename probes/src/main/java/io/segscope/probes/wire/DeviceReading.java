package io.segscope.probes.wire;

import java.util.Objects;
import java.util.Optional;

/**
 * Everything the programs counted for one device since they were attached.
 *
 * @param key the device as the programs key it
 * @param kernelName its name when the programs first counted it (a fallback: the inventory names devices)
 * @param counts its counters summed over CPUs
 * @param offloadedSkbs GSO super-packets handed intact to the driver (derived: {@link Counts#offloadedRaw()},
 *     clamped at 0 and never decreasing between reads)
 * @param gso present once the device segmented in software
 * @param xdp present once a generic-XDP copy on the device was timed
 */
public record DeviceReading(DeviceKey key, String kernelName, Counts counts, long offloadedSkbs,
    Optional<GsoDetail> gso, Optional<XdpDetail> xdp) {
  public DeviceReading {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(kernelName, "kernelName");
    Objects.requireNonNull(counts, "counts");
    Objects.requireNonNull(gso, "gso");
    Objects.requireNonNull(xdp, "xdp");
  }
}

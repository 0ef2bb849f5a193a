package io.segscope.probes.wire;

import io.segscope.device.DeviceId;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything the programs counted for one device since they were attached.
 *
 * @param id the device the programs counted it under ({@code struct dev_key})
 * @param kernelName its name when the programs first counted it (a fallback: the inventory names devices)
 * @param counts its counters summed over CPUs
 * @param offloadedSkbs GSO super-packets handed intact to the driver (derived: {@link Counts#offloadedRaw()},
 *     clamped at 0 and never decreasing between reads)
 * @param gso present once the device segmented in software
 * @param xdp present once a generic-XDP copy on the device was timed
 */
public record DeviceReading(DeviceId id, String kernelName, Counts counts, long offloadedSkbs,
    Optional<GsoDetail> gso, Optional<XdpDetail> xdp) {
  public DeviceReading {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(kernelName, "kernelName");
    Objects.requireNonNull(counts, "counts");
    Objects.requireNonNull(gso, "gso");
    Objects.requireNonNull(xdp, "xdp");
  }
}

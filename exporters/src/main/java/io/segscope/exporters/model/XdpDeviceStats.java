package io.segscope.exporters.model;

import java.util.Optional;

/**
 * Generic (skb-mode) XDP on one receiving device, as counted by one probe mode. Counters are
 * cumulative; keeping them monotonic across source resets is the producer's job (see
 * {@link GsoDeviceStats}).
 *
 * @param device the device with the generic XDP program
 * @param mode the probe mode that measured it: {@code kprobe}, {@code fentry} or {@code tracepoint}
 * @param copiedSkbs skbs copied or linearized before the program ran
 * @param passedSkbs skbs that reached the program without a copy
 * @param copiedBytes bytes copied or linearized
 * @param passedBytes bytes of the skbs that needed no copy
 * @param copyDuration time of one copy in seconds; empty when the mode cannot time copies (the
 *     exporter then emits no duration series for this device)
 */
public record XdpDeviceStats(
    DeviceRef device,
    String mode,
    long copiedSkbs,
    long passedSkbs,
    long copiedBytes,
    long passedBytes,
    Optional<NativeHistogram> copyDuration) {
  public XdpDeviceStats {
    Checks.notNull(device, "XdpDeviceStats.device");
    Checks.notBlank(mode, "XdpDeviceStats.mode");
    Checks.notNegative(copiedSkbs, "XdpDeviceStats.copiedSkbs");
    Checks.notNegative(passedSkbs, "XdpDeviceStats.passedSkbs");
    Checks.notNegative(copiedBytes, "XdpDeviceStats.copiedBytes");
    Checks.notNegative(passedBytes, "XdpDeviceStats.passedBytes");
    Checks.notNull(copyDuration, "XdpDeviceStats.copyDuration");
  }
}

package io.segscope.probes;

import io.segscope.device.DeviceId;
import io.segscope.probes.program.CallSites;
import java.util.List;
import java.util.Optional;

/**
 * What the agent needs of running probes: the seam between telemetry and the kernel.
 * {@link ProbeSession} is the real one; tests use fakes.
 */
public interface ProbeSource {
  /** Every device's cumulative counters and the diagnostics. */
  ProbeReading read() throws ProbeException;

  /** Every planned program, attached or not. */
  List<ProbeAttachment> attachments();

  /** The mode a path runs in, empty when it is not measured. */
  Optional<ProbeMode> mode(MeasuredPath path);

  /** The label of the mode a path runs in ({@code tracepoint}, {@code kprobe}, {@code fentry}), "" when none. */
  default String modeLabel(MeasuredPath path) {
    return mode(path).map(ProbeMode::label).orElse("");
  }

  /** Whether any device has a generic XDP program (on-demand programs follow). */
  void setGenericXdpPresent(boolean present) throws ProbeException;

  /** Whether software segmentation is being seen (on-demand programs follow). */
  void setSegmentationSeen(boolean seen) throws ProbeException;

  /**
   * Opens or closes a sampling window of the timing programs when one is due ({@link Timing}); called
   * by the agent's pipeline scheduler every {@link #TIMING_TICK}. Nothing for sources without windows.
   */
  default void tickTimingWindows() {}

  /** How often the pipeline scheduler ticks {@link #tickTimingWindows()}. */
  java.time.Duration TIMING_TICK = java.time.Duration.ofMillis(100);

  /** Drops a vanished device's entries. */
  void forget(DeviceId key) throws ProbeException;

  /** Run statistics of every loaded program. */
  List<ProgramRunStats> programStats();

  /**
   * The segmentation call sites the session looked for and where this kernel has them (empty when
   * the source resolves none: fakes, or a mode that needs none).
   */
  default List<CallSites.Resolution> callSites() {
    return List.of();
  }
}

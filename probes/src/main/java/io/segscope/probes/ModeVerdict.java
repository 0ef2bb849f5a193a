package io.segscope.probes;

import java.util.Objects;

/**
 * Whether one mode can measure one path on this kernel, and if not, why.
 *
 * @param mode the mode tried
 * @param usable true when every check and trial attach passed
 * @param reason why not (first line of the failure, e.g. {@code "bcc_func_load kfunc____skb_gso_segment:
 *     Operation not permitted (errno 1)"}); "" when usable
 */
public record ModeVerdict(ProbeMode mode, boolean usable, String reason) {
  public ModeVerdict {
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(reason, "reason");
    if (usable != reason.isEmpty()) {
      throw new IllegalArgumentException("create verdict for " + mode.label()
          + ": a usable mode has no reason, an unusable one must have one");
    }
  }

  static ModeVerdict usable(ProbeMode mode) {
    return new ModeVerdict(mode, true, "");
  }

  static ModeVerdict unusable(ProbeMode mode, String reason) {
    return new ModeVerdict(mode, false, reason);
  }

  /** {@code "fentry: <reason>"} or {@code "tracepoint: usable"}. */
  public String describe() {
    return mode.label() + ": " + (usable ? "usable" : reason);
  }
}

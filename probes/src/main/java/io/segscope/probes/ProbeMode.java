package io.segscope.probes;

import java.util.Arrays;
import java.util.Locale;

/**
 * How a measured path is attached to the kernel, best first. The {@link #label()} is the {@code mode}
 * label of every metric the path produces.
 */
public enum ProbeMode {
  /** fentry/fexit (BPF trampolines, needs BTF): the cheapest and exact. */
  FENTRY,
  /** kprobe/kretprobe on the same functions: exact, a little costlier. */
  KPROBE,
  /** Stable tracepoints only: counts and causes; times GSO by correlation; cannot time XDP copies. */
  TRACEPOINT;

  /** {@code fentry}, {@code kprobe} or {@code tracepoint}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The mode of that label, case-insensitively.
   *
   * @throws IllegalArgumentException naming the accepted labels
   */
  public static ProbeMode parse(String label) {
    for (ProbeMode m : values()) {
      if (m.label().equalsIgnoreCase(label.strip())) {
        return m;
      }
    }
    throw new IllegalArgumentException("parse probe mode '" + label + "': expected one of "
        + Arrays.stream(values()).map(ProbeMode::label).toList());
  }
}

package io.segscope.probes;

import io.segscope.probes.load.AttachPoint;
import java.util.Locale;

/**
 * How the tracepoint programs of a session are attached, cheapest first (measured on the development
 * machine: an empty program costs ~38 ns per event as tp_btf, ~35 as raw_tp, ~95 as a classic
 * tracepoint, whose perf record the kernel fills before the program runs). One choice for the whole
 * session, by trial attach.
 */
public enum TracepointAttach {
  /** BTF-typed raw tracepoint: no perf record; arguments are BTF-typed, fields read with plain loads. */
  TP_BTF("tp_btf"),
  /** Raw tracepoint: no perf record; fields read with bpf_probe_read_kernel. */
  RAW_TP("raw_tp"),
  /** Classic tracepoint through perf: the kernel builds the event record first. */
  CLASSIC("tracepoint");

  private final String label;

  TracepointAttach(String label) {
    this.label = label;
  }

  /** {@code tp_btf}, {@code raw_tp}, {@code tracepoint}: the {@code attach} label. */
  public String label() {
    return label;
  }

  /** The -D flag selecting this flavour's entry points in the C text. */
  public String cflag() {
    return "-DTP_ATTACH_" + (this == TP_BTF ? "BTF" : this == RAW_TP ? "RAW" : "CLASSIC") + "=1";
  }

  /** The C function of the program on {@code category:event} in this flavour. */
  public String function(String category, String event) {
    return switch (this) {
      case TP_BTF -> "tp_btf__" + event;
      case RAW_TP -> "raw_tp__" + event;
      case CLASSIC -> "tp__" + event;
    };
  }

  /** Where the program on {@code category:event} attaches in this flavour. */
  public AttachPoint point(String category, String event) {
    return switch (this) {
      case TP_BTF -> new AttachPoint.TpBtf(event);
      case RAW_TP -> new AttachPoint.RawTp(event);
      case CLASSIC -> new AttachPoint.Tracepoint(category, event);
    };
  }

  public static TracepointAttach parse(String label) {
    for (TracepointAttach a : values()) {
      if (a.label.equalsIgnoreCase(label.strip()) || a.name().equalsIgnoreCase(label.strip())) {
        return a;
      }
    }
    throw new IllegalArgumentException("parse tracepoint attach type '" + label + "': expected tp_btf, raw_tp "
        + "or tracepoint");
  }

  @Override
  public String toString() {
    return label.toLowerCase(Locale.ROOT);
  }
}

package io.segscope.probes;

import java.util.ArrayList;
import java.util.List;

/**
 * One BPF program of a path in a mode: its function name in the BPF C text and where it attaches.
 *
 * @param function the C function, e.g. {@code kprobe____skb_gso_segment} (BCC naming: {@code kfunc__},
 *     {@code kretfunc__}, {@code kprobe__}, {@code kretprobe__}, {@code tracepoint__<cat>__<event>})
 * @param kind how it attaches
 * @param target the kernel function, or {@code category:event} for a tracepoint
 */
public record ProgramSpec(String function, Kind kind, String target) {

  /** How a program attaches. */
  public enum Kind {
    FENTRY("fentry"),
    FEXIT("fexit"),
    KPROBE("kprobe"),
    KRETPROBE("kretprobe"),
    TRACEPOINT("tracepoint");

    private final String prefix;

    Kind(String prefix) {
      this.prefix = prefix;
    }

    /** Whether the target is a kernel function (rather than a tracepoint). */
    public boolean onFunction() {
      return this != TRACEPOINT;
    }
  }

  /** {@code kprobe:__skb_gso_segment}, {@code tracepoint:net:net_dev_queue}, ... */
  public String describe() {
    return kind.prefix + ":" + target;
  }

  static ProgramSpec tracepoint(String category, String event) {
    return new ProgramSpec("tracepoint__" + category + "__" + event, Kind.TRACEPOINT, category + ":" + event);
  }

  /** The program attached to a kernel function's entry or return in {@code mode}. */
  static ProgramSpec onFunction(ProbeMode mode, String kernelFunction, boolean exit) {
    return switch (mode) {
      case FENTRY -> new ProgramSpec((exit ? "kretfunc__" : "kfunc__") + kernelFunction,
          exit ? Kind.FEXIT : Kind.FENTRY, kernelFunction);
      case KPROBE -> new ProgramSpec((exit ? "kretprobe__" : "kprobe__") + kernelFunction,
          exit ? Kind.KRETPROBE : Kind.KPROBE, kernelFunction);
      case TRACEPOINT -> throw new IllegalArgumentException("attach " + kernelFunction
          + ": tracepoint mode has no function programs");
    };
  }

  /**
   * Every program of {@code path} in {@code mode}, in attach order. Must match the BPF C resources
   * ({@code bpf/gso_*.c}, {@code bpf/xdp_*.c}).
   */
  public static List<ProgramSpec> of(MeasuredPath path, ProbeMode mode) {
    List<ProgramSpec> specs = new ArrayList<>();
    switch (path) {
      case GSO_TX -> {
        if (mode == ProbeMode.TRACEPOINT) {
          specs.add(tracepoint("net", "net_dev_queue"));
          specs.add(tracepoint("qdisc", "qdisc_dequeue"));
          specs.add(tracepoint("skb", "consume_skb"));
        } else {
          specs.add(onFunction(mode, "__skb_gso_segment", false));
          specs.add(onFunction(mode, "__skb_gso_segment", true));
        }
        specs.add(tracepoint("net", "net_dev_start_xmit"));
      }
      case XDP_GENERIC -> {
        if (mode == ProbeMode.TRACEPOINT) {
          specs.add(tracepoint("net", "netif_receive_skb"));
        } else {
          specs.add(onFunction(mode, "do_xdp_generic", false));
          specs.add(onFunction(mode, "bpf_prog_run_generic_xdp", false));
        }
      }
      default -> throw new IllegalArgumentException("list programs of " + path + ": unknown path");
    }
    return List.copyOf(specs);
  }
}

package io.segscope.probes;

import io.segscope.probes.load.AttachPoint;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * One BPF program of a path: its function in the C text, where it attaches, and whether it runs all
 * the time or only on demand: a program on a per-packet hook that only matters while something exists
 * to measure (netif_receive_skb while a generic XDP program exists), or a <em>timing</em> program
 * (net_dev_queue, qdisc_dequeue: the start stamps and the queued count), attached only in the sampling
 * windows ({@link Timing}) that open while software segmentation is seen.
 *
 * @param function the C function, e.g. {@code tp_btf__consume_skb}, {@code kprobe____skb_gso_segment}
 * @param point where it attaches (which also decides how it is loaded)
 * @param onDemand attached only while the agent says it is needed
 * @param sampled a timing program: attached only in sampling windows (implies {@code onDemand})
 */
public record ProgramSpec(String function, AttachPoint point, boolean onDemand, boolean sampled) {
  public ProgramSpec {
    Objects.requireNonNull(function, "function");
    Objects.requireNonNull(point, "point");
    if (sampled && !onDemand) {
      throw new IllegalArgumentException("program " + function + ": a sampled program is attached on demand");
    }
  }

  /** A program that is not a timing program. */
  public ProgramSpec(String function, AttachPoint point, boolean onDemand) {
    this(function, point, onDemand, false);
  }

  /** {@code tp_btf:consume_skb}, {@code kprobe:__skb_gso_segment}, ... */
  public String describe() {
    return point.describe();
  }

  /** Whether it attaches to a kernel function (kprobe, fentry) rather than a tracepoint. */
  public boolean onFunction() {
    return point instanceof AttachPoint.Kprobe || point instanceof AttachPoint.Fentry;
  }

  /** The program on a tracepoint in flavour {@code tp}. */
  static ProgramSpec tracepoint(TracepointAttach tp, String category, String event, boolean onDemand,
      boolean sampled) {
    return new ProgramSpec(tp.function(category, event), tp.point(category, event), onDemand || sampled, sampled);
  }

  /** The program at the entry or return of a kernel function in {@code mode}. */
  static ProgramSpec onFunction(ProbeMode mode, String kernelFunction, boolean exit) {
    return switch (mode) {
      case FENTRY -> new ProgramSpec((exit ? "kretfunc__" : "kfunc__") + kernelFunction,
          new AttachPoint.Fentry(kernelFunction, exit), false);
      case KPROBE -> new ProgramSpec((exit ? "kretprobe__" : "kprobe__") + kernelFunction,
          new AttachPoint.Kprobe(kernelFunction, exit), false);
      case TRACEPOINT -> throw new IllegalArgumentException("attach " + kernelFunction
          + ": tracepoint mode has no function programs");
    };
  }

  private static ProgramSpec timing(ProgramSpec s) {
    return new ProgramSpec(s.function(), s.point(), true, true);
  }

  /** The tracepoints (category, event) a path uses in {@code mode}, in attach order. */
  static List<String[]> tracepoints(MeasuredPath path, ProbeMode mode) {
    List<String[]> tps = new ArrayList<>();
    switch (path) {
      case GSO_TX -> {
        tps.add(new String[] {"net", "net_dev_queue"});
        tps.add(new String[] {"skb", "kfree_skb"});
        if (mode == ProbeMode.TRACEPOINT) {
          tps.add(new String[] {"skb", "consume_skb"});
          tps.add(new String[] {"qdisc", "qdisc_dequeue"});
        }
      }
      case XDP_GENERIC -> {
        if (mode == ProbeMode.TRACEPOINT) {
          tps.add(new String[] {"net", "netif_receive_skb"});
        }
      }
      default -> throw new IllegalArgumentException("list tracepoints of " + path + ": unknown path");
    }
    return tps;
  }

  /** The tracepoint events of every path in every mode. */
  static Set<String> everyTracepointEvent() {
    Set<String> out = new TreeSet<>();
    for (MeasuredPath path : MeasuredPath.values()) {
      for (ProbeMode mode : ProbeMode.values()) {
        tracepoints(path, mode).forEach(t -> out.add(t[1]));
      }
    }
    return out;
  }

  /** The kernel functions of every path in every mode. */
  static Set<String> everyFunction() {
    Set<String> out = new TreeSet<>();
    for (MeasuredPath path : MeasuredPath.values()) {
      for (ProbeMode mode : ProbeMode.values()) {
        out.addAll(functions(path, mode));
      }
    }
    return out;
  }

  /** The kernel functions a path attaches to in {@code mode} (kprobe/fentry), in attach order. */
  static List<String> functions(MeasuredPath path, ProbeMode mode) {
    if (mode == ProbeMode.TRACEPOINT) {
      return List.of();
    }
    return switch (path) {
      case GSO_TX -> List.of("__skb_gso_segment");
      case XDP_GENERIC -> List.of("do_xdp_generic", "bpf_prog_run_generic_xdp");
    };
  }

  /**
   * Every program of {@code path} in {@code mode}, tracepoints attached as {@code tp}, in attach order.
   * Must match the C text ({@code bpf/gso.c}, {@code bpf/xdp.c}).
   */
  public static List<ProgramSpec> of(MeasuredPath path, ProbeMode mode, TracepointAttach tp) {
    List<ProgramSpec> specs = new ArrayList<>();
    for (String[] t : tracepoints(path, mode)) {
      // the timing programs: start stamps and the queued count, in sampling windows only
      boolean sampled = t[1].equals("qdisc_dequeue") || t[1].equals("net_dev_queue");
      specs.add(tracepoint(tp, t[0], t[1], t[1].equals("netif_receive_skb"), sampled));
    }
    switch (path) {
      case GSO_TX -> {
        if (mode != ProbeMode.TRACEPOINT) {
          // one counting program, always attached, and one timing program (sampling windows only): fentry mode
          // counts at the exit (fexit) and stamps at the entry; kprobe mode counts at the entry (the skb intact,
          // the caller from the word at sp, which a kretprobe would replace) and times at the exit (kretprobe)
          ProgramSpec entry = onFunction(mode, "__skb_gso_segment", false);
          ProgramSpec exit = onFunction(mode, "__skb_gso_segment", true);
          specs.add(mode == ProbeMode.FENTRY ? timing(entry) : entry);
          specs.add(mode == ProbeMode.KPROBE ? timing(exit) : exit);
        }
      }
      case XDP_GENERIC -> {
        if (mode != ProbeMode.TRACEPOINT) {
          specs.add(onFunction(mode, "do_xdp_generic", false));
          specs.add(onFunction(mode, "bpf_prog_run_generic_xdp", false));
        }
      }
      default -> throw new IllegalArgumentException("list programs of " + path + ": unknown path");
    }
    return List.copyOf(specs);
  }
}

package io.segscope.probes.load;

import java.util.Objects;

/**
 * Where a program attaches, which also decides how it is loaded (program type, expected attach type,
 * BTF target). Cheapest first for tracepoints: {@link TpBtf} (BTF-typed raw tracepoint: no perf
 * record, typed loads), {@link RawTp} (raw tracepoint: no perf record, probe reads), {@link Tracepoint}
 * (classic: the kernel fills a perf record first).
 */
public sealed interface AttachPoint {

  /** {@code tp_btf:net_dev_queue}, {@code kprobe:__skb_gso_segment}, ... */
  String describe();

  /** The attach type's name as shown in metrics and doctor: tp_btf, raw_tp, tracepoint, kprobe, kretprobe, fentry, fexit. */
  String kind();

  /** A BTF-typed raw tracepoint program (BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP). */
  record TpBtf(String event) implements AttachPoint {
    public TpBtf {
      Objects.requireNonNull(event, "event");
    }

    @Override
    public String describe() {
      return "tp_btf:" + event;
    }

    @Override
    public String kind() {
      return "tp_btf";
    }
  }

  /** A raw tracepoint program (BPF_PROG_TYPE_RAW_TRACEPOINT). */
  record RawTp(String event) implements AttachPoint {
    @Override
    public String describe() {
      return "raw_tp:" + event;
    }

    @Override
    public String kind() {
      return "raw_tp";
    }
  }

  /** A classic tracepoint (BPF_PROG_TYPE_TRACEPOINT through perf_event_open). */
  record Tracepoint(String category, String event) implements AttachPoint {
    @Override
    public String describe() {
      return "tracepoint:" + category + ":" + event;
    }

    @Override
    public String kind() {
      return "tracepoint";
    }
  }

  /** A kprobe or kretprobe on a kernel function (BPF_PROG_TYPE_KPROBE through the kprobe PMU). */
  record Kprobe(String function, boolean ret) implements AttachPoint {
    @Override
    public String describe() {
      return kind() + ":" + function;
    }

    @Override
    public String kind() {
      return ret ? "kretprobe" : "kprobe";
    }
  }

  /** An fentry or fexit program on a kernel function (BPF_PROG_TYPE_TRACING, BPF_TRACE_FENTRY/FEXIT). */
  record Fentry(String function, boolean exit) implements AttachPoint {
    @Override
    public String describe() {
      return kind() + ":" + function;
    }

    @Override
    public String kind() {
      return exit ? "fexit" : "fentry";
    }
  }
}

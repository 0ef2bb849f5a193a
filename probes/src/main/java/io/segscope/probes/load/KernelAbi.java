package io.segscope.probes.load;

import io.segscope.probes.btf.Btf;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The uapi numbers a program load needs, taken from the running kernel's BTF enums where it has them
 * (feature probing, not version checks), else the uapi values (which are append-only).
 */
public final class KernelAbi {
  final int progTypeKprobe;
  final int progTypeTracepoint;
  final int progTypeRawTracepoint;
  final int progTypeTracing;
  final int attachTraceRawTp;
  final int attachTraceFentry;
  final int attachTraceFexit;
  /** The whole BTF for lookups on demand, or null once the ids a session can need are resolved. */
  private final Btf btf;
  private final Map<String, OptionalInt> tracepointIds;
  private final Map<String, OptionalInt> functionIds;
  /** The BTF id of the kfunc bpf_rdonly_cast; empty on kernels without it (before 6.2) or without BTF. */
  final OptionalInt rdonlyCast;

  private KernelAbi(Btf btf, Map<String, OptionalInt> tracepointIds, Map<String, OptionalInt> functionIds) {
    this.btf = tracepointIds == null ? btf : null;
    this.tracepointIds = tracepointIds;
    this.functionIds = functionIds;
    rdonlyCast = btf == null ? OptionalInt.empty() : btf.functionId(Kfuncs.RDONLY_CAST);
    progTypeKprobe = value(btf, "BPF_PROG_TYPE_KPROBE", 2);
    progTypeTracepoint = value(btf, "BPF_PROG_TYPE_TRACEPOINT", 5);
    progTypeRawTracepoint = value(btf, "BPF_PROG_TYPE_RAW_TRACEPOINT", 17);
    progTypeTracing = value(btf, "BPF_PROG_TYPE_TRACING", 26);
    attachTraceRawTp = value(btf, "BPF_TRACE_RAW_TP", 23);
    attachTraceFentry = value(btf, "BPF_TRACE_FENTRY", 24);
    attachTraceFexit = value(btf, "BPF_TRACE_FEXIT", 25);
  }

  /**
   * From the kernel's BTF ({@code btf} may be null: uapi values, and no BTF-typed programs), answering
   * any tracepoint or function: keeps the whole parsed BTF (tens of MiB of names), so for short-lived
   * use (a trial load). A long-lived object uses {@link #resolving}.
   */
  public static KernelAbi of(Btf btf) {
    return new KernelAbi(btf, null, null);
  }

  /**
   * From the kernel's BTF, with the BTF ids of exactly these tracepoint events and functions resolved
   * now and the BTF itself not kept: what a session that loads programs later (on demand) holds for its
   * whole life. Asking later for an event or function not named here is a programming error.
   */
  public static KernelAbi resolving(Btf btf, Collection<String> events, Collection<String> functions) {
    Map<String, OptionalInt> tps = new HashMap<>();
    Map<String, OptionalInt> fns = new HashMap<>();
    for (String e : events) {
      tps.put(e, btf == null ? OptionalInt.empty() : btf.typedefId("btf_trace_" + e));
    }
    for (String f : functions) {
      fns.put(f, btf == null ? OptionalInt.empty() : btf.functionId(f));
    }
    return new KernelAbi(btf, Map.copyOf(tps), Map.copyOf(fns));
  }

  private static OptionalInt resolved(Map<String, OptionalInt> ids, String name, String what) {
    OptionalInt id = ids.get(name);
    if (id == null) {
      throw new IllegalStateException("look up the BTF id of " + what + " " + name
          + ": not among those resolved when the session opened " + ids.keySet());
    }
    return id;
  }

  private static int value(Btf btf, String enumerator, int uapi) {
    if (btf == null) {
      return uapi;
    }
    return (int) btf.findEnumValue(enumerator).orElse(uapi);
  }

  /** The BTF id a tp_btf program of {@code event} names: the typedef {@code btf_trace_<event>}. */
  OptionalInt tracepointBtfId(String event) {
    if (tracepointIds != null) {
      return resolved(tracepointIds, event, "tracepoint");
    }
    return btf == null ? OptionalInt.empty() : btf.typedefId("btf_trace_" + event);
  }

  /** The BTF id an fentry/fexit program of {@code function} names: its FUNC. */
  OptionalInt functionBtfId(String function) {
    if (functionIds != null) {
      return resolved(functionIds, function, "function");
    }
    return btf == null ? OptionalInt.empty() : btf.functionId(function);
  }
}

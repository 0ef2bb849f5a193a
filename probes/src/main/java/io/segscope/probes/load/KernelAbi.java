package io.segscope.probes.load;

import io.segscope.probes.btf.Btf;
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
  private final Btf btf;

  private KernelAbi(Btf btf) {
    this.btf = btf;
    progTypeKprobe = value(btf, "BPF_PROG_TYPE_KPROBE", 2);
    progTypeTracepoint = value(btf, "BPF_PROG_TYPE_TRACEPOINT", 5);
    progTypeRawTracepoint = value(btf, "BPF_PROG_TYPE_RAW_TRACEPOINT", 17);
    progTypeTracing = value(btf, "BPF_PROG_TYPE_TRACING", 26);
    attachTraceRawTp = value(btf, "BPF_TRACE_RAW_TP", 23);
    attachTraceFentry = value(btf, "BPF_TRACE_FENTRY", 24);
    attachTraceFexit = value(btf, "BPF_TRACE_FEXIT", 25);
  }

  /** From the kernel's BTF ({@code btf} may be null: uapi values, and no BTF-typed programs). */
  public static KernelAbi of(Btf btf) {
    return new KernelAbi(btf);
  }

  private static int value(Btf btf, String enumerator, int uapi) {
    if (btf == null) {
      return uapi;
    }
    return (int) btf.findEnumValue(enumerator).orElse(uapi);
  }

  /** The BTF id a tp_btf program of {@code event} names: the typedef {@code btf_trace_<event>}. */
  OptionalInt tracepointBtfId(String event) {
    return btf == null ? OptionalInt.empty() : btf.typedefId("btf_trace_" + event);
  }

  /** The BTF id an fentry/fexit program of {@code function} names: its FUNC. */
  OptionalInt functionBtfId(String function) {
    return btf == null ? OptionalInt.empty() : btf.functionId(function);
  }
}

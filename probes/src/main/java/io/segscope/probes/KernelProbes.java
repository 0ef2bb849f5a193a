package io.segscope.probes;

import io.segscope.probes.load.AttachPoint;
import java.util.List;
import java.util.Optional;

/**
 * The questions {@link ProbePlan} asks the running kernel: feature probes (what exists, what attaches),
 * never version numbers. {@link LiveKernelProbes} answers them for real; tests answer with fakes.
 * An empty {@code Optional<String>} means "fine"; a present one is the reason it is not.
 */
public interface KernelProbes {

  /** Why the kernel's BTF cannot be used (needed by fentry), empty when it can. */
  Optional<String> btfMissing();

  /** Whether the kernel's BTF has a FUNC of that name. */
  boolean btfHasFunction(String function);

  /** Why /proc/kallsyms cannot be used, empty when it can. */
  Optional<String> kallsymsUnreadable();

  /**
   * The text symbols in /proc/kallsyms named {@code function} or one of its compiler clones
   * ({@code function.isra.0}, {@code function.constprop.0}, ...); empty when inlined or absent.
   */
  List<String> functionAndClones(String function);

  /** Why kprobes cannot be created at all (e.g. CONFIG_KPROBES unset), empty when they can. */
  Optional<String> kprobesUnsupported();

  /** Why the tracepoint {@code category:event} cannot be used (absent, tracefs missing), empty when it can. */
  Optional<String> tracepointMissing(String category, String event);

  /**
   * Why the tracepoint {@code category:event} has no field {@code field} in its format (older kernels
   * lack some), empty when it has it. Only asked for tracepoints that exist.
   */
  Optional<String> tracepointFieldMissing(String category, String event, String field);

  /**
   * The arguments a BTF-typed or raw tracepoint program of {@code event} receives, by name (from the
   * kernel's BTF {@code btf_trace_<event>} prototype); empty when BTF does not describe it.
   */
  Optional<List<String>> tracepointArgs(String event);

  /**
   * Loads an empty program for {@code point}, attaches it and detaches it again: empty when that
   * worked, else the failure (e.g. {@code "bpf BPF_PROG_LOAD segscope_trial: Permission denied (errno 1)"}).
   */
  Optional<String> tryAttach(AttachPoint point);
}

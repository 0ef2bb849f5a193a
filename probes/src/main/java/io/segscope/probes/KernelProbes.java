package io.segscope.probes;

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
   * Loads an empty program of {@code spec}'s kind and attaches it to its kernel function, then leaves it
   * to be detached on close: empty when that worked, else the failure's first line (e.g.
   * {@code "bcc_func_load kfunc____skb_gso_segment: Operation not permitted (errno 1)"}).
   */
  Optional<String> tryAttach(ProgramSpec spec);
}

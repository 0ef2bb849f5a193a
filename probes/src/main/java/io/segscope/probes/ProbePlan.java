package io.segscope.probes;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which mode each measured path uses on this kernel, decided by feature probes (does the function
 * exist under its exact name, does a trial program load and attach) rather than by version numbers.
 *
 * <p>For each path the modes are tried best first, fentry → kprobe → tracepoint, and the first usable
 * one wins; every mode tried keeps its verdict, so "why not fentry" is always answerable. A forced mode
 * ({@code --probe-mode kprobe}) is the only one tried; a path it cannot measure makes
 * {@link #failure()} non-empty. In auto mode a path no mode can measure stays in the plan, unmeasured,
 * with its reasons (reported, never silently missing).
 *
 * <p>Checks per mode: <b>fentry</b> — kernel BTF, a BTF FUNC and an exact /proc/kallsyms name for
 * each target (a compiler clone such as {@code validate_xmit_skb.isra.0} or an inlined function rules it
 * out), the path's tracepoints, then a trial load + attach of each fentry/fexit program.
 * <b>kprobe</b> — kprobe support (the kprobe PMU or tracefs kprobe_events), exact kallsyms names,
 * tracepoints, then a trial attach of each kprobe/kretprobe. <b>tracepoint</b> — the tracepoints
 * exist, and for gso_tx {@code skb:consume_skb} has its {@code location} field (6.3+) and
 * {@code validate_xmit_skb} (or its clones, at most two) is in kallsyms.
 */
public final class ProbePlan {
  private final Optional<ProbeMode> forced;
  private final Map<MeasuredPath, PathPlan> paths;

  private ProbePlan(Optional<ProbeMode> forced, Map<MeasuredPath, PathPlan> paths) {
    this.forced = forced;
    this.paths = paths;
  }

  /**
   * Decides the plan by asking {@code kernel}.
   *
   * @param forced the only mode to try, or empty for auto (best first)
   */
  public static ProbePlan decide(Optional<ProbeMode> forced, KernelProbes kernel) {
    Objects.requireNonNull(forced, "forced");
    Objects.requireNonNull(kernel, "kernel");
    Map<MeasuredPath, PathPlan> plans = new EnumMap<>(MeasuredPath.class);
    List<ProbeMode> order = forced.map(List::of).orElse(List.of(ProbeMode.values()));
    for (MeasuredPath path : MeasuredPath.values()) {
      List<ModeVerdict> verdicts = new ArrayList<>();
      Optional<ProbeMode> chosen = Optional.empty();
      for (ProbeMode mode : order) {
        ModeVerdict v = verdict(path, mode, kernel);
        verdicts.add(v);
        if (v.usable()) {
          chosen = Optional.of(mode);
          break;
        }
      }
      plans.put(path, new PathPlan(path, chosen, verdicts));
    }
    return new ProbePlan(forced, plans);
  }

  /**
   * Decides the plan against the running kernel ({@link LiveKernelProbes}): trial programs are attached
   * and detached again before this returns.
   */
  public static ProbePlan decide(Optional<ProbeMode> forced) {
    try (LiveKernelProbes kernel = LiveKernelProbes.open()) {
      return decide(forced, kernel);
    }
  }

  static ModeVerdict verdict(MeasuredPath path, ProbeMode mode, KernelProbes kernel) {
    List<ProgramSpec> specs = ProgramSpec.of(path, mode);
    Optional<String> problem = mode == ProbeMode.TRACEPOINT
        ? tracepointProblem(path, specs, kernel)
        : functionProblem(path, mode, specs, kernel);
    return problem.map(r -> ModeVerdict.unusable(mode, r)).orElseGet(() -> ModeVerdict.usable(mode));
  }

  private static Optional<String> tracepointProblem(MeasuredPath path, List<ProgramSpec> specs,
      KernelProbes kernel) {
    Optional<String> missing = missingTracepoint(specs, kernel);
    if (missing.isPresent() || path != MeasuredPath.GSO_TX) {
      return missing;
    }
    // skb:consume_skb's location (since 6.3) tells segmentation apart, through validate_xmit_skb's address range
    Optional<String> location = kernel.tracepointFieldMissing("skb", "consume_skb", "location");
    if (location.isPresent()) {
      return Optional.of(location.get() + ": kernels before 6.3 do not say where an skb was consumed, so "
          + "software segmentation cannot be told apart");
    }
    Optional<String> kallsyms = kernel.kallsymsUnreadable();
    if (kallsyms.isPresent()) {
      return kallsyms;
    }
    List<String> vxs = kernel.functionAndClones("validate_xmit_skb");
    if (vxs.isEmpty()) {
      return Optional.of("validate_xmit_skb is not in /proc/kallsyms (inlined into its callers?): "
          + "skb:consume_skb's location cannot tell software segmentation apart");
    }
    if (vxs.size() > 2) {
      return Optional.of("validate_xmit_skb has " + vxs.size() + " copies in /proc/kallsyms " + vxs
          + ", the tracepoint program handles at most 2");
    }
    return Optional.empty();
  }

  private static Optional<String> functionProblem(MeasuredPath path, ProbeMode mode, List<ProgramSpec> specs,
      KernelProbes kernel) {
    Optional<String> general = mode == ProbeMode.FENTRY ? kernel.btfMissing() : kernel.kprobesUnsupported();
    if (general.isPresent()) {
      return general;
    }
    Optional<String> kallsyms = kernel.kallsymsUnreadable();
    if (kallsyms.isPresent()) {
      return kallsyms;
    }
    Set<String> functions = specs.stream().filter(s -> s.kind().onFunction()).map(ProgramSpec::target)
        .collect(Collectors.toCollection(LinkedHashSet::new));
    for (String fn : functions) {
      Optional<String> absent = absence(path, mode, fn, kernel);
      if (absent.isPresent()) {
        return absent;
      }
    }
    Optional<String> missing = missingTracepoint(specs, kernel);
    if (missing.isPresent()) {
      return missing;
    }
    for (ProgramSpec s : specs) {
      if (s.kind().onFunction()) {
        Optional<String> failed = kernel.tryAttach(s);
        if (failed.isPresent()) {
          return failed;
        }
      }
    }
    return Optional.empty();
  }

  private static Optional<String> absence(MeasuredPath path, ProbeMode mode, String fn, KernelProbes kernel) {
    if (mode == ProbeMode.FENTRY && !kernel.btfHasFunction(fn)) {
      return Optional.of(withHint(fn + " has no BTF FUNC in the kernel's BTF", path.absenceHint(fn)));
    }
    List<String> syms = kernel.functionAndClones(fn);
    if (syms.contains(fn)) {
      return Optional.empty();
    }
    if (syms.isEmpty()) {
      return Optional.of(withHint(fn + " is not in /proc/kallsyms (inlined into its callers, or absent "
          + "from this kernel)", path.absenceHint(fn)));
    }
    return Optional.of(fn + " exists only as the compiler's renamed clone " + String.join(", ", syms)
        + " (whose arguments may differ): attaching by name cannot resolve it");
  }

  private static String withHint(String reason, String hint) {
    return hint.isEmpty() ? reason : reason + ": " + hint;
  }

  private static Optional<String> missingTracepoint(List<ProgramSpec> specs, KernelProbes kernel) {
    for (ProgramSpec s : specs) {
      if (s.kind() == ProgramSpec.Kind.TRACEPOINT) {
        String[] ce = s.target().split(":", 2);
        Optional<String> missing = kernel.tracepointMissing(ce[0], ce[1]);
        if (missing.isPresent()) {
          return missing;
        }
      }
    }
    return Optional.empty();
  }

  /** The forced mode, empty in auto mode. */
  public Optional<ProbeMode> forced() {
    return forced;
  }

  /** Every path's plan, in {@link MeasuredPath} order. */
  public List<PathPlan> paths() {
    return List.copyOf(paths.values());
  }

  public PathPlan path(MeasuredPath path) {
    return paths.get(path);
  }

  /** The mode label of each measured path, by path label (what the metrics' {@code mode} label says). */
  public Map<String, String> modeLabels() {
    Map<String, String> m = new LinkedHashMap<>();
    for (PathPlan p : paths.values()) {
      p.mode().ifPresent(mode -> m.put(p.path().label(), mode.label()));
    }
    return Collections.unmodifiableMap(m);
  }

  /**
   * Why this plan cannot be run: a forced mode that some path cannot use, or no path measurable at
   * all. Empty when it can run (in auto mode an unmeasured path alone is reported, not fatal).
   */
  public Optional<String> failure() {
    List<String> unmeasured = paths.values().stream().filter(p -> !p.measured())
        .map(p -> p.path().label() + ": " + p.reason()).toList();
    if (forced.isPresent() && !unmeasured.isEmpty()) {
      return Optional.of("use probe mode " + forced.get().label() + ": " + String.join("; ", unmeasured));
    }
    if (unmeasured.size() == paths.size()) {
      return Optional.of("attach probes: no mode works for any path: " + String.join("; ", unmeasured));
    }
    return Optional.empty();
  }

  /**
   * {@code -D} flags selecting each measured path's programs in the BPF C text:
   * {@code -DGSO_MODE_FENTRY=1}, {@code -DXDP_MODE_TRACEPOINT=1}, ... (none for an unmeasured path).
   */
  public List<String> cflags() {
    List<String> flags = new ArrayList<>();
    for (PathPlan p : paths.values()) {
      String prefix = p.path() == MeasuredPath.GSO_TX ? "GSO" : "XDP";
      p.mode().ifPresent(m -> flags.add("-D" + prefix + "_MODE_" + m.name() + "=1"));
    }
    return flags;
  }

  /** One line per path: {@link PathPlan#describe()}. */
  public String describe() {
    return paths.values().stream().map(PathPlan::describe).collect(Collectors.joining("\n"));
  }
}

package io.segscope.probes;

import io.segscope.probes.load.AttachPoint;
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
 * Which mode each measured path uses on this kernel, and how its tracepoint programs attach, decided
 * by feature probes (does the function exist under its exact name, does a trial program load and
 * attach) rather than by version numbers.
 *
 * <p>For each path the modes are tried best first, fentry → kprobe → tracepoint, and the first usable
 * one wins; every mode tried keeps its verdict, so "why not fentry" is always answerable. A forced mode
 * ({@code --probe-mode kprobe}) is the only one tried; a path it cannot measure makes
 * {@link #failure()} non-empty. In auto mode a path no mode can measure stays in the plan, unmeasured,
 * with its reasons (reported, never silently missing). A mode may also be ruled out after the plan, when
 * its real program fails to load ({@link #without}).
 *
 * <p>Then one attach type for every tracepoint program the chosen modes use, cheapest first:
 * tp_btf → raw_tp → classic tracepoint ({@link TracepointAttach}), the first whose prototypes match
 * what the programs read and whose trial attaches on every event.
 *
 * <p>Checks per mode: <b>fentry</b> — kernel BTF, a BTF FUNC and an exact /proc/kallsyms name for each
 * target (a compiler clone such as {@code validate_xmit_skb.isra.0} or an inlined function rules it
 * out), the path's tracepoints, then a trial fentry/fexit attach of each target. <b>kprobe</b> — kprobe
 * support (the kprobe PMU), exact kallsyms names, tracepoints, a trial attach. <b>tracepoint</b> — the
 * tracepoints exist, and for gso_tx {@code skb:consume_skb} has its {@code location} field (6.3+) and
 * {@code validate_xmit_skb} (or a clone) is in kallsyms.
 */
public final class ProbePlan {
  /** The arguments the programs read from each tracepoint, by position (tp_btf and raw_tp). */
  static final Map<String, List<String>> TRACEPOINT_ARGS = Map.of(
      "net_dev_queue", List.of("struct sk_buff *"),
      "kfree_skb", List.of("struct sk_buff *", "void *"),
      "consume_skb", List.of("struct sk_buff *", "void *"),
      "qdisc_dequeue", List.of("struct Qdisc *", "struct netdev_queue *", "int", "struct sk_buff *"),
      "netif_receive_skb", List.of("struct sk_buff *"));

  private final Optional<ProbeMode> forced;
  private final Map<MeasuredPath, PathPlan> paths;
  private final TracepointAttach tracepoints;
  private final List<String> tracepointVerdicts;

  private ProbePlan(Optional<ProbeMode> forced, Map<MeasuredPath, PathPlan> paths, TracepointAttach tracepoints,
      List<String> tracepointVerdicts) {
    this.forced = forced;
    this.paths = paths;
    this.tracepoints = tracepoints;
    this.tracepointVerdicts = List.copyOf(tracepointVerdicts);
  }

  /**
   * Decides the plan by asking {@code kernel}.
   *
   * @param forced the only mode to try, or empty for auto (best first)
   * @param forcedAttach the only tracepoint attach type to try, or empty for the cheapest that works
   */
  public static ProbePlan decide(Optional<ProbeMode> forced, Optional<TracepointAttach> forcedAttach,
      KernelProbes kernel) {
    return decide(forced, forcedAttach, kernel, Map.of());
  }

  /** As above, for kernels where the existing verdicts of {@code ruledOut} stand (a real load failed). */
  static ProbePlan decide(Optional<ProbeMode> forced, Optional<TracepointAttach> forcedAttach, KernelProbes kernel,
      Map<MeasuredPath, Map<ProbeMode, String>> ruledOut) {
    Objects.requireNonNull(forced, "forced");
    Objects.requireNonNull(forcedAttach, "forcedAttach");
    Objects.requireNonNull(kernel, "kernel");
    Map<MeasuredPath, PathPlan> plans = new EnumMap<>(MeasuredPath.class);
    List<ProbeMode> order = forced.map(List::of).orElse(List.of(ProbeMode.values()));
    for (MeasuredPath path : MeasuredPath.values()) {
      List<ModeVerdict> verdicts = new ArrayList<>();
      Optional<ProbeMode> chosen = Optional.empty();
      for (ProbeMode mode : order) {
        String out = ruledOut.getOrDefault(path, Map.of()).get(mode);
        ModeVerdict v = out != null ? ModeVerdict.unusable(mode, out) : verdict(path, mode, kernel);
        verdicts.add(v);
        if (v.usable()) {
          chosen = Optional.of(mode);
          break;
        }
      }
      plans.put(path, new PathPlan(path, chosen, verdicts));
    }
    Set<String[]> events = new LinkedHashSet<>();
    for (PathPlan p : plans.values()) {
      p.mode().ifPresent(m -> events.addAll(ProgramSpec.tracepoints(p.path(), m)));
    }
    List<String> attachVerdicts = new ArrayList<>();
    TracepointAttach attach = null;
    List<TracepointAttach> attachOrder = forcedAttach.map(List::of).orElse(List.of(TracepointAttach.values()));
    for (TracepointAttach a : attachOrder) {
      Optional<String> problem = attachProblem(a, events, kernel);
      if (problem.isEmpty()) {
        attach = a;
        break;
      }
      attachVerdicts.add(a.label() + ": " + problem.get());
    }
    if (attach == null) {
      // no attach type works: every path that needs tracepoints is unmeasured, with the reasons
      String why = "no tracepoint attach type works (" + String.join("; ", attachVerdicts) + ")";
      for (MeasuredPath path : MeasuredPath.values()) {
        PathPlan p = plans.get(path);
        if (p.measured() && !ProgramSpec.tracepoints(path, p.mode().get()).isEmpty()) {
          List<ModeVerdict> v = new ArrayList<>(p.verdicts());
          v.set(v.size() - 1, ModeVerdict.unusable(p.mode().get(), why));
          plans.put(path, new PathPlan(path, Optional.empty(), v));
        }
      }
      attach = attachOrder.get(attachOrder.size() - 1);
    }
    return new ProbePlan(forced, plans, attach, attachVerdicts);
  }

  /**
   * Decides the plan against the running kernel ({@link LiveKernelProbes}): trial programs are attached
   * and detached again before this returns.
   */
  public static ProbePlan decide(Optional<ProbeMode> forced, Optional<TracepointAttach> forcedAttach) {
    try (LiveKernelProbes kernel = LiveKernelProbes.open()) {
      return decide(forced, forcedAttach, kernel);
    }
  }

  /** The plan again with {@code mode} ruled out for {@code path} because {@code reason} (a real load failed). */
  public ProbePlan without(MeasuredPath path, ProbeMode mode, String reason, KernelProbes kernel) {
    return without(List.of(new RuledOut(path, mode, reason)), kernel);
  }

  /** A mode ruled out for a path after the plan, and why (its real program failed to load). */
  public record RuledOut(MeasuredPath path, ProbeMode mode, String reason) {
    public RuledOut {
      Objects.requireNonNull(path, "path");
      Objects.requireNonNull(mode, "mode");
      Objects.requireNonNull(reason, "reason");
    }
  }

  /**
   * The plan again with every mode of {@code ruledOut} ruled out for its path, decided once: when several
   * paths' real programs failed in one attempt, each falls back at once (one compile for all of them).
   */
  public ProbePlan without(List<RuledOut> ruledOut, KernelProbes kernel) {
    Map<MeasuredPath, Map<ProbeMode, String>> out = new EnumMap<>(MeasuredPath.class);
    for (PathPlan p : paths.values()) {
      Map<ProbeMode, String> m = new EnumMap<>(ProbeMode.class);
      for (ModeVerdict v : p.verdicts()) {
        if (!v.usable()) {
          m.put(v.mode(), v.reason());
        }
      }
      out.put(p.path(), m);
    }
    for (RuledOut r : ruledOut) {
      out.get(r.path()).put(r.mode(), r.reason());
    }
    return decide(forced, Optional.of(tracepoints), kernel, out);
  }

  static ModeVerdict verdict(MeasuredPath path, ProbeMode mode, KernelProbes kernel) {
    Optional<String> problem = mode == ProbeMode.TRACEPOINT
        ? tracepointProblem(path, kernel)
        : functionProblem(path, mode, kernel);
    return problem.map(r -> ModeVerdict.unusable(mode, r)).orElseGet(() -> ModeVerdict.usable(mode));
  }

  private static Optional<String> tracepointProblem(MeasuredPath path, KernelProbes kernel) {
    Optional<String> missing = missingTracepoint(path, ProbeMode.TRACEPOINT, kernel);
    if (missing.isPresent() || path != MeasuredPath.GSO_TX) {
      return missing;
    }
    // skb:consume_skb's location (6.3+) says where the original of a segmented super-packet was freed
    Optional<String> location = kernel.tracepointFieldMissing("skb", "consume_skb", "location");
    if (location.isPresent()) {
      return Optional.of(location.get() + ": kernels before 6.3 do not say where an skb was consumed, so "
          + "software segmentation cannot be told apart");
    }
    Optional<String> kallsyms = kernel.kallsymsUnreadable();
    if (kallsyms.isPresent()) {
      return kallsyms;
    }
    if (kernel.functionAndClones("validate_xmit_skb").isEmpty()) {
      return Optional.of("validate_xmit_skb is not in /proc/kallsyms (inlined into its callers?): "
          + "skb:consume_skb's location cannot tell software segmentation apart");
    }
    return Optional.empty();
  }

  private static Optional<String> functionProblem(MeasuredPath path, ProbeMode mode, KernelProbes kernel) {
    Optional<String> general = mode == ProbeMode.FENTRY ? kernel.btfMissing() : kernel.kprobesUnsupported();
    if (general.isPresent()) {
      return general;
    }
    Optional<String> kallsyms = kernel.kallsymsUnreadable();
    if (kallsyms.isPresent()) {
      return kallsyms;
    }
    for (String fn : ProgramSpec.functions(path, mode)) {
      Optional<String> absent = absence(path, mode, fn, kernel);
      if (absent.isPresent()) {
        return absent;
      }
    }
    Optional<String> missing = missingTracepoint(path, mode, kernel);
    if (missing.isPresent()) {
      return missing;
    }
    for (ProgramSpec s : ProgramSpec.of(path, mode, TracepointAttach.CLASSIC)) {
      if (s.onFunction()) {
        Optional<String> failed = kernel.tryAttach(s.point());
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

  private static Optional<String> missingTracepoint(MeasuredPath path, ProbeMode mode, KernelProbes kernel) {
    for (String[] t : ProgramSpec.tracepoints(path, mode)) {
      Optional<String> missing = kernel.tracepointMissing(t[0], t[1]);
      if (missing.isPresent()) {
        return missing;
      }
    }
    return Optional.empty();
  }

  /** Why {@code attach} cannot serve every event in {@code events}, empty when it can. */
  static Optional<String> attachProblem(TracepointAttach attach, Set<String[]> events, KernelProbes kernel) {
    for (String[] e : events) {
      if (attach != TracepointAttach.CLASSIC) {
        List<String> want = TRACEPOINT_ARGS.get(e[1]);
        Optional<List<String>> args = kernel.tracepointArgs(e[1]);
        if (args.isEmpty()) {
          return Optional.of("the kernel's BTF has no prototype btf_trace_" + e[1]);
        }
        if (args.get().size() < want.size() || !args.get().subList(0, want.size()).equals(want)) {
          return Optional.of(e[1] + " passes " + args.get() + ", the programs read " + want);
        }
      }
      AttachPoint point = attach.point(e[0], e[1]);
      Optional<String> failed = kernel.tryAttach(point);
      if (failed.isPresent()) {
        return failed;
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

  /** How every tracepoint program attaches. */
  public TracepointAttach tracepointAttach() {
    return tracepoints;
  }

  /** Why cheaper tracepoint attach types are out: {@code ["tp_btf: ..."]}; empty when the cheapest works. */
  public List<String> tracepointAttachVerdicts() {
    return tracepointVerdicts;
  }

  /** Every program to load, by path, in attach order (none for an unmeasured path). */
  public List<ProgramSpec> programs(MeasuredPath path) {
    PathPlan p = paths.get(path);
    return p.mode().map(m -> ProgramSpec.of(path, m, tracepoints)).orElse(List.of());
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
   * {@code -DGSO_MODE_FENTRY=1}, {@code -DXDP_MODE_TRACEPOINT=1}, ... (none for an unmeasured path),
   * and the tracepoint attach flavour.
   */
  public List<String> cflags() {
    List<String> flags = new ArrayList<>();
    for (PathPlan p : paths.values()) {
      String prefix = p.path() == MeasuredPath.GSO_TX ? "GSO" : "XDP";
      p.mode().ifPresent(m -> flags.add("-D" + prefix + "_MODE_" + m.name() + "=1"));
    }
    flags.add(tracepoints.cflag());
    return flags;
  }

  /** One line per path: {@link PathPlan#describe()}, then the tracepoint attach type. */
  public String describe() {
    String attach = "tracepoints: " + tracepoints.label()
        + (tracepointVerdicts.isEmpty() ? "" : " (" + String.join("; ", tracepointVerdicts) + ")");
    return paths.values().stream().map(PathPlan::describe).collect(Collectors.joining("\n")) + "\n" + attach;
  }
}

package io.segscope.probes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The plan's decisions against fake kernels: every fallback and every reason. */
class ProbePlanTest {

  /** A kernel described by sets; by default a stock 6.1-like kernel where everything works. */
  static final class FakeKernel implements KernelProbes {
    String btfProblem;
    String kallsymsProblem;
    String kprobeProblem;
    final Set<String> btfFunctions = new HashSet<>(Set.of("__skb_gso_segment", "do_xdp_generic",
        "bpf_prog_run_generic_xdp", "validate_xmit_skb"));
    final Map<String, List<String>> symbols = new HashMap<>(Map.of(
        "__skb_gso_segment", List.of("__skb_gso_segment"),
        "do_xdp_generic", List.of("do_xdp_generic"),
        "bpf_prog_run_generic_xdp", List.of("bpf_prog_run_generic_xdp"),
        "validate_xmit_skb", List.of("validate_xmit_skb.isra.0")));
    final Set<String> missingTracepoints = new HashSet<>();
    final Set<String> missingFields = new HashSet<>();
    final Map<ProgramSpec.Kind, String> refusedKinds = new HashMap<>();
    final List<String> attachTries = new ArrayList<>();

    @Override
    public Optional<String> btfMissing() {
      return Optional.ofNullable(btfProblem);
    }

    @Override
    public boolean btfHasFunction(String function) {
      return btfProblem == null && btfFunctions.contains(function);
    }

    @Override
    public Optional<String> kallsymsUnreadable() {
      return Optional.ofNullable(kallsymsProblem);
    }

    @Override
    public List<String> functionAndClones(String function) {
      return symbols.getOrDefault(function, List.of());
    }

    @Override
    public Optional<String> kprobesUnsupported() {
      return Optional.ofNullable(kprobeProblem);
    }

    @Override
    public Optional<String> tracepointMissing(String category, String event) {
      String tp = category + ":" + event;
      return missingTracepoints.contains(tp) ? Optional.of("tracepoint " + tp + " does not exist") : Optional.empty();
    }

    @Override
    public Optional<String> tracepointFieldMissing(String category, String event, String field) {
      String f = category + ":" + event + "." + field;
      return missingFields.contains(f) ? Optional.of("tracepoint " + category + ":" + event + " has no field '"
          + field + "'") : Optional.empty();
    }

    @Override
    public Optional<String> tryAttach(ProgramSpec spec) {
      attachTries.add(spec.function());
      return Optional.ofNullable(refusedKinds.get(spec.kind()))
          .map(why -> "attach " + spec.function() + ": " + why);
    }

    /** The development kernel: fentry refused at load, no kprobes. */
    static FakeKernel development() {
      FakeKernel k = new FakeKernel();
      k.refusedKinds.put(ProgramSpec.Kind.FENTRY, "Operation not permitted (errno 1)");
      k.refusedKinds.put(ProgramSpec.Kind.FEXIT, "Operation not permitted (errno 1)");
      k.kprobeProblem = "CONFIG_KPROBES is not set";
      return k;
    }
  }

  private static ProbePlan auto(FakeKernel k) {
    return ProbePlan.decide(Optional.empty(), k);
  }

  @Test
  void aCapableKernelGetsFentryEverywhereAndNothingWorseIsTried() {
    FakeKernel k = new FakeKernel();
    ProbePlan plan = auto(k);
    for (PathPlan p : plan.paths()) {
      assertThat(p.mode()).contains(ProbeMode.FENTRY);
      assertThat(p.verdicts()).containsExactly(new ModeVerdict(ProbeMode.FENTRY, true, ""));
      assertThat(p.reason()).isEmpty();
    }
    assertThat(k.attachTries).containsExactly("kfunc____skb_gso_segment", "kretfunc____skb_gso_segment",
        "kfunc__do_xdp_generic", "kfunc__bpf_prog_run_generic_xdp");
    assertThat(plan.cflags()).containsExactly("-DGSO_MODE_FENTRY=1", "-DXDP_MODE_FENTRY=1");
    assertThat(plan.failure()).isEmpty();
    assertThat(plan.modeLabels()).containsExactly(Map.entry("gso_tx", "fentry"), Map.entry("xdp_generic", "fentry"));
  }

  @Test
  void aRefusedFentryFallsBackToKprobeWithTheRefusalAsReason() {
    FakeKernel k = new FakeKernel();
    k.refusedKinds.put(ProgramSpec.Kind.FEXIT, "Device or resource busy (errno 16)");
    ProbePlan plan = auto(k);
    PathPlan gso = plan.path(MeasuredPath.GSO_TX);
    assertThat(gso.mode()).contains(ProbeMode.KPROBE);
    assertThat(gso.reason()).isEqualTo(
        "fentry: attach kretfunc____skb_gso_segment: Device or resource busy (errno 16)");
    assertThat(plan.path(MeasuredPath.XDP_GENERIC).mode()).as("no fexit there").contains(ProbeMode.FENTRY);
    assertThat(plan.cflags()).containsExactly("-DGSO_MODE_KPROBE=1", "-DXDP_MODE_FENTRY=1");
  }

  @Test
  void theDevelopmentKernelFallsBackToTracepointsWithBothReasons() {
    FakeKernel k = FakeKernel.development();
    ProbePlan plan = auto(k);
    PathPlan gso = plan.path(MeasuredPath.GSO_TX);
    assertThat(gso.mode()).contains(ProbeMode.TRACEPOINT);
    assertThat(gso.verdicts()).extracting(ModeVerdict::mode)
        .containsExactly(ProbeMode.FENTRY, ProbeMode.KPROBE, ProbeMode.TRACEPOINT);
    assertThat(gso.describe()).isEqualTo("gso_tx: tracepoint (fentry: attach kfunc____skb_gso_segment: "
        + "Operation not permitted (errno 1); kprobe: CONFIG_KPROBES is not set)");
    assertThat(k.attachTries).as("kprobes are not tried without kprobe support")
        .noneMatch(f -> f.startsWith("kprobe") || f.startsWith("kretprobe"));
    assertThat(plan.cflags()).containsExactly("-DGSO_MODE_TRACEPOINT=1", "-DXDP_MODE_TRACEPOINT=1");
  }

  @Test
  void aRenamedCloneRulesOutFunctionModesWithoutATrialAttach() {
    FakeKernel k = new FakeKernel();
    k.symbols.put("__skb_gso_segment", List.of("__skb_gso_segment.isra.0"));
    PathPlan gso = auto(k).path(MeasuredPath.GSO_TX);
    assertThat(gso.mode()).contains(ProbeMode.TRACEPOINT);
    assertThat(gso.verdict(ProbeMode.FENTRY).orElseThrow().reason()).isEqualTo("__skb_gso_segment exists only"
        + " as the compiler's renamed clone __skb_gso_segment.isra.0 (whose arguments may differ): attaching by"
        + " name cannot resolve it");
    assertThat(gso.verdict(ProbeMode.KPROBE).orElseThrow().reason()).contains("renamed clone");
    assertThat(k.attachTries).noneMatch(f -> f.endsWith("__skb_gso_segment"));
  }

  @Test
  void anInlinedFunctionIsNamedAsSuch() {
    FakeKernel k = new FakeKernel();
    k.symbols.remove("__skb_gso_segment");
    k.btfFunctions.remove("__skb_gso_segment");
    PathPlan gso = auto(k).path(MeasuredPath.GSO_TX);
    assertThat(gso.verdict(ProbeMode.FENTRY).orElseThrow().reason())
        .isEqualTo("__skb_gso_segment has no BTF FUNC in the kernel's BTF");
    assertThat(gso.verdict(ProbeMode.KPROBE).orElseThrow().reason())
        .isEqualTo("__skb_gso_segment is not in /proc/kallsyms (inlined into its callers, or absent from this kernel)");
  }

  @Test
  void withoutBpfProgRunGenericXdpTheXdpPathSaysWhyAndUsesTracepoints() {
    FakeKernel k = new FakeKernel();
    k.symbols.remove("bpf_prog_run_generic_xdp");
    k.btfFunctions.remove("bpf_prog_run_generic_xdp");
    ProbePlan plan = auto(k);
    PathPlan xdp = plan.path(MeasuredPath.XDP_GENERIC);
    assertThat(xdp.mode()).contains(ProbeMode.TRACEPOINT);
    assertThat(xdp.verdict(ProbeMode.KPROBE).orElseThrow().reason())
        .startsWith("bpf_prog_run_generic_xdp is not in /proc/kallsyms").contains("before 5.15");
    assertThat(plan.path(MeasuredPath.GSO_TX).mode()).contains(ProbeMode.FENTRY);
  }

  @Test
  void missingBtfRulesOutFentryOnly() {
    FakeKernel k = new FakeKernel();
    k.btfProblem = "no usable kernel BTF: read BTF /sys/kernel/btf/vmlinux: NoSuchFileException";
    PathPlan gso = auto(k).path(MeasuredPath.GSO_TX);
    assertThat(gso.mode()).contains(ProbeMode.KPROBE);
    assertThat(gso.reason()).isEqualTo("fentry: " + k.btfProblem);
  }

  @Test
  void aForcedModeIsTheOnlyOneTriedAndFailsTheRunWhenUnusable() {
    FakeKernel k = FakeKernel.development();
    ProbePlan plan = ProbePlan.decide(Optional.of(ProbeMode.KPROBE), k);
    assertThat(plan.paths()).allSatisfy(p -> {
      assertThat(p.measured()).isFalse();
      assertThat(p.verdicts()).extracting(ModeVerdict::mode).containsExactly(ProbeMode.KPROBE);
    });
    assertThat(plan.failure()).contains("use probe mode kprobe: gso_tx: kprobe: CONFIG_KPROBES is not set; "
        + "xdp_generic: kprobe: CONFIG_KPROBES is not set");
    assertThat(plan.cflags()).isEmpty();
    assertThatThrownBy(() -> ProbeSession.open(plan)).isInstanceOf(ProbeException.class)
        .hasMessage(plan.failure().get());
  }

  @Test
  void aForcedTracepointModeIsUsedEvenWhereFentryWouldWork() {
    FakeKernel k = new FakeKernel();
    ProbePlan plan = ProbePlan.decide(Optional.of(ProbeMode.TRACEPOINT), k);
    assertThat(plan.modeLabels()).containsEntry("gso_tx", "tracepoint").containsEntry("xdp_generic", "tracepoint");
    assertThat(k.attachTries).isEmpty();
    assertThat(plan.failure()).isEmpty();
  }

  @Test
  void aPathNoModeCanMeasureIsReportedButDoesNotStopTheOthers() {
    FakeKernel k = FakeKernel.development();
    k.symbols.remove("validate_xmit_skb");
    ProbePlan plan = auto(k);
    PathPlan gso = plan.path(MeasuredPath.GSO_TX);
    assertThat(gso.measured()).isFalse();
    assertThat(gso.programs()).isEmpty();
    assertThat(gso.describe()).startsWith("gso_tx: not measured (fentry: ").contains(
        "tracepoint: validate_xmit_skb is not in /proc/kallsyms (inlined into its callers?)");
    assertThat(plan.failure()).isEmpty();
    assertThat(plan.cflags()).containsExactly("-DXDP_MODE_TRACEPOINT=1");

    k.missingTracepoints.add("net:netif_receive_skb");
    assertThat(auto(k).failure()).hasValueSatisfying(f -> assertThat(f)
        .startsWith("attach probes: no mode works for any path: gso_tx: ")
        .contains("xdp_generic: ").contains("tracepoint net:netif_receive_skb does not exist"));
  }

  @Test
  void withoutConsumeSkbLocationGsoTracepointModeIsOutAndSaysWhy() {
    FakeKernel k = FakeKernel.development();
    k.missingFields.add("skb:consume_skb.location");
    ProbePlan plan = auto(k);
    assertThat(plan.path(MeasuredPath.GSO_TX).verdict(ProbeMode.TRACEPOINT).orElseThrow().reason())
        .isEqualTo("tracepoint skb:consume_skb has no field 'location': kernels before 6.3 do not say where an"
            + " skb was consumed, so software segmentation cannot be told apart");
    assertThat(plan.path(MeasuredPath.XDP_GENERIC).mode()).contains(ProbeMode.TRACEPOINT);
  }

  @Test
  void anUnmeasuredPathIsReportedAsItsProgramsNotAttachedWithTheReason() {
    FakeKernel k = FakeKernel.development();
    k.symbols.remove("validate_xmit_skb");
    PathPlan gso = auto(k).path(MeasuredPath.GSO_TX);
    assertThat(ProbeSession.unmeasured(gso)).hasSize(4).allSatisfy(a -> {
      assertThat(a.path()).isEqualTo("gso_tx");
      assertThat(a.mode()).isEqualTo("tracepoint");
      assertThat(a.attached()).isFalse();
      assertThat(a.detail()).startsWith("not measured: fentry: ").contains("validate_xmit_skb is not in /proc/kallsyms");
    }).extracting(ProbeAttachment::program).contains("tracepoint__skb__consume_skb");
  }

  @Test
  void tooManyValidateXmitSkbCopiesRuleOutTracepointMode() {
    FakeKernel k = FakeKernel.development();
    k.symbols.put("validate_xmit_skb", List.of("validate_xmit_skb", "validate_xmit_skb.isra.0",
        "validate_xmit_skb.part.0"));
    assertThat(auto(k).path(MeasuredPath.GSO_TX).verdict(ProbeMode.TRACEPOINT).orElseThrow().reason())
        .startsWith("validate_xmit_skb has 3 copies in /proc/kallsyms");
  }

  @Test
  void unreadableKallsymsIsTheReasonForFunctionModes() {
    FakeKernel k = new FakeKernel();
    k.kallsymsProblem = "read /proc/kallsyms: every address is 0";
    PathPlan gso = auto(k).path(MeasuredPath.GSO_TX);
    assertThat(gso.measured()).isFalse();
    assertThat(gso.verdicts()).allSatisfy(v -> assertThat(v.reason()).isEqualTo(k.kallsymsProblem));
  }

  @Test
  void aMissingTracepointOfAFunctionModeIsItsReason() {
    FakeKernel k = new FakeKernel();
    k.missingTracepoints.add("net:net_dev_start_xmit");
    PathPlan gso = auto(k).path(MeasuredPath.GSO_TX);
    assertThat(gso.measured()).isFalse();
    assertThat(gso.verdict(ProbeMode.FENTRY).orElseThrow().reason())
        .isEqualTo("tracepoint net:net_dev_start_xmit does not exist");
  }

  @Test
  void verdictsAndModesRejectNonsense() {
    assertThatThrownBy(() -> new ModeVerdict(ProbeMode.KPROBE, true, "but why"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ModeVerdict(ProbeMode.KPROBE, false, ""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new PathPlan(MeasuredPath.GSO_TX, Optional.of(ProbeMode.KPROBE), List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(ProbeMode.parse(" Kprobe")).isEqualTo(ProbeMode.KPROBE);
    assertThatThrownBy(() -> ProbeMode.parse("uprobe")).hasMessage(
        "parse probe mode 'uprobe': expected one of [fentry, kprobe, tracepoint]");
  }

  @Test
  void everyProgramOfEveryModeIsDefinedInTheBpfText() {
    String text = ProbeSession.programText();
    for (MeasuredPath path : MeasuredPath.values()) {
      for (ProbeMode mode : ProbeMode.values()) {
        for (ProgramSpec s : ProgramSpec.of(path, mode)) {
          String definition = switch (s.kind()) {
            case FENTRY -> "KFUNC_PROBE(" + s.target() + ",";
            case FEXIT -> "KRETFUNC_PROBE(" + s.target() + ",";
            case KPROBE, KRETPROBE -> "int " + s.function() + "(struct pt_regs *ctx)";
            case TRACEPOINT -> "TRACEPOINT_PROBE(" + s.target().replace(":", ", ") + ")";
          };
          assertThat(text).as("%s of %s in %s mode", s.function(), path, mode).contains(definition);
        }
      }
    }
    assertThat(LiveKernelProbes.trialText()).contains("KFUNC_PROBE(__skb_gso_segment)",
        "KRETFUNC_PROBE(__skb_gso_segment)", "int kretprobe____skb_gso_segment(struct pt_regs *ctx)",
        "KFUNC_PROBE(bpf_prog_run_generic_xdp)", "int kprobe__do_xdp_generic(struct pt_regs *ctx)");
  }
}

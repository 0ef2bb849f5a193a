package io.segscope.probes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.segscope.probes.load.AttachPoint;
import io.segscope.probes.program.ProgramText;
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
    /** Attach kinds (AttachPoint.kind(): fentry, fexit, kprobe, tp_btf, raw_tp, ...) the kernel refuses. */
    final Map<String, String> refusedKinds = new HashMap<>();
    final List<String> attachTries = new ArrayList<>();
    /** tp_btf/raw_tp prototypes; by default what 6.18 passes. */
    final Map<String, List<String>> tracepointArgs = new HashMap<>(Map.of(
        "net_dev_queue", List.of("struct sk_buff *"),
        "kfree_skb", List.of("struct sk_buff *", "void *", "enum skb_drop_reason", "struct sock *"),
        "consume_skb", List.of("struct sk_buff *", "void *"),
        "qdisc_dequeue", List.of("struct Qdisc *", "struct netdev_queue *", "int", "struct sk_buff *"),
        "netif_receive_skb", List.of("struct sk_buff *")));

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
    public Optional<List<String>> tracepointArgs(String event) {
      return Optional.ofNullable(tracepointArgs.get(event));
    }

    @Override
    public Optional<String> tryAttach(AttachPoint point) {
      attachTries.add(point.describe());
      return Optional.ofNullable(refusedKinds.get(point.kind())).map(why -> "attach " + point.describe() + ": " + why);
    }

    /** The development kernel: fentry refused at load, no kprobes. */
    static FakeKernel development() {
      FakeKernel k = new FakeKernel();
      k.refusedKinds.put("fentry", "Operation not permitted (errno 1)");
      k.refusedKinds.put("fexit", "Operation not permitted (errno 1)");
      k.kprobeProblem = "CONFIG_KPROBES is not set";
      return k;
    }
  }

  private static ProbePlan auto(FakeKernel k) {
    return ProbePlan.decide(Optional.empty(), Optional.empty(), k);
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
    assertThat(k.attachTries).containsExactly("fentry:__skb_gso_segment", "fexit:__skb_gso_segment",
        "fentry:do_xdp_generic", "fentry:bpf_prog_run_generic_xdp",
        "tp_btf:net_dev_queue", "tp_btf:kfree_skb");
    assertThat(plan.cflags()).containsExactly("-DGSO_MODE_FENTRY=1", "-DXDP_MODE_FENTRY=1", "-DTP_ATTACH_BTF=1");
    assertThat(plan.tracepointAttach()).isEqualTo(TracepointAttach.TP_BTF);
    assertThat(plan.tracepointAttachVerdicts()).isEmpty();
    assertThat(plan.failure()).isEmpty();
    assertThat(plan.modeLabels()).containsExactly(Map.entry("gso_tx", "fentry"), Map.entry("xdp_generic", "fentry"));
    // issue 25: the fexit counts alone; the fentry stamp and net_dev_queue are timing programs
    assertThat(plan.programs(MeasuredPath.GSO_TX)).filteredOn(ProgramSpec::sampled).extracting(ProgramSpec::function)
        .containsExactlyInAnyOrder("kfunc____skb_gso_segment", "tp_btf__net_dev_queue");
    assertThat(plan.programs(MeasuredPath.GSO_TX)).filteredOn(s -> !s.onDemand()).extracting(ProgramSpec::function)
        .containsExactlyInAnyOrder("kretfunc____skb_gso_segment", "tp_btf__kfree_skb");
  }

  @Test
  void aRefusedFentryFallsBackToKprobeWithTheRefusalAsReason() {
    FakeKernel k = new FakeKernel();
    k.refusedKinds.put("fexit", "Device or resource busy (errno 16)");
    ProbePlan plan = auto(k);
    PathPlan gso = plan.path(MeasuredPath.GSO_TX);
    assertThat(gso.mode()).contains(ProbeMode.KPROBE);
    assertThat(gso.reason()).isEqualTo(
        "fentry: attach fexit:__skb_gso_segment: Device or resource busy (errno 16)");
    assertThat(plan.path(MeasuredPath.XDP_GENERIC).mode()).as("no fexit there").contains(ProbeMode.FENTRY);
    assertThat(plan.cflags()).containsExactly("-DGSO_MODE_KPROBE=1", "-DXDP_MODE_FENTRY=1", "-DTP_ATTACH_BTF=1");
    // kprobe mode counts at the entry; the kretprobe (it would replace the return address the entry reads) times
    // in sampling windows only
    assertThat(plan.programs(MeasuredPath.GSO_TX)).filteredOn(ProgramSpec::sampled).extracting(ProgramSpec::function)
        .containsExactlyInAnyOrder("kretprobe____skb_gso_segment", "tp_btf__net_dev_queue");
    assertThat(plan.programs(MeasuredPath.GSO_TX)).filteredOn(s -> !s.onDemand()).extracting(ProgramSpec::function)
        .containsExactlyInAnyOrder("kprobe____skb_gso_segment", "tp_btf__kfree_skb");
  }

  @Test
  void theDevelopmentKernelFallsBackToTracepointsWithBothReasons() {
    FakeKernel k = FakeKernel.development();
    ProbePlan plan = auto(k);
    PathPlan gso = plan.path(MeasuredPath.GSO_TX);
    assertThat(gso.mode()).contains(ProbeMode.TRACEPOINT);
    assertThat(gso.verdicts()).extracting(ModeVerdict::mode)
        .containsExactly(ProbeMode.FENTRY, ProbeMode.KPROBE, ProbeMode.TRACEPOINT);
    assertThat(gso.describe()).isEqualTo("gso_tx: tracepoint (fentry: attach fentry:__skb_gso_segment: "
        + "Operation not permitted (errno 1); kprobe: CONFIG_KPROBES is not set)");
    assertThat(k.attachTries).as("kprobes are not tried without kprobe support")
        .noneMatch(f -> f.startsWith("kprobe") || f.startsWith("kretprobe"));
    assertThat(plan.cflags()).containsExactly("-DGSO_MODE_TRACEPOINT=1", "-DXDP_MODE_TRACEPOINT=1",
        "-DTP_ATTACH_BTF=1");
    assertThat(plan.programs(MeasuredPath.GSO_TX)).extracting(ProgramSpec::describe).containsExactly(
        "tp_btf:net_dev_queue", "tp_btf:kfree_skb", "tp_btf:consume_skb", "tp_btf:qdisc_dequeue");
    assertThat(plan.programs(MeasuredPath.GSO_TX)).filteredOn(ProgramSpec::onDemand)
        .extracting(ProgramSpec::function).containsExactly("tp_btf__net_dev_queue", "tp_btf__qdisc_dequeue");
    assertThat(plan.programs(MeasuredPath.GSO_TX)).filteredOn(ProgramSpec::sampled)
        .as("the timing programs run in sampling windows only")
        .extracting(ProgramSpec::function).containsExactly("tp_btf__net_dev_queue", "tp_btf__qdisc_dequeue");
    assertThat(plan.programs(MeasuredPath.XDP_GENERIC)).singleElement().satisfies(p -> {
      assertThat(p.function()).isEqualTo("tp_btf__netif_receive_skb");
      assertThat(p.onDemand()).as("fires for every received packet: only while a generic XDP program exists").isTrue();
    });
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
    assertThat(k.attachTries).noneMatch(f -> f.endsWith(":__skb_gso_segment"));
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
    ProbePlan plan = ProbePlan.decide(Optional.of(ProbeMode.KPROBE), Optional.empty(), k);
    assertThat(plan.paths()).allSatisfy(p -> {
      assertThat(p.measured()).isFalse();
      assertThat(p.verdicts()).extracting(ModeVerdict::mode).containsExactly(ProbeMode.KPROBE);
    });
    assertThat(plan.failure()).contains("use probe mode kprobe: gso_tx: kprobe: CONFIG_KPROBES is not set; "
        + "xdp_generic: kprobe: CONFIG_KPROBES is not set");
    assertThat(plan.cflags()).containsExactly("-DTP_ATTACH_BTF=1");
    assertThatThrownBy(() -> ProbeSession.open(plan, new ProbeSession.Options(4096, (n, t, f) -> {
      throw new AssertionError("nothing is compiled for a plan that cannot run");
    }))).isInstanceOf(ProbeException.class).hasMessage(plan.failure().get());
  }

  @Test
  void aForcedTracepointModeIsUsedEvenWhereFentryWouldWork() {
    FakeKernel k = new FakeKernel();
    ProbePlan plan = ProbePlan.decide(Optional.of(ProbeMode.TRACEPOINT), Optional.empty(), k);
    assertThat(plan.modeLabels()).containsEntry("gso_tx", "tracepoint").containsEntry("xdp_generic", "tracepoint");
    assertThat(k.attachTries).as("only the tracepoint attach trials").allMatch(t -> t.startsWith("tp_btf:"));
    assertThat(plan.failure()).isEmpty();
  }

  @Test
  void aPathNoModeCanMeasureIsReportedButDoesNotStopTheOthers() {
    FakeKernel k = FakeKernel.development();
    k.symbols.remove("validate_xmit_skb");
    ProbePlan plan = auto(k);
    PathPlan gso = plan.path(MeasuredPath.GSO_TX);
    assertThat(gso.measured()).isFalse();
    assertThat(auto(k).programs(MeasuredPath.GSO_TX)).isEmpty();
    assertThat(gso.describe()).startsWith("gso_tx: not measured (fentry: ").contains(
        "tracepoint: validate_xmit_skb is not in /proc/kallsyms (inlined into its callers?)");
    assertThat(plan.failure()).isEmpty();
    assertThat(plan.cflags()).containsExactly("-DXDP_MODE_TRACEPOINT=1", "-DTP_ATTACH_BTF=1");

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
  void tracepointsAttachAsTpBtfThenRawTpThenClassicWithTheReasons() {
    FakeKernel k = FakeKernel.development();
    k.refusedKinds.put("tp_btf", "Operation not permitted (errno 1)");
    ProbePlan plan = auto(k);
    assertThat(plan.tracepointAttach()).isEqualTo(TracepointAttach.RAW_TP);
    assertThat(plan.tracepointAttachVerdicts())
        .containsExactly("tp_btf: attach tp_btf:net_dev_queue: Operation not permitted (errno 1)");
    assertThat(plan.programs(MeasuredPath.GSO_TX)).extracting(ProgramSpec::function)
        .containsExactly("raw_tp__net_dev_queue", "raw_tp__kfree_skb", "raw_tp__consume_skb", "raw_tp__qdisc_dequeue");

    k.tracepointArgs.put("consume_skb", List.of("struct sk_buff *"));
    plan = auto(k);
    assertThat(plan.tracepointAttach()).isEqualTo(TracepointAttach.CLASSIC);
    assertThat(plan.tracepointAttachVerdicts().get(plan.tracepointAttachVerdicts().size() - 1))
        .isEqualTo("raw_tp: consume_skb passes [struct sk_buff *], the programs read [struct sk_buff *, void *]");
    assertThat(plan.cflags()).contains("-DTP_ATTACH_CLASSIC=1");
    assertThat(plan.programs(MeasuredPath.XDP_GENERIC)).extracting(ProgramSpec::describe)
        .containsExactly("tracepoint:net:netif_receive_skb");
  }

  @Test
  void whenNoTracepointAttachTypeWorksThePathsThatNeedThemAreUnmeasured() {
    FakeKernel k = FakeKernel.development();
    k.refusedKinds.put("tp_btf", "refused");
    k.refusedKinds.put("raw_tp", "refused");
    k.refusedKinds.put("tracepoint", "refused");
    ProbePlan plan = auto(k);
    assertThat(plan.paths()).allSatisfy(p -> assertThat(p.measured()).isFalse());
    assertThat(plan.failure()).hasValueSatisfying(f -> assertThat(f).contains("no tracepoint attach type works"));
  }

  @Test
  void aForcedTracepointAttachTypeIsTheOnlyOneTried() {
    FakeKernel k = FakeKernel.development();
    ProbePlan plan = ProbePlan.decide(Optional.empty(), Optional.of(TracepointAttach.CLASSIC), k);
    assertThat(plan.tracepointAttach()).isEqualTo(TracepointAttach.CLASSIC);
    assertThat(k.attachTries).noneMatch(t -> t.startsWith("tp_btf:") || t.startsWith("raw_tp:"));
  }

  @Test
  void aModeWhoseRealProgramFailedIsRuledOutAndTheNextOneChosen() {
    FakeKernel k = new FakeKernel();
    ProbePlan plan = auto(k);
    assertThat(plan.path(MeasuredPath.GSO_TX).mode()).contains(ProbeMode.FENTRY);
    ProbePlan again = plan.without(MeasuredPath.GSO_TX, ProbeMode.FENTRY, "its program failed to load: verifier", k);
    assertThat(again.path(MeasuredPath.GSO_TX).mode()).contains(ProbeMode.KPROBE);
    assertThat(again.path(MeasuredPath.GSO_TX).reason()).isEqualTo("fentry: its program failed to load: verifier");
    assertThat(again.path(MeasuredPath.XDP_GENERIC).mode()).as("the other path keeps its mode")
        .contains(ProbeMode.FENTRY);
  }

  @Test
  void severalPathsWhoseRealProgramsFailedFallBackInOneDecision() {
    FakeKernel k = new FakeKernel();
    ProbePlan plan = auto(k);
    ProbePlan again = plan.without(List.of(
        new ProbePlan.RuledOut(MeasuredPath.GSO_TX, ProbeMode.FENTRY, "its program failed to load: injected"),
        new ProbePlan.RuledOut(MeasuredPath.XDP_GENERIC, ProbeMode.FENTRY, "its program failed to load: verifier")),
        k);
    assertThat(again.modeLabels()).containsExactly(Map.entry("gso_tx", "kprobe"), Map.entry("xdp_generic", "kprobe"));
    assertThat(again.path(MeasuredPath.GSO_TX).reason()).isEqualTo("fentry: its program failed to load: injected");
    assertThat(again.path(MeasuredPath.XDP_GENERIC).reason())
        .isEqualTo("fentry: its program failed to load: verifier");
    assertThat(again.cflags()).containsExactly("-DGSO_MODE_KPROBE=1", "-DXDP_MODE_KPROBE=1", "-DTP_ATTACH_BTF=1");
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
    k.missingTracepoints.add("skb:kfree_skb");
    PathPlan gso = auto(k).path(MeasuredPath.GSO_TX);
    assertThat(gso.measured()).isFalse();
    assertThat(gso.verdict(ProbeMode.FENTRY).orElseThrow().reason())
        .isEqualTo("tracepoint skb:kfree_skb does not exist");
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
  void everyProgramOfEveryModeAndAttachTypeIsDefinedInTheBpfText() {
    String text = String.join("\n", ProgramText.resource("bpf/gso.c"),
        ProgramText.resource("bpf/xdp.c"));
    for (MeasuredPath path : MeasuredPath.values()) {
      for (ProbeMode mode : ProbeMode.values()) {
        for (TracepointAttach tp : TracepointAttach.values()) {
          for (ProgramSpec s : ProgramSpec.of(path, mode, tp)) {
            String definition = s.point() instanceof AttachPoint.Fentry f
                ? (f.exit() ? "KRETFUNC_PROBE(" : "KFUNC_PROBE(") + f.function() + ","
                : "int " + s.function() + "(";
            assertThat(text).as("%s of %s in %s mode, %s", s.function(), path, mode, tp).contains(definition);
          }
        }
      }
    }
  }
}

package io.segscope.probes;

import io.segscope.probes.bcc.BccException;
import io.segscope.probes.bcc.BpfModule;
import io.segscope.probes.btf.Btf;
import io.segscope.probes.btf.BtfException;
import io.segscope.probes.ksym.Kallsyms;
import io.segscope.probes.ksym.KallsymsException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@link KernelProbes} answered by the running kernel: BTF from {@code /sys/kernel/btf/vmlinux},
 * symbols from {@code /proc/kallsyms}, tracefs, the kprobe PMU, and real trial attaches.
 *
 * <p>The trial programs are empty ({@code return 0;}); all of them live in ONE module compiled on the
 * first {@link #tryAttach} (a BCC compile costs 0.4 s here, several seconds under emulation). What
 * attached stays attached until {@link #close()}, which detaches everything. Not thread-safe.
 */
public final class LiveKernelProbes implements KernelProbes, AutoCloseable {
  static final Path KPROBE_PMU = Path.of("/sys/bus/event_source/devices/kprobe");
  static final List<Path> TRACEFS = List.of(Path.of("/sys/kernel/tracing"), Path.of("/sys/kernel/debug/tracing"));

  private static final System.Logger LOG = System.getLogger(LiveKernelProbes.class.getName());

  private final Btf btf;
  private final String btfProblem;
  private final Kallsyms kallsyms;
  private final String kallsymsProblem;
  private final Map<String, Optional<String>> trials = new HashMap<>();
  private BpfModule trialModule;
  private String trialCompileProblem;

  private LiveKernelProbes(Btf btf, String btfProblem, Kallsyms kallsyms, String kallsymsProblem) {
    this.btf = btf;
    this.btfProblem = btfProblem;
    this.kallsyms = kallsyms;
    this.kallsymsProblem = kallsymsProblem;
  }

  /** Reads BTF and kallsyms (failures become reasons, not exceptions). */
  public static LiveKernelProbes open() {
    Btf btf = null;
    String btfProblem = null;
    try {
      btf = Btf.loadKernel();
    } catch (BtfException e) {
      btfProblem = "no usable kernel BTF: " + firstLine(e.getMessage());
    }
    Kallsyms ks = null;
    String ksProblem = null;
    try {
      ks = Kallsyms.load();
    } catch (KallsymsException e) {
      ksProblem = firstLine(e.getMessage());
    }
    return new LiveKernelProbes(btf, btfProblem, ks, ksProblem);
  }

  @Override
  public Optional<String> btfMissing() {
    return Optional.ofNullable(btfProblem);
  }

  @Override
  public boolean btfHasFunction(String function) {
    return btf != null && btf.hasFunction(function);
  }

  @Override
  public Optional<String> kallsymsUnreadable() {
    return Optional.ofNullable(kallsymsProblem);
  }

  @Override
  public List<String> functionAndClones(String function) {
    return kallsyms == null ? List.of()
        : kallsyms.functionAndClones(function).stream().map(Kallsyms.Symbol::name).distinct().toList();
  }

  @Override
  public Optional<String> kprobesUnsupported() {
    Optional<Path> tracefs = tracefs();
    boolean events = tracefs.isPresent() && Files.exists(tracefs.get().resolve("kprobe_events"));
    if (Files.isDirectory(KPROBE_PMU) || events) {
      return Optional.empty();
    }
    return Optional.of("CONFIG_KPROBES is not set (no " + KPROBE_PMU + ", no kprobe_events in "
        + tracefs.map(Path::toString).orElse("tracefs (not mounted)") + ")");
  }

  @Override
  public Optional<String> tracepointMissing(String category, String event) {
    Optional<Path> tracefs = tracefs();
    if (tracefs.isEmpty()) {
      return Optional.of("tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
    }
    if (!Files.isDirectory(tracefs.get().resolve("events").resolve(category).resolve(event))) {
      return Optional.of("tracepoint " + category + ":" + event + " does not exist in "
          + tracefs.get().resolve("events"));
    }
    return Optional.empty();
  }

  @Override
  public Optional<String> tracepointFieldMissing(String category, String event, String field) {
    Optional<Path> tracefs = tracefs();
    if (tracefs.isEmpty()) {
      return Optional.of("tracefs is not mounted");
    }
    Path format = tracefs.get().resolve("events").resolve(category).resolve(event).resolve("format");
    try {
      for (String line : Files.readAllLines(format)) {
        if (declaresField(line, field)) {
          return Optional.empty();
        }
      }
      return Optional.of("tracepoint " + category + ":" + event + " has no field '" + field + "' (" + format + ")");
    } catch (IOException e) {
      return Optional.of("read " + format + ": " + e.getMessage());
    }
  }

  /** A tracefs format line such as {@code "\tfield:void * location;\toffset:16;..."} declaring {@code field}. */
  static boolean declaresField(String formatLine, String field) {
    String l = formatLine.strip();
    if (!l.startsWith("field:")) {
      return false;
    }
    int semi = l.indexOf(';');
    if (semi < 0) {
      return false;
    }
    String decl = l.substring("field:".length(), semi).replaceAll("\\[[^\\]]*\\]", " ").strip();
    String[] words = decl.split("[\\s*]+");
    return words.length > 0 && words[words.length - 1].equals(field);
  }

  /** The mounted tracefs, if any. */
  static Optional<Path> tracefs() {
    return TRACEFS.stream().filter(p -> Files.isDirectory(p.resolve("events"))).findFirst();
  }

  @Override
  public Optional<String> tryAttach(ProgramSpec spec) {
    if (!spec.kind().onFunction()) {
      throw new IllegalArgumentException("try attach " + spec.describe() + ": only function programs are tried");
    }
    return trials.computeIfAbsent(spec.function(), f -> attach(spec));
  }

  private Optional<String> attach(ProgramSpec spec) {
    if (trialModule == null && trialCompileProblem == null) {
      compileTrials();
    }
    if (trialCompileProblem != null) {
      return Optional.of(trialCompileProblem);
    }
    try {
      switch (spec.kind()) {
        case FENTRY, FEXIT -> trialModule.attachKfunc(spec.function());
        case KPROBE -> trialModule.attachKprobe(spec.function(), spec.target());
        case KRETPROBE -> trialModule.attachKretprobe(spec.function(), spec.target());
        default -> throw new IllegalStateException("unreachable: " + spec.kind());
      }
      return Optional.empty();
    } catch (BccException e) {
      // the reason is the call and its errno; what libbcc printed (captured, never on the screen)
      // stays available at debug level
      LOG.log(System.Logger.Level.DEBUG, () -> "trial attach " + spec.describe() + ": " + e.getMessage());
      return Optional.of(firstLine(e.getMessage()));
    }
  }

  private void compileTrials() {
    try {
      trialModule = BpfModule.compile("segscope-trial", trialText(), List.of());
    } catch (BccException e) {
      trialCompileProblem = "compile trial programs: " + firstLine(e.getMessage());
    }
  }

  /** Empty programs for every function program of every path in fentry and kprobe mode. */
  static String trialText() {
    Set<String> lines = new LinkedHashSet<>();
    lines.add("#include <uapi/linux/ptrace.h>");
    for (MeasuredPath path : MeasuredPath.values()) {
      for (ProbeMode mode : List.of(ProbeMode.FENTRY, ProbeMode.KPROBE)) {
        for (ProgramSpec s : ProgramSpec.of(path, mode)) {
          switch (s.kind()) {
            case FENTRY -> lines.add("KFUNC_PROBE(" + s.target() + ") { return 0; }");
            case FEXIT -> lines.add("KRETFUNC_PROBE(" + s.target() + ") { return 0; }");
            case KPROBE, KRETPROBE -> lines.add("int " + s.function() + "(struct pt_regs *ctx) { return 0; }");
            default -> { }
          }
        }
      }
    }
    return String.join("\n", new ArrayList<>(lines)) + "\n";
  }

  static String firstLine(String message) {
    if (message == null) {
      return "failed";
    }
    int nl = message.indexOf('\n');
    return (nl < 0 ? message : message.substring(0, nl)).strip();
  }

  /** Detaches every trial program. */
  @Override
  public void close() {
    if (trialModule != null) {
      trialModule.close();
      trialModule = null;
    }
  }
}

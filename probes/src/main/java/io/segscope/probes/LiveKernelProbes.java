package io.segscope.probes;

import io.segscope.probes.btf.Btf;
import io.segscope.probes.btf.BtfException;
import io.segscope.probes.ksym.Kallsyms;
import io.segscope.probes.ksym.KallsymsException;
import io.segscope.probes.load.AttachPoint;
import io.segscope.probes.load.KernelAbi;
import io.segscope.probes.load.Programs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@link KernelProbes} answered by the running kernel: BTF from {@code /sys/kernel/btf/vmlinux},
 * symbols from {@code /proc/kallsyms}, tracefs, the kprobe PMU, and real trial attaches.
 *
 * <p>The trial programs are two instructions ({@code r0 = 0; exit}) loaded through bpf(2) — no compiler,
 * no libbcc — attached and detached again at once; answers are cached per attach point. Not thread-safe.
 *
 * <p>The BTF and kallsyms read here are parsed once per start: {@link ProbeSession#open(ProbePlan,
 * ProbeSession.Options, LiveKernelProbes)} takes the kernel layout and the call sites from the same
 * instance the plan was decided with (parsing the kernel's BTF costs about a second here, half a
 * minute under emulation).
 */
public final class LiveKernelProbes implements KernelProbes, AutoCloseable {
  static final Path KPROBE_PMU = Path.of("/sys/bus/event_source/devices/kprobe");
  static final List<Path> TRACEFS = List.of(Path.of("/sys/kernel/tracing"), Path.of("/sys/kernel/debug/tracing"));

  private final Btf btf;
  private final String btfProblem;
  private final Kallsyms kallsyms;
  private final String kallsymsProblem;
  private final Map<String, Optional<String>> trials = new HashMap<>();

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

  /** The kernel's parsed BTF, empty when it could not be read ({@link #btfMissing()} says why). */
  Optional<Btf> btf() {
    return Optional.ofNullable(btf);
  }

  /** The parsed /proc/kallsyms, empty when it could not be read ({@link #kallsymsUnreadable()} says why). */
  Optional<Kallsyms> kallsyms() {
    return Optional.ofNullable(kallsyms);
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
  public Optional<List<String>> tracepointArgs(String event) {
    return btf == null ? Optional.empty() : btf.tracepointArgs(event);
  }

  @Override
  public Optional<String> tryAttach(AttachPoint point) {
    return trials.computeIfAbsent(point.describe(),
        p -> Programs.trial(KernelAbi.of(btf), point, tracefs().orElse(TRACEFS.get(0)))
            .map(LiveKernelProbes::firstLine));
  }

  static String firstLine(String message) {
    if (message == null) {
      return "failed";
    }
    int nl = message.indexOf('\n');
    return (nl < 0 ? message : message.substring(0, nl)).strip();
  }

  /** Nothing stays attached after a trial: kept for try-with-resources callers. */
  @Override
  public void close() {
    trials.clear();
  }
}

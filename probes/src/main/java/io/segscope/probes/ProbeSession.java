package io.segscope.probes;

import io.segscope.probes.bcc.Bcc;
import io.segscope.probes.bcc.BccException;
import io.segscope.probes.bcc.BpfModule;
import io.segscope.probes.bcc.BpfTable;
import io.segscope.probes.bcc.ProgramStats;
import io.segscope.probes.btf.Btf;
import io.segscope.probes.btf.BtfException;
import io.segscope.probes.gso.DeviceCounters;
import io.segscope.probes.gso.DeviceStatsDecoder;
import io.segscope.probes.gso.Diagnostic;
import io.segscope.probes.ksym.Kallsyms;
import io.segscope.probes.ksym.KallsymsException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The running probes: ONE BPF module (compiled by libbcc from {@code bpf/common.h} plus every path's
 * program files, each path's mode switched on by the {@link ProbePlan}'s {@code -D} flags, with the
 * kernel layout from BTF as constants), its attachments and its maps. Every path shares the one
 * per-device {@code dev_stats} map. Closing it detaches everything and releases every file
 * descriptor, once, in one place.
 */
public final class ProbeSession implements AutoCloseable {

  /** The path measured by the TX programs. */
  public static final String PATH_GSO_TX = MeasuredPath.GSO_TX.label();

  /** The path measured by the generic-XDP programs. */
  public static final String PATH_XDP_GENERIC = MeasuredPath.XDP_GENERIC.label();

  /** The program files, in the order they are concatenated after common.h. */
  static final List<String> PROGRAM_FILES = List.of("bpf/gso_tracepoint.c", "bpf/gso_kprobe.c",
      "bpf/xdp_tracepoint.c", "bpf/xdp_kprobe.c");

  private final BpfModule module;
  private final ProbePlan plan;
  private final KernelLayout layout;
  private final List<ProbeAttachment> attachments;
  private final DeviceStatsDecoder decoder;
  private final BpfTable stats;
  private final BpfTable diag;
  private final int cpus;
  private volatile boolean closed;

  private ProbeSession(BpfModule module, ProbePlan plan, KernelLayout layout, List<ProbeAttachment> attachments)
      throws BccException {
    this.module = module;
    this.plan = plan;
    this.layout = layout;
    this.attachments = List.copyOf(attachments);
    this.cpus = Bcc.possibleCpus();
    this.stats = module.table("dev_stats");
    this.diag = module.table("diag");
    this.decoder = new DeviceStatsDecoder(cpus, stats.keySize(), stats.valueSize());
  }

  /**
   * Compiles and attaches the tracepoint-mode programs of every path.
   *
   * @throws ProbeException naming what failed (BTF, kallsyms, compile, load, attach) and why
   */
  public static ProbeSession openTracepointMode() throws ProbeException {
    return open(ProbePlan.decide(Optional.of(ProbeMode.TRACEPOINT)));
  }

  /**
   * Compiles one module for {@code plan} and attaches every measured path's programs. Unmeasured
   * paths appear in {@link #attachments()} as not attached, with the plan's reason.
   *
   * @throws ProbeException when the plan cannot run ({@link ProbePlan#failure()}: a forced mode some
   *     path cannot use, or no path measurable), or naming what failed (BTF, kallsyms, compile, attach)
   */
  public static ProbeSession open(ProbePlan plan) throws ProbeException {
    Optional<String> failure = plan.failure();
    if (failure.isPresent()) {
      throw new ProbeException(failure.get());
    }
    try {
      Bcc.requireCompatible();
    } catch (BccException e) {
      throw new ProbeException("check libbcc: " + e.getMessage(), e);
    }
    KernelLayout layout;
    try {
      layout = KernelLayout.fromBtf(Btf.loadKernel());
    } catch (BtfException e) {
      throw new ProbeException("read kernel layout from BTF: " + e.getMessage(), e);
    }
    List<String> cflags = new ArrayList<>(layout.cflags());
    cflags.addAll(plan.cflags());
    if (plan.path(MeasuredPath.GSO_TX).mode().equals(Optional.of(ProbeMode.TRACEPOINT))) {
      cflags.addAll(validateXmitSkbRanges());
    }
    BpfModule module;
    try {
      module = BpfModule.compile("segscope", programText(), cflags);
    } catch (BccException e) {
      throw new ProbeException("compile programs: " + e.getMessage(), e);
    } finally {
      NativeMemory.trim();
    }
    List<ProbeAttachment> attached = new ArrayList<>();
    try {
      for (PathPlan p : plan.paths()) {
        if (!p.measured()) {
          attached.addAll(unmeasured(p));
          continue;
        }
        String mode = p.mode().get().label();
        for (ProgramSpec spec : p.programs()) {
          try {
            attach(module, spec);
          } catch (BccException e) {
            throw new ProbeException("attach " + p.path().label() + " program " + spec.function() + " ("
                + spec.describe() + ", mode " + mode + "): " + e.getMessage(), e);
          }
          attached.add(new ProbeAttachment(p.path().label(), spec.function(), mode, spec.describe(), true, ""));
        }
      }
      return new ProbeSession(module, plan, layout, attached);
    } catch (BccException e) {
      module.close();
      throw new ProbeException("open tables: " + e.getMessage(), e);
    } catch (ProbeException | RuntimeException e) {
      module.close();
      throw e;
    }
  }

  private static void attach(BpfModule module, ProgramSpec spec) throws BccException {
    switch (spec.kind()) {
      case TRACEPOINT -> {
        String[] ce = spec.target().split(":", 2);
        module.attachTracepoint(spec.function(), ce[0], ce[1]);
      }
      case KPROBE -> module.attachKprobe(spec.function(), spec.target());
      case KRETPROBE -> module.attachKretprobe(spec.function(), spec.target());
      case FENTRY, FEXIT -> module.attachKfunc(spec.function());
      default -> throw new IllegalStateException("attach " + spec.function() + ": unknown kind " + spec.kind());
    }
  }

  /** An unmeasured path, reported as the programs of the last mode tried, none attached. */
  static List<ProbeAttachment> unmeasured(PathPlan p) {
    ProbeMode last = p.verdicts().isEmpty() ? ProbeMode.TRACEPOINT
        : p.verdicts().get(p.verdicts().size() - 1).mode();
    return ProgramSpec.of(p.path(), last).stream()
        .map(s -> new ProbeAttachment(p.path().label(), s.function(), last.label(), s.describe(), false,
            "not measured: " + p.reason()))
        .toList();
  }

  /** common.h followed by every program file; the -D mode flags pick what is compiled in. */
  static String programText() {
    StringBuilder text = new StringBuilder("#include <uapi/linux/ptrace.h>\n").append(resource("bpf/common.h"));
    for (String file : PROGRAM_FILES) {
      text.append('\n').append(resource(file));
    }
    return text.toString();
  }

  /** The plan this session runs. */
  public ProbePlan plan() {
    return plan;
  }

  /** The mode label of each measured path, by path label, e.g. {@code {gso_tx=kprobe, xdp_generic=kprobe}}. */
  public Map<String, String> modeLabels() {
    return plan.modeLabels();
  }

  /** -DVXS_START0=..., the address ranges of validate_xmit_skb and its clones. */
  static List<String> validateXmitSkbRanges() throws ProbeException {
    List<Kallsyms.Symbol> syms;
    try {
      syms = Kallsyms.load().functionAndClones("validate_xmit_skb");
    } catch (KallsymsException e) {
      throw new ProbeException("resolve validate_xmit_skb: " + e.getMessage(), e);
    }
    if (syms.isEmpty()) {
      throw new ProbeException("resolve validate_xmit_skb: not in /proc/kallsyms (inlined into its callers on "
          + "this kernel?): tracepoint mode cannot tell where consume_skb ran");
    }
    if (syms.size() > 2) {
      throw new ProbeException("resolve validate_xmit_skb: " + syms.size() + " copies in /proc/kallsyms "
          + syms.stream().map(Kallsyms.Symbol::name).toList() + ", the program handles at most 2");
    }
    List<String> flags = new ArrayList<>();
    for (int i = 0; i < syms.size(); i++) {
      flags.add("-DVXS_START" + i + "=0x" + Long.toHexString(syms.get(i).start()) + "ULL");
      flags.add("-DVXS_END" + i + "=0x" + Long.toHexString(syms.get(i).end()) + "ULL");
    }
    return flags;
  }

  static String resource(String name) {
    try (InputStream in = ProbeSession.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("load program " + name + ": missing from the jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("load program " + name, e);
    }
  }

  /** Reads every device's cumulative counters and the diagnostics. Safe to call from any one thread. */
  public ProbeReading read() throws ProbeException {
    ensureOpen();
    try {
      List<DeviceCounters> devices = new ArrayList<>();
      for (BpfTable.Entry e : stats.entries()) {
        devices.add(decoder.decode(e.key(), e.value()));
      }
      Map<Diagnostic, Long> d = new EnumMap<>(Diagnostic.class);
      for (Diagnostic x : Diagnostic.values()) {
        d.put(x, percpuSum(diag, x.ordinal()));
      }
      return new ProbeReading(System.nanoTime(), devices, d);
    } catch (BccException e) {
      throw new ProbeException("read maps: " + e.getMessage(), e);
    }
  }

  private long percpuSum(BpfTable table, int index) throws BccException {
    byte[] key = ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(index).array();
    Optional<byte[]> v = table.lookup(key);
    if (v.isEmpty()) {
      return 0;
    }
    ByteBuffer b = ByteBuffer.wrap(v.get()).order(ByteOrder.nativeOrder());
    long sum = 0;
    for (int c = 0; c < cpus; c++) {
      sum += b.getLong(c * table.valueStride());
    }
    return sum;
  }

  private Boolean xdpGateClosed;

  /**
   * Tells the tracepoint-mode generic-XDP program whether any device has a generic XDP program
   * (from the device inventory): while none has, it skips every received packet after one array
   * lookup. No effect in the other modes (their programs only run inside do_xdp_generic).
   */
  public synchronized void setGenericXdpPresent(boolean present) throws ProbeException {
    ensureOpen();
    boolean closedNow = !present;
    if (xdpGateClosed != null && xdpGateClosed == closedNow) {
      return;
    }
    if (!module.tableNames().contains("xdp_gate")) {
      xdpGateClosed = closedNow;
      return;
    }
    try {
      byte[] key = ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(0).array();
      byte[] value = ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(closedNow ? 1 : 0).array();
      module.table("xdp_gate").update(key, value);
      xdpGateClosed = closedNow;
    } catch (BccException e) {
      throw new ProbeException("set the generic-XDP gate: " + e.getMessage(), e);
    }
  }

  /** Drops a vanished device's counters so its series disappear. */
  public void forget(long netns, int ifindex) throws ProbeException {
    ensureOpen();
    byte[] key = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder())
        .putInt((int) netns).putInt(ifindex).array();
    try {
      stats.delete(key);
    } catch (BccException e) {
      throw new ProbeException("forget device " + netns + "/" + ifindex + ": " + e.getMessage(), e);
    }
  }

  public List<ProbeAttachment> attachments() {
    return closed ? attachments.stream()
        .map(a -> new ProbeAttachment(a.path(), a.program(), a.mode(), a.target(), false, "closed")).toList()
        : attachments;
  }

  /** The running kernel's layout, as the programs were compiled against it. */
  public KernelLayout layout() {
    return layout;
  }

  /** The mode a path's programs run in ({@code tracepoint}, {@code kprobe}, {@code fentry}), "" if none run. */
  public String mode(String path) {
    return attachments.stream().filter(a -> a.path().equals(path) && a.attached()).map(ProbeAttachment::mode)
        .findFirst().orElse("");
  }

  /** In-kernel run time and count per program (non-zero only while kernel.bpf_stats_enabled=1). */
  public List<ProgramStats> programStats() {
    return closed ? List.of() : module.programStats();
  }

  private void ensureOpen() throws ProbeException {
    if (closed) {
      throw new ProbeException("read maps: the probe session is closed");
    }
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      module.close();
    }
  }
}

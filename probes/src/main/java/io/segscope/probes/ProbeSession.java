package io.segscope.probes;

import com.sun.jna.Memory;
import io.segscope.device.DeviceId;
import io.segscope.host.sys.Cpus;
import io.segscope.host.sys.SysException;
import io.segscope.probes.btf.Btf;
import io.segscope.probes.btf.BtfException;
import io.segscope.probes.compile.CompiledObject;
import io.segscope.probes.ksym.Kallsyms;
import io.segscope.probes.ksym.KallsymsException;
import io.segscope.probes.load.Attachment;
import io.segscope.probes.load.KernelAbi;
import io.segscope.probes.load.LoadedObject;
import io.segscope.probes.load.MapReader;
import io.segscope.probes.load.Programs;
import io.segscope.probes.program.CallSites;
import io.segscope.probes.program.ProgramText;
import io.segscope.probes.sys.Bpf;
import io.segscope.probes.wire.Counts;
import io.segscope.probes.wire.DeviceKey;
import io.segscope.probes.wire.DeviceReading;
import io.segscope.probes.wire.GsoDetail;
import io.segscope.probes.wire.NameBytes;
import io.segscope.probes.wire.XdpDetail;
import io.segscope.vocabulary.Diagnostic;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The running probes: ONE compiled object (common.h + every path's program file, each path's mode
 * switched on by the {@link ProbePlan}'s flags, the kernel layout from BTF as constants), its maps,
 * its programs and their attachments, closed in one place.
 *
 * <p>Opening compiles in a child process ({@link Compiler#childProcess()}: LLVM never lives here),
 * creates the maps, loads and attaches each measured path's programs through bpf(2). A path whose
 * real program fails to load or attach falls back to its next mode (the whole object is compiled
 * again for the new plan) and the failure becomes that mode's verdict; the other paths keep theirs.
 * Programs marked on demand are loaded at open but attached only while the agent asks
 * ({@link #setGenericXdpPresent}, {@link #setSegmentationSeen}).
 *
 * <p>Reading is streaming ({@link MapReader}): per-CPU counters for every device, the shared detail
 * maps (histograms, causes, sites) only for devices that segmented or copied.
 */
public final class ProbeSession implements ProbeSource, AutoCloseable {
  private static final System.Logger LOG = System.getLogger(ProbeSession.class.getName());

  /** The path measured by the TX programs. */
  public static final String PATH_GSO_TX = MeasuredPath.GSO_TX.label();
  /** The path measured by the generic-XDP programs. */
  public static final String PATH_XDP_GENERIC = MeasuredPath.XDP_GENERIC.label();

  /**
   * How to open a session.
   *
   * @param maxDevices room in the per-device maps
   * @param compiler how the C text is compiled
   * @param timing when the timing programs run ({@link Timing})
   * @param failLoad a fault to inject, for tests of the per-path fallback: {@code PATH:MODE} entries, comma-separated
   *     ({@code gso_tx:fentry,xdp_generic:fentry}): those paths' programs fail to load in those modes; "" for none
   */
  public record Options(int maxDevices, Compiler compiler, Timing timing, String failLoad) {
    public Options {
      if (maxDevices < 16 || maxDevices > 1 << 20) {
        throw new IllegalArgumentException("open probes: max devices must be in [16, 1048576], got " + maxDevices);
      }
      Objects.requireNonNull(compiler, "compiler");
      Objects.requireNonNull(timing, "timing");
      Objects.requireNonNull(failLoad, "failLoad");
    }

    /** With the default timing windows and no injected fault. */
    public Options(int maxDevices, Compiler compiler) {
      this(maxDevices, compiler, Timing.DEFAULT, "");
    }

    /** 4096 devices, compiled in a child process. */
    public static Options defaults() {
      return new Options(4096, Compiler.childProcess());
    }

    public Options withTiming(Timing t) {
      return new Options(maxDevices, compiler, t, failLoad);
    }

    public Options withFailLoad(String f) {
      return new Options(maxDevices, compiler, timing, f);
    }
  }

  private final ProbePlan plan;
  private final KernelLayout layout;
  private final LoadedObject object;
  private final Map<String, ProgramSpec> specs;
  private final Map<String, String> pathOf;
  private final Map<String, Attachment> attached = new LinkedHashMap<>();
  private final Map<String, String> detachedWhy = new LinkedHashMap<>();
  private final Path tracefs;
  private final List<CallSites.Resolution> callSites;
  private final int cpus;
  private final MapReader counts;
  private final MapReader gsoDetails;
  private final MapReader xdpDetails;
  private final MapReader names;
  private final Map<DeviceId, Long> offloaded = new HashMap<>();
  private final Timing timing;
  private final TimingWindows windows;
  private final long openedAtNanos = System.nanoTime();
  /** At the open of the current window: each device's {queued, after queue, dropped}. */
  private Map<DeviceId, long[]> atWindowOpen = Map.of();
  private boolean xdpWanted;
  private volatile boolean segmentationWanted;
  private boolean closed;

  private ProbeSession(ProbePlan plan, KernelLayout layout, LoadedObject object, Map<String, ProgramSpec> specs,
      Map<String, String> pathOf, Map<String, Attachment> attached, Path tracefs, CallSites sites, Timing timing) {
    this.plan = plan;
    this.callSites = List.copyOf(sites.resolutions());
    this.layout = layout;
    this.object = object;
    this.specs = specs;
    this.pathOf = pathOf;
    this.attached.putAll(attached);
    this.tracefs = tracefs;
    this.cpus = Cpus.possible();
    this.counts = reader("dev_counts", DeviceKey.SIZE, MapReader.perCpuBytes(Counts.SIZE, cpus));
    this.gsoDetails = reader("gso_detail", DeviceKey.SIZE, MapReader.perCpuBytes(GsoDetail.SIZE, cpus));
    this.xdpDetails = object.hasMap("xdp_detail") ? reader("xdp_detail", DeviceKey.SIZE, XdpDetail.SIZE) : null;
    this.names = reader("dev_names", DeviceKey.SIZE, 16);
    this.timing = timing;
    this.windows = new TimingWindows(timing);
    if (specs.values().stream().anyMatch(ProgramSpec::sampled)) {
      tickTimingWindows(); // "always" attaches the timing programs before open returns
    }
  }

  private MapReader reader(String map, int keySize, int valueBytes) {
    return new MapReader(object.mapFd(map), map, keySize, valueBytes);
  }

  /**
   * Opens {@code plan} (decided with {@link ProbePlan#decide}): compiles, loads and attaches.
   *
   * @throws ProbeException when the plan cannot run ({@link ProbePlan#failure()}), naming what failed
   *     (BTF, kallsyms, compile, map creation), or when every fallback of some forced mode failed
   */
  public static ProbeSession open(ProbePlan plan, Options options) throws ProbeException, InterruptedException {
    try (LiveKernelProbes kernel = LiveKernelProbes.open()) {
      return open(plan, options, kernel);
    }
  }

  /**
   * As {@link #open(ProbePlan, Options)}, with the kernel's BTF and kallsyms as {@code kernel} already
   * parsed them (the instance {@code plan} was decided with): they are read once per start. The
   * fallbacks ask {@code kernel} again.
   */
  public static ProbeSession open(ProbePlan plan, Options options, LiveKernelProbes kernel)
      throws ProbeException, InterruptedException {
    Btf btf;
    KernelLayout layout;
    try {
      btf = kernel.btf().isPresent() ? kernel.btf().get() : Btf.loadKernel();
      layout = KernelLayout.fromBtf(btf);
    } catch (BtfException e) {
      throw new ProbeException("read kernel layout from BTF: " + e.getMessage(), e);
    }
    CallSites sites;
    try {
      sites = CallSites.resolve(kernel.kallsyms().isPresent() ? kernel.kallsyms().get() : Kallsyms.load());
    } catch (KallsymsException e) {
      throw new ProbeException("resolve segmentation call sites: " + e.getMessage(), e);
    }
    List<String> absent = sites.resolutions().stream().filter(r -> !r.resolved())
        .map(r -> r.callSite().name()).distinct().toList();
    LOG.log(System.Logger.Level.INFO, "segmentation call sites: "
        + sites.resolutions().stream().filter(CallSites.Resolution::resolved).count()
        + " of " + sites.resolutions().size() + " found" + (absent.isEmpty() ? ""
            : "; absent (not seen in tracepoint mode, site other in kprobe mode; segscope doctor lists them): "
                + String.join(", ", absent)));
    // the BTF ids of every program any path could load later, in any mode a fallback may pick; the
    // parsed BTF itself (tens of MiB of names) is not kept for the session's life
    KernelAbi abi = KernelAbi.resolving(btf, ProgramSpec.everyTracepointEvent(), ProgramSpec.everyFunction());
    Path tracefs = LiveKernelProbes.tracefs().orElse(LiveKernelProbes.TRACEFS.get(0));
    String text = ProgramText.of(sites);
    for (int attempt = 0;; attempt++) {
      if (Thread.interrupted()) {
        throw new InterruptedException("open probes: interrupted");
      }
      Optional<String> failure = plan.failure();
      if (failure.isPresent()) {
        throw new ProbeException(failure.get());
      }
      List<String> cflags = new ArrayList<>(layout.cflags());
      cflags.addAll(plan.cflags());
      cflags.add("-DMAX_DEVICES=" + options.maxDevices());
      cflags.add("-DMAP_FLAGS=1"); // BPF_F_NO_PREALLOC: memory grows with the devices seen, not the maximum
      if (plan.tracepointAttach() == TracepointAttach.CLASSIC) {
        List<String[]> events = new ArrayList<>();
        for (PathPlan p : plan.paths()) {
          p.mode().ifPresent(m -> events.addAll(ProgramSpec.tracepoints(p.path(), m)));
        }
        cflags.addAll(TracepointFormat.cflags(tracefs, events));
      }
      long t0 = System.nanoTime();
      LOG.log(System.Logger.Level.INFO, "compiling the probe programs (" + plan.modeLabels() + ", tracepoints as "
          + plan.tracepointAttach().label() + ")");
      CompiledObject compiled = options.compiler().compile("segscope", text, cflags);
      long t1 = System.nanoTime();
      LOG.log(System.Logger.Level.INFO, String.format(Locale.ROOT,
          "compiled %d programs in %.1f s", compiled.programs().size(), (t1 - t0) / 1e9));
      LoadedObject object;
      try {
        object = LoadedObject.create(compiled, abi);
      } catch (SysException e) {
        throw new ProbeException("create maps: " + e.getMessage(), e);
      }
      Map<String, ProgramSpec> specs = new LinkedHashMap<>();
      Map<String, String> pathOf = new LinkedHashMap<>();
      Map<String, Attachment> attached = new LinkedHashMap<>();
      // every path is tried, so that all the paths whose programs fail fall back together (one compile more,
      // not one per failed path)
      List<ProbePlan.RuledOut> failed = new ArrayList<>();
      for (PathPlan p : plan.paths()) {
        if (!p.measured()) {
          continue;
        }
        try {
          attachPath(p, plan.programs(p.path()), object, tracefs, specs, pathOf, attached, options.failLoad());
        } catch (SysException | ProbeException e) {
          failed.add(new ProbePlan.RuledOut(p.path(), p.mode().get(), e.getMessage()));
        }
      }
      if (failed.isEmpty()) {
        LOG.log(System.Logger.Level.INFO, String.format(Locale.ROOT,
            "loaded %d programs and attached %d in %.1f s (%s)", specs.size(), attached.size(),
            (System.nanoTime() - t1) / 1e9, plan.modeLabels()));
        return new ProbeSession(plan, layout, object, specs, pathOf, attached, tracefs, sites, options.timing());
      }
      attached.values().forEach(Attachment::detach);
      object.close();
      if (attempt >= ProbeMode.values().length * MeasuredPath.values().length) {
        ProbePlan.RuledOut first = failed.get(0);
        throw new ProbeException("attach " + first.path().label() + " in mode " + first.mode().label() + ": "
            + first.reason());
      }
      List<ProbePlan.RuledOut> out = new ArrayList<>();
      for (ProbePlan.RuledOut f : failed) {
        LOG.log(System.Logger.Level.WARNING, "probe path " + f.path().label() + ": mode " + f.mode().label()
            + " failed to load (" + f.reason() + "), trying the next mode");
        out.add(new ProbePlan.RuledOut(f.path(), f.mode(), "its program failed to load: " + f.reason()));
      }
      plan = plan.without(out, kernel);
    }
  }

  private static void attachPath(PathPlan p, List<ProgramSpec> programs, LoadedObject object, Path tracefs,
      Map<String, ProgramSpec> specs, Map<String, String> pathOf, Map<String, Attachment> attached, String inject)
      throws SysException, ProbeException {
    if (injectedFailure(inject, p.path(), p.mode().get())) {
      throw new ProbeException("injected load failure (" + inject + ")");
    }
    for (ProgramSpec s : programs) {
      int fd = object.program(s.function(), s.point());
      specs.put(s.function(), s);
      pathOf.put(s.function(), p.path().label());
      if (!s.onDemand()) {
        attached.put(s.function(), Programs.attach(s.function(), fd, s.point(), tracefs));
      }
    }
  }

  /**
   * Whether the injected fault {@code property} ({@link Options#failLoad()}: {@code PATH:MODE} entries,
   * comma-separated, blanks around them ignored) names {@code path} in {@code mode}.
   */
  static boolean injectedFailure(String property, MeasuredPath path, ProbeMode mode) {
    String wanted = path.label() + ":" + mode.label();
    for (String entry : property.split(",")) {
      if (entry.strip().equals(wanted)) {
        return true;
      }
    }
    return false;
  }

  /** The plan this session runs (after any fallbacks). */
  public ProbePlan plan() {
    return plan;
  }

  /** The mode label of each measured path, by path label. */
  public Map<String, String> modeLabels() {
    return plan.modeLabels();
  }

  /** The mode a path's programs run in ({@code tracepoint}, {@code kprobe}, {@code fentry}), "" if none run. */
  public String mode(String path) {
    return plan.modeLabels().getOrDefault(path, "");
  }

  /** The running kernel's layout, as the programs were compiled against it. */
  public KernelLayout layout() {
    return layout;
  }

  /**
   * Tells the probes whether any device has a generic XDP program: in tracepoint mode the program on
   * net:netif_receive_skb (which fires for every received packet) is attached only while one does.
   */
  public synchronized void setGenericXdpPresent(boolean present) throws ProbeException {
    xdpWanted = present;
    setOnDemand(PATH_XDP_GENERIC, present);
  }

  /**
   * Tells the probes whether software segmentation was seen recently: the sampling windows of the timing
   * programs ({@link Timing}) open only while it was.
   */
  public void setSegmentationSeen(boolean seen) {
    segmentationWanted = seen;
  }

  /**
   * Opens or closes a sampling window when due: the timing programs are attached while one is open. The
   * clock is the caller's (the agent's pipeline scheduler, every {@link ProbeSource#TIMING_TICK}); a
   * session nobody ticks keeps the state it opened with ("always": attached for good).
   */
  @Override
  public synchronized void tickTimingWindows() {
    if (closed || specs.values().stream().noneMatch(ProgramSpec::sampled)) {
      return;
    }
    long now = System.nanoTime();
    try {
      switch (windows.tick(now, segmentationWanted)) {
        case OPEN -> openWindow();
        case CLOSE -> closeWindow();
        case NONE -> {}
      }
    } catch (ProbeException | SysException | RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "timing window: " + e.getMessage());
      if (windows.isOpen() && !anySampledAttached()) {
        windows.undoOpen();
      }
    }
  }

  private boolean anySampledAttached() {
    return specs.values().stream().filter(ProgramSpec::sampled)
        .anyMatch(s -> attached.get(s.function()) != null && attached.get(s.function()).attached());
  }

  private void openWindow() throws ProbeException, SysException {
    if (!timing.isAlways()) {
      atWindowOpen = queueState();
    }
    setTimingFlag(1);
    for (ProgramSpec s : specs.values()) {
      if (s.sampled()) {
        attachOnDemand(s);
      }
    }
  }

  private void closeWindow() throws SysException {
    for (ProgramSpec s : specs.values()) {
      Attachment a = attached.get(s.function());
      if (s.sampled() && a != null && a.attached()) {
        String problem = a.detach();
        if (!problem.isEmpty()) {
          LOG.log(System.Logger.Level.WARNING, problem);
        }
      }
    }
    setTimingFlag(0);
    clearStartStamps();
    // offloaded, from this window: queued - segmented after the queue - dropped, per device, extrapolated to the
    // cycle the window stands for (cycle / window: 10 by default), an estimate comparable with the exact counts
    double scale = (double) timing.cycle().toNanos() / timing.window().toNanos();
    Map<DeviceId, long[]> now = queueState();
    now.forEach((id, q) -> {
      long[] before = atWindowOpen.getOrDefault(id, new long[3]);
      long d = (q[0] - before[0]) - (q[1] - before[1]) - (q[2] - before[2]);
      if (d > 0) {
        offloaded.merge(id, Math.round(d * scale), Long::sum);
      }
    });
    atWindowOpen = Map.of();
  }

  /** Each device's {queued, segmented after the queue, dropped before the driver}, summed over CPUs. */
  private Map<DeviceId, long[]> queueState() throws SysException {
    Map<DeviceId, long[]> out = new HashMap<>();
    int stride = (Counts.SIZE + 7) & ~7;
    counts.forEach((k, ko, v, vo) -> {
      Counts c = Counts.sumPerCpu(v, vo, cpus, stride);
      out.put(DeviceKey.read(k, ko), new long[] {c.gsoQueued(), 0, c.gsoTxDropped()});
    });
    int gstride = (GsoDetail.SIZE + 7) & ~7;
    gsoDetails.forEach((k, ko, v, vo) -> out.computeIfAbsent(DeviceKey.read(k, ko), x -> new long[3])[1] =
        GsoDetail.sumPerCpu(v, vo, cpus, gstride).sw().afterQueue());
    return out;
  }

  /** timing_window[0]: 1 while the timing programs are attached (gso.c counts untimed segmentations then only). */
  private void setTimingFlag(long on) throws SysException {
    if (!object.hasMap("timing_window")) {
      return;
    }
    try (Memory key = new Memory(4); Memory value = new Memory(8)) {
      key.setInt(0, 0);
      value.setLong(0, on);
      Bpf.mapUpdate(object.mapFd("timing_window"), key, value, Bpf.UPDATE_ANY);
    }
  }

  /** Zeroes every CPU's start stamp: a stamp left from a window never times a later skb at its address. */
  private void clearStartStamps() throws SysException {
    if (!object.hasMap("xmit_start_slot")) {
      return;
    }
    int stride = 16; // struct xmit_start {void *skb; u64 ts;}
    try (Memory key = new Memory(4); Memory value = new Memory((long) stride * cpus)) {
      key.setInt(0, 0);
      value.clear();
      Bpf.mapUpdate(object.mapFd("xmit_start_slot"), key, value, Bpf.UPDATE_ANY);
    }
  }

  /** How long the timing programs have been attached since the session opened, and how long it has been open. */
  public synchronized TimingShare timingShare() {
    long now = System.nanoTime();
    return new TimingShare(timing.label(), windows.openNanos(now) / 1e9, (now - openedAtNanos) / 1e9);
  }

  private void attachOnDemand(ProgramSpec s) throws ProbeException {
    Attachment a = attached.get(s.function());
    if (a != null && a.attached()) {
      return;
    }
    try {
      attached.put(s.function(), Programs.attach(s.function(), object.program(s.function(), s.point()),
          s.point(), tracefs));
      detachedWhy.remove(s.function());
    } catch (SysException e) {
      detachedWhy.put(s.function(), e.getMessage());
      throw new ProbeException("attach " + s.describe() + ": " + e.getMessage(), e);
    }
  }

  private void setOnDemand(String path, boolean on) throws ProbeException {
    ensureOpen();
    for (ProgramSpec s : specs.values()) {
      if (!s.onDemand() || s.sampled() || !path.equals(pathOf.get(s.function()))) {
        continue;
      }
      Attachment a = attached.get(s.function());
      if (on && (a == null || !a.attached())) {
        attachOnDemand(s);
      } else if (!on && a != null && a.attached()) {
        String problem = a.detach();
        if (!problem.isEmpty()) {
          LOG.log(System.Logger.Level.WARNING, problem);
        }
      }
    }
  }

  /** Reads every device's cumulative counters and the diagnostics. Call from one thread at a time. */
  public synchronized ProbeReading read() throws ProbeException {
    ensureOpen();
    try {
      Map<DeviceId, String> nameOf = new HashMap<>();
      names.forEach((k, ko, v, vo) -> nameOf.put(DeviceKey.read(k, ko), nameAt(v, vo)));
      // the queue counts before the segmentation counts: a super-packet queued and segmented between the two
      // reads then shows as segmented but not yet queued (offloaded too low for one read: it never goes
      // backwards, so it catches up), never as queued and not segmented (offloaded too high for good)
      int stride = (Counts.SIZE + 7) & ~7;
      Map<DeviceId, Counts> all = new LinkedHashMap<>();
      counts.forEach((k, ko, v, vo) -> all.put(DeviceKey.read(k, ko), Counts.sumPerCpu(v, vo, cpus, stride)));
      Map<DeviceId, GsoDetail.Summed> gso = new HashMap<>();
      int gstride = (GsoDetail.SIZE + 7) & ~7;
      gsoDetails.forEach((k, ko, v, vo) -> gso.put(DeviceKey.read(k, ko), GsoDetail.sumPerCpu(v, vo, cpus, gstride)));
      Map<DeviceId, XdpDetail> xdp = new HashMap<>();
      if (xdpDetails != null) {
        xdpDetails.forEach((k, ko, v, vo) -> xdp.put(DeviceKey.read(k, ko), XdpDetail.read(v, vo)));
      }
      List<DeviceReading> devices = new ArrayList<>();
      // a device that segmented but queued nothing counted (outside the windows) has no dev_counts entry
      gso.keySet().forEach(key -> all.putIfAbsent(key, Counts.ZERO));
      boolean exactOffloaded = timing.isAlways();
      all.forEach((key, counted) -> {
        GsoDetail.Summed g = gso.get(key);
        Counts c = g == null ? counted : counted.withSoftware(g.sw().skbs(), g.sw().segments(), g.sw().bytes(),
            g.sw().afterQueue());
        long off = exactOffloaded ? Math.max(offloaded.getOrDefault(key, 0L), Math.max(0, c.offloadedRaw()))
            : offloaded.getOrDefault(key, 0L);
        offloaded.put(key, off);
        String name = nameOf.getOrDefault(key, g == null ? "" : g.detail().kernelName());
        devices.add(new DeviceReading(key, name, c, off, Optional.ofNullable(g).map(GsoDetail.Summed::detail),
            Optional.ofNullable(xdp.get(key))));
      });
      offloaded.keySet().retainAll(devices.stream().map(DeviceReading::id).toList());
      TimingShare share = new TimingShare(timing.label(), windows.openNanos(System.nanoTime()) / 1e9,
          (System.nanoTime() - openedAtNanos) / 1e9);
      return new ProbeReading(System.nanoTime(), devices, diagnostics(), share);
    } catch (SysException e) {
      throw new ProbeException("read maps: " + e.getMessage(), e);
    }
  }

  private static String nameAt(ByteBuffer v, int offset) {
    byte[] b = new byte[16];
    for (int i = 0; i < 16; i++) {
      b[i] = v.get(offset + i);
    }
    int n = 0;
    while (n < 16 && b[n] != 0) {
      n++;
    }
    return NameBytes.text(Arrays.copyOf(b, n));
  }

  private Map<Diagnostic, Long> diagnostics() throws SysException {
    Map<Diagnostic, Long> d = new EnumMap<>(Diagnostic.class);
    int fd = object.mapFd("diag");
    try (Memory key = new Memory(4); Memory value = new Memory((long) cpus * 8)) {
      for (Diagnostic x : Diagnostic.values()) {
        key.setInt(0, x.code());
        long sum = 0;
        if (Bpf.mapLookup(fd, key, value)) {
          ByteBuffer b = value.getByteBuffer(0, (long) cpus * 8).order(ByteOrder.nativeOrder());
          for (int c = 0; c < cpus; c++) {
            sum += b.getLong(c * 8);
          }
        }
        d.put(x, sum);
      }
    }
    return d;
  }

  /** Drops a vanished device's entries from every map, so its series disappear. */
  public synchronized void forget(DeviceId key) throws ProbeException {
    ensureOpen();
    try (Memory k = new Memory(DeviceKey.SIZE)) {
      DeviceKey.write(key, k.getByteBuffer(0, DeviceKey.SIZE).order(ByteOrder.nativeOrder()), 0);
      for (String map : List.of("dev_counts", "gso_detail", "dev_names", "xdp_detail")) {
        if (object.hasMap(map)) {
          Bpf.mapDelete(object.mapFd(map), k);
        }
      }
      offloaded.remove(key);
    } catch (SysException e) {
      throw new ProbeException("forget device " + key + ": " + e.getMessage(), e);
    }
  }

  /** Every program of the plan, attached or not, with why not (unmeasured paths: the plan's reason). */
  @Override
  public List<CallSites.Resolution> callSites() {
    return callSites;
  }

  public synchronized List<ProbeAttachment> attachments() {
    List<ProbeAttachment> out = new ArrayList<>();
    for (PathPlan p : plan.paths()) {
      if (!p.measured()) {
        ProbeMode last =
            p.verdicts().isEmpty() ? ProbeMode.TRACEPOINT : p.verdicts().get(p.verdicts().size() - 1).mode();
        for (ProgramSpec s : ProgramSpec.of(p.path(), last, plan.tracepointAttach())) {
          out.add(new ProbeAttachment(p.path().label(), s.function(), last.label(), s.describe(),
              s.point().kind(), false, s.onDemand(), "not measured: " + p.reason()));
        }
        continue;
      }
      for (ProgramSpec s : plan.programs(p.path())) {
        Attachment a = attached.get(s.function());
        boolean on = !closed && a != null && a.attached();
        String why = on ? "" : closed ? "closed" : s.onDemand()
            ? detachedWhy.getOrDefault(s.function(), s.sampled() ? "timing: attached in sampling windows only ("
                + timing.label() + ")" : "on demand: not needed now")
            : "detached";
        out.add(new ProbeAttachment(p.path().label(), s.function(), p.mode().get().label(), s.describe(),
            s.point().kind(), on, s.onDemand(), why));
      }
    }
    return out;
  }

  /** In-kernel run time and count per loaded program (they grow only while bpf_stats is on). */
  public synchronized List<ProgramRunStats> programStats() {
    if (closed) {
      return List.of();
    }
    List<ProgramRunStats> out = new ArrayList<>();
    for (Map.Entry<String, Integer> e : object.programs().entrySet()) {
      try {
        Bpf.ProgramInfo info = Bpf.progInfo(e.getValue());
        out.add(new ProgramRunStats(e.getKey(), info.runTimeNanos(), info.runCount()));
      } catch (SysException ex) {
        LOG.log(System.Logger.Level.WARNING, "read run statistics of " + e.getKey() + ": " + ex.getMessage());
      }
    }
    return out;
  }

  /** The kernel memory the maps hold, as the kernel accounts it, by map (bytes). */
  public synchronized Map<String, Long> mapMemory() {
    return closed ? Map.of() : object.mapMemory();
  }

  private void ensureOpen() throws ProbeException {
    if (closed) {
      throw new ProbeException("use probes: the probe session is closed");
    }
  }

  /** Detaches everything (newest first), then closes every program and map. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    List<String> problems = new ArrayList<>();
    List<Attachment> newestFirst = new ArrayList<>(attached.values());
    Collections.reverse(newestFirst);
    for (Attachment a : newestFirst) {
      String p = a.detach();
      if (!p.isEmpty()) {
        problems.add(p);
      }
    }
    counts.close();
    gsoDetails.close();
    names.close();
    if (xdpDetails != null) {
      xdpDetails.close();
    }
    problems.addAll(object.closeAll());
    if (!problems.isEmpty()) {
      LOG.log(System.Logger.Level.WARNING, "close probes: " + String.join("; ", problems));
    }
  }

  boolean xdpWanted() {
    return xdpWanted;
  }

  boolean segmentationWanted() {
    return segmentationWanted;
  }
}

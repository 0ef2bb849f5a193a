package io.segscope.probes;

import io.segscope.device.DeviceId;
import io.segscope.host.sys.Cpus;
import io.segscope.host.sys.SysException;
import io.segscope.probes.load.Attachment;
import io.segscope.probes.load.LoadedObject;
import io.segscope.probes.load.MapReader;
import io.segscope.probes.load.Programs;
import io.segscope.probes.program.CallSites;
import io.segscope.probes.sys.Bpf;
import io.segscope.probes.wire.Counts;
import io.segscope.probes.wire.DeviceReading;
import io.segscope.probes.wire.GsoDetail;
import io.segscope.probes.wire.XdpDetail;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
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
  private final SessionMaps maps;
  private final Timing timing;
  /** The timing programs' sampling windows, and the offloaded count per device they extrapolate. */
  private final SampledTiming sampled;
  /** Per device: the offloaded count as last read (exact, or from the windows). */
  private final Map<DeviceId, Long> offloaded;
  private boolean xdpWanted;
  private volatile boolean segmentationWanted;
  private boolean closed;

  ProbeSession(ProbePlan plan, KernelLayout layout, LoadedObject object, Map<String, ProgramSpec> specs,
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
    this.maps = new SessionMaps(object, cpus);
    this.timing = timing;
    this.sampled = new SampledTiming(timing, object, maps.counts(), maps.gsoDetails(), cpus);
    this.offloaded = sampled.offloaded();
    if (specs.values().stream().anyMatch(ProgramSpec::sampled)) {
      tickTimingWindows(); // "always" attaches the timing programs before open returns
    }
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
    return SessionOpener.open(plan, options, kernel);
  }

  /** The plan this session runs (after any fallbacks). */
  public ProbePlan plan() {
    return plan;
  }

  /** The mode label of each measured path, by path label. */
  public Map<String, String> modeLabels() {
    return plan.modeLabels();
  }

  /** The mode a path's programs run in, empty if none run. */
  @Override
  public Optional<ProbeMode> mode(MeasuredPath path) {
    return plan.paths().stream().filter(p -> p.path() == path).findFirst().flatMap(PathPlan::mode);
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
    sampled.tick(System.nanoTime(), segmentationWanted, new SampledTiming.Programs() {
      @Override
      public void attach() throws ProbeException {
        for (ProgramSpec s : specs.values()) {
          if (s.sampled()) {
            attachOnDemand(s);
          }
        }
      }

      @Override
      public void detach() {
        for (ProgramSpec s : specs.values()) {
          Attachment a = attached.get(s.function());
          if (s.sampled() && a != null && a.attached()) {
            String problem = a.detach();
            if (!problem.isEmpty()) {
              LOG.log(System.Logger.Level.WARNING, problem);
            }
          }
        }
      }

      @Override
      public boolean anyAttached() {
        return specs.values().stream().filter(ProgramSpec::sampled)
            .anyMatch(s -> attached.get(s.function()) != null && attached.get(s.function()).attached());
      }
    });
  }

  /** How long the timing programs have been attached since the session opened, and how long it has been open. */
  public synchronized TimingShare timingShare() {
    return sampled.share(System.nanoTime());
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
      SessionMaps.Raw raw = maps.read();
      Map<DeviceId, String> nameOf = raw.names();
      Map<DeviceId, Counts> all = raw.counts();
      Map<DeviceId, GsoDetail.Summed> gso = raw.gso();
      Map<DeviceId, XdpDetail> xdp = raw.xdp();
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
      TimingShare share = sampled.share(System.nanoTime());
      return new ProbeReading(System.nanoTime(), devices, maps.diagnostics(), share);
    } catch (SysException e) {
      throw new ProbeException("read maps: " + e.getMessage(), e);
    }
  }

  /** Drops a vanished device's entries from every map, so its series disappear. */
  public synchronized void forget(DeviceId key) throws ProbeException {
    ensureOpen();
    try {
      maps.forget(key);
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
    maps.close();
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

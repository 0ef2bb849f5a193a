package io.segscope.probes;

import com.sun.jna.Memory;
import io.segscope.device.DeviceId;
import io.segscope.host.sys.SysException;
import io.segscope.probes.load.LoadedObject;
import io.segscope.probes.load.MapReader;
import io.segscope.probes.sys.Bpf;
import io.segscope.probes.wire.Counts;
import io.segscope.probes.wire.DeviceKey;
import io.segscope.probes.wire.GsoDetail;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The timing programs' sampling windows of one {@link ProbeSession} ({@link Timing}): on each tick
 * (the agent's pipeline scheduler, through {@link ProbeSession#tickTimingWindows()}) a window opens or
 * closes when {@link TimingWindows} says so; opening sets the programs' {@code timing_window} flag and
 * attaches the timing programs, closing detaches them, clears the per-CPU start stamps and adds the
 * window's offloaded super-packets, extrapolated to the cycle, to each device's count. Not thread-safe:
 * the session calls it under its lock.
 */
final class SampledTiming {
  private static final System.Logger LOG = System.getLogger(ProbeSession.class.getName());

  /** How the session attaches and detaches its timing programs. */
  interface Programs {
    void attach() throws ProbeException;

    void detach();

    boolean anyAttached();
  }

  private final Timing timing;
  private final TimingWindows windows;
  private final LoadedObject object;
  private final MapReader counts;
  private final MapReader gsoDetails;
  private final int cpus;
  private final long openedAtNanos = System.nanoTime();
  private final Map<DeviceId, Long> offloaded = new HashMap<>();
  /** At the open of the current window: each device's {queued, after queue, dropped}. */
  private Map<DeviceId, long[]> atWindowOpen = Map.of();

  SampledTiming(Timing timing, LoadedObject object, MapReader counts, MapReader gsoDetails, int cpus) {
    this.timing = timing;
    this.windows = new TimingWindows(timing);
    this.object = object;
    this.counts = counts;
    this.gsoDetails = gsoDetails;
    this.cpus = cpus;
  }

  /** Per device, the offloaded count (the session's; windows add their extrapolation to it). */
  Map<DeviceId, Long> offloaded() {
    return offloaded;
  }

  /** How long windows have been open since the session opened, and how long it has been open, at {@code now}. */
  TimingShare share(long now) {
    return new TimingShare(timing.label(), windows.openNanos(now) / 1e9, (now - openedAtNanos) / 1e9);
  }

  /** Opens or closes a window when due at {@code now}; a failure is logged, and an open that failed undone. */
  void tick(long now, boolean wanted, Programs programs) {
    try {
      switch (windows.tick(now, wanted)) {
        case OPEN -> open(programs);
        case CLOSE -> close(programs);
        case NONE -> {}
      }
    } catch (ProbeException | SysException | RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "timing window: " + e.getMessage());
      if (windows.isOpen() && !programs.anyAttached()) {
        windows.undoOpen();
      }
    }
  }

  private void open(Programs programs) throws ProbeException, SysException {
    if (!timing.isAlways()) {
      atWindowOpen = queueState();
    }
    setTimingFlag(1);
    programs.attach();
  }

  private void close(Programs programs) throws SysException {
    programs.detach();
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

  /** The per-CPU start stamps the timing programs write (tracepoint/queue, fentry entry, kprobe entry in a window). */
  static final List<String> STAMP_MAPS = List.of("xmit_start_slot", "gso_stamp_slot", "gso_call_slot");

  /** Zeroes every CPU's start stamps: a stamp left from a window never times a later skb at its address. */
  private void clearStartStamps() throws SysException {
    for (String map : STAMP_MAPS) {
      if (!object.hasMap(map)) {
        continue;
      }
      int stride = (object.mapDef(map).valueSize() + 7) & ~7;
      try (Memory key = new Memory(4); Memory value = new Memory((long) stride * cpus)) {
        key.setInt(0, 0);
        value.clear();
        Bpf.mapUpdate(object.mapFd(map), key, value, Bpf.UPDATE_ANY);
      }
    }
  }
}

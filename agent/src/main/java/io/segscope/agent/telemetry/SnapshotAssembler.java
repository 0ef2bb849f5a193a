package io.segscope.agent.telemetry;

import io.segscope.exporters.RecordErrors;
import io.segscope.exporters.TranslationErrorListener;
import io.segscope.exporters.model.BuildInfo;
import io.segscope.exporters.model.DeviceRef;
import io.segscope.exporters.model.GsoCause;
import io.segscope.exporters.model.GsoDeviceStats;
import io.segscope.exporters.model.Log2Histogram;
import io.segscope.exporters.model.ProbeStatus;
import io.segscope.exporters.model.ProgramStats;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.exporters.model.XdpDeviceStats;
import io.segscope.probes.ProbeAttachment;
import io.segscope.probes.ProbeReading;
import io.segscope.probes.gso.DeviceCounters;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Translates what the probes read (raw per-device kernel counters) into the exporters' snapshot
 * model, naming each device and labelling each path's metrics with the mode that path runs in.
 * A record it cannot take (a name or a value the model refuses, a namer that fails) is skipped and
 * reported to {@link RecordErrors} (kind {@code counters}, {@code probe}, {@code program}); the
 * rest of the read is assembled. Pure: no kernel access.
 */
public final class SnapshotAssembler {

  /** Names a device from (netns inode, ifindex); the kernel's name is the fallback. */
  public interface DeviceNamer {
    DeviceRef name(long netns, int ifindex, String kernelName);
  }

  private final BuildInfo build;
  private final RecordErrors errors;

  /** An assembler that logs skipped records (once each) without exporting the count. */
  public SnapshotAssembler(BuildInfo build) {
    this(build, new RecordErrors(new io.micrometer.core.instrument.simple.SimpleMeterRegistry()));
  }

  /** An assembler that reports skipped records to {@code errors}. */
  public SnapshotAssembler(BuildInfo build, RecordErrors errors) {
    this.build = build;
    this.errors = errors;
  }

  /** From a live probe session: its attachments, program stats and per-path modes. */
  public TelemetrySnapshot assemble(Instant at, ProbeReading reading, io.segscope.probes.ProbeSession probes,
      DeviceNamer namer) {
    return assemble(at, reading, ProbeSource.of(probes), namer);
  }

  /** From any probe source: its attachments, program stats and per-path modes. */
  public TelemetrySnapshot assemble(Instant at, ProbeReading reading, ProbeSource probes, DeviceNamer namer) {
    return assemble(at, reading, probes.attachments(), probes.programStats(),
        probes.mode(io.segscope.probes.ProbeSession.PATH_GSO_TX),
        probes.mode(io.segscope.probes.ProbeSession.PATH_XDP_GENERIC), namer);
  }

  public TelemetrySnapshot assemble(Instant at, ProbeReading reading, List<ProbeAttachment> attachments,
      List<io.segscope.probes.bcc.ProgramStats> programs, String gsoMode, String xdpMode, DeviceNamer namer) {
    TelemetrySnapshot.Builder b = TelemetrySnapshot.builder().takenAt(at).buildInfo(build);
    for (DeviceCounters c : reading.devices()) {
      try {
        DeviceRef ref = namer.name(c.netns(), c.ifindex(), c.kernelName());
        GsoDeviceStats gso = null;
        XdpDeviceStats xdp = null;
        // an unmeasured path has mode "" and no counts; never label series with an empty mode
        if (!gsoMode.isEmpty() && (c.swSkbs() > 0 || c.offloadedSkbs() > 0)) {
          gso = gso(ref, c, gsoMode);
        }
        if (!xdpMode.isEmpty() && (c.xdpCopied() > 0 || c.xdpPassed() > 0)) {
          xdp = new XdpDeviceStats(ref, xdpMode, c.xdpCopied(), c.xdpPassed(), c.xdpCopiedBytes(),
              new Log2Histogram(c.xdpDurationSlots(), c.xdpNanos()));
        }
        if (gso != null) {
          b.addGso(gso);
        }
        if (xdp != null) {
          b.addXdp(xdp);
        }
      } catch (RuntimeException e) {
        errors.skipped(RecordErrors.COUNTERS, c.netns() + "/" + c.ifindex() + "/" + c.kernelName(),
            "of device " + c.kernelName() + " (netns " + c.netns() + ", ifindex " + c.ifindex() + ")", e);
      }
    }
    for (ProbeAttachment a : attachments) {
      try {
        b.addProbe(new ProbeStatus(a.path(), a.program(), a.mode(), a.attached()));
      } catch (RuntimeException e) {
        errors.skipped(TranslationErrorListener.PROBE, a.path() + "/" + a.program(), a.toString(), e);
      }
    }
    for (io.segscope.probes.bcc.ProgramStats p : programs) {
      try {
        b.addProgram(new ProgramStats(p.function(), p.runTimeNanos(), p.runCount()));
      } catch (RuntimeException e) {
        errors.skipped(TranslationErrorListener.PROGRAM, String.valueOf(p.function()), p.toString(), e);
      }
    }
    return b.build();
  }

  private GsoDeviceStats gso(DeviceRef ref, DeviceCounters c, String mode) {
    Map<GsoCause, Long> causes = new EnumMap<>(GsoCause.class);
    for (DeviceCounters.Cause k : DeviceCounters.Cause.values()) {
      causes.put(GsoCause.valueOf(k.name()), c.cause(k));
    }
    return new GsoDeviceStats(ref, mode, c.swSkbs(), c.swSegments(), c.swBytes(),
        new Log2Histogram(c.durationSlots(), c.swNanos()),
        new Log2Histogram(c.segmentSlots(), segmentSum(c)),
        c.offloadedSkbs(), causes);
  }

  /** Segments of the skbs in the segments histogram: every software-segmented skb is in it. */
  private static double segmentSum(DeviceCounters c) {
    return c.swSegments();
  }
}

package io.segscope.agent.telemetry;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.segscope.agent.cost.Histograms;
import io.segscope.device.DeviceId;
import io.segscope.exporters.RecordErrors;
import io.segscope.exporters.TranslationErrorListener;
import io.segscope.exporters.model.BuildInfo;
import io.segscope.exporters.model.CallSiteStatus;
import io.segscope.exporters.model.DeviceRef;
import io.segscope.exporters.model.GsoDeviceStats;
import io.segscope.exporters.model.NativeHistogram;
import io.segscope.exporters.model.ProbeStatus;
import io.segscope.exporters.model.ProgramStats;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.exporters.model.XdpDeviceStats;
import io.segscope.probes.ProbeAttachment;
import io.segscope.probes.ProbeReading;
import io.segscope.probes.program.CallSites;
import io.segscope.probes.wire.DeviceReading;
import io.segscope.probes.wire.GsoDetail;
import io.segscope.vocabulary.Cause;
import io.segscope.vocabulary.GsoType;
import io.segscope.vocabulary.Site;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Translates what the probes read (raw per-device kernel counters) into the exporters' snapshot
 * model, naming each device and labelling each path's metrics with the mode that path runs in.
 * A record it cannot take (a name or a value the model refuses, a namer that fails) is skipped and
 * reported to {@link RecordErrors} (kind {@code counters}, {@code probe}, {@code program}); the rest of
 * the read is assembled. Pure: no kernel access. Causes, sites and GSO types are one vocabulary
 * (module {@code vocabulary}) on both sides: no translation table.
 */
public final class SnapshotAssembler {

  /**
   * Names a device from the probes' key (netns cookie, netns inode, ifindex); the kernel's name is the
   * fallback.
   */
  public interface DeviceNamer {
    DeviceRef name(DeviceId key, String kernelName);
  }

  private final BuildInfo build;
  private final RecordErrors errors;

  /** An assembler that logs skipped records (once each) without exporting the count. */
  public SnapshotAssembler(BuildInfo build) {
    this(build, new RecordErrors(new SimpleMeterRegistry()));
  }

  /** An assembler that reports skipped records to {@code errors}. */
  public SnapshotAssembler(BuildInfo build, RecordErrors errors) {
    this.build = build;
    this.errors = errors;
  }

  /**
   * @param gsoMode the gso_tx path's mode label, "" when it is not measured
   * @param xdpMode the xdp_generic path's mode label, "" when it is not measured
   * @param programs the agent's own programs' run statistics (see {@link SelfCost})
   */
  public TelemetrySnapshot assemble(Instant at, ProbeReading reading, List<ProbeAttachment> attachments,
      SelfCost.Reading programs, String gsoMode, String xdpMode, DeviceNamer namer) {
    TelemetrySnapshot.Builder b = TelemetrySnapshot.builder().takenAt(at).buildInfo(build);
    for (DeviceReading r : reading.devices()) {
      try {
        DeviceRef ref = namer.name(r.id(), r.kernelName());
        var c = r.counts();
        GsoDeviceStats gso = null;
        XdpDeviceStats xdp = null;
        // an unmeasured path has mode "" and no counts; never label series with an empty mode
        if (!gsoMode.isEmpty() && (c.swSkbs() > 0 || r.offloadedSkbs() > 0)) {
          gso = gso(ref, r, gsoMode);
        }
        if (!xdpMode.isEmpty() && (c.xdpCopied() > 0 || c.xdpPassed() > 0)) {
          Optional<NativeHistogram> dur = r.xdp().map(x -> Histograms.duration(x.durationSlots(), x.timedNanos()));
          xdp = new XdpDeviceStats(ref, xdpMode, c.xdpCopied(), c.xdpPassed(), c.xdpCopiedBytes(),
              c.xdpPassedBytes(), dur);
        }
        if (gso != null) {
          b.addGso(gso);
        }
        if (xdp != null) {
          b.addXdp(xdp);
        }
      } catch (RuntimeException e) {
        errors.skipped(RecordErrors.COUNTERS, r.id().withoutCookie() + "/" + r.kernelName(),
            "of device " + r.kernelName() + " (netns " + r.id().netns() + ", ifindex " + r.id().ifindex() + ")", e);
      }
    }
    for (ProbeAttachment a : attachments) {
      try {
        b.addProbe(new ProbeStatus(a.path(), a.program(), a.mode(), a.attach(), a.attached(), a.onDemand()));
      } catch (RuntimeException e) {
        errors.skipped(TranslationErrorListener.PROBE, a.path() + "/" + a.program(), a.toString(), e);
      }
    }
    for (ProgramStats p : programs.programs()) {
      b.addProgram(p);
    }
    b.selfCostSampledSeconds(programs.sampledSeconds());
    return b.build();
  }

  /** The probes' call-site resolutions as exported; one that does not translate is skipped and counted. */
  public List<CallSiteStatus> callSites(List<CallSites.Resolution> resolutions) {
    List<CallSiteStatus> out = new ArrayList<>();
    for (CallSites.Resolution r : resolutions) {
      try {
        out.add(new CallSiteStatus(r.callSite().name(), r.callSite().site().label(), r.function().orElse(""),
            r.resolved()));
      } catch (RuntimeException e) {
        errors.skipped(TranslationErrorListener.PROBE, "call site " + r.callSite().name(), r.toString(), e);
      }
    }
    return out;
  }

  private static GsoDeviceStats gso(DeviceRef ref, DeviceReading r, String mode) {
    var c = r.counts();
    Map<Cause, Long> causes = new EnumMap<>(Cause.class);
    Map<Site, Long> sites = new EnumMap<>(Site.class);
    Map<GsoType, Long> types = new EnumMap<>(GsoType.class);
    NativeHistogram duration = Histograms.EMPTY_DURATION;
    NativeHistogram segments = Histograms.EMPTY_SEGMENTS;
    if (r.gso().isPresent()) {
      GsoDetail d = r.gso().get();
      for (Cause k : Cause.values()) {
        causes.put(k, d.cause(k));
      }
      for (Site k : Site.values()) {
        sites.put(k, d.site(k));
      }
      for (GsoType k : GsoType.values()) {
        types.put(k, d.gsoType(k));
      }
      duration = Histograms.duration(d.durationSlots(), d.timedNanos());
      segments = Histograms.segments(d.segmentSlots(), c.swSegments());
    }
    return new GsoDeviceStats(ref, mode, c.swSkbs(), c.swSegments(), c.swBytes(), duration, segments,
        r.offloadedSkbs(), causes, sites, types, c.gsoQueuedBytes());
  }
}

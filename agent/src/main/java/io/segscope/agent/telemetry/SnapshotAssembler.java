package io.segscope.agent.telemetry;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.segscope.agent.cost.Histograms;
import io.segscope.device.DeviceId;
import io.segscope.exporters.RecordErrors;
import io.segscope.exporters.TranslationErrorListener;
import io.segscope.exporters.model.BuildInfo;
import io.segscope.exporters.model.CallSiteStatus;
import io.segscope.exporters.model.DeviceRef;
import io.segscope.exporters.model.GsoCause;
import io.segscope.exporters.model.GsoDeviceStats;
import io.segscope.exporters.model.GsoSite;
import io.segscope.exporters.model.GsoType;
import io.segscope.exporters.model.NativeHistogram;
import io.segscope.exporters.model.ProbeStatus;
import io.segscope.exporters.model.ProgramStats;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.exporters.model.XdpDeviceStats;
import io.segscope.probes.ProbeAttachment;
import io.segscope.probes.ProbeReading;
import io.segscope.probes.program.CallSites;
import io.segscope.probes.wire.Cause;
import io.segscope.probes.wire.DeviceReading;
import io.segscope.probes.wire.GsoDetail;
import io.segscope.probes.wire.Site;
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
 * the read is assembled. Pure: no kernel access. The probes' enumerations map to the exporters' by
 * explicit tables ({@link #CAUSES}, {@link #SITES}, {@link #TYPES}), never by spelling.
 */
public final class SnapshotAssembler {

  /**
   * Names a device from the probes' key (netns cookie, netns inode, ifindex); the kernel's name is the
   * fallback.
   */
  public interface DeviceNamer {
    DeviceRef name(DeviceId key, String kernelName);
  }

  static final Map<Cause, GsoCause> CAUSES = table(Cause.class, Map.of(
      Cause.FEATURE_MISSING, GsoCause.FEATURE_MISSING, Cause.GSO_MAX_SIZE, GsoCause.GSO_MAX_SIZE,
      Cause.GSO_MAX_SEGS, GsoCause.GSO_MAX_SEGS, Cause.CHECKSUM, GsoCause.CHECKSUM, Cause.OTHER, GsoCause.OTHER,
      Cause.MTU, GsoCause.MTU, Cause.QDISC, GsoCause.QDISC,
      Cause.TUNNEL_FEATURE_MISSING, GsoCause.TUNNEL_FEATURE_MISSING));
  static final Map<Site, GsoSite> SITES = table(Site.class, Map.of(
      Site.XMIT, GsoSite.XMIT, Site.IP_OUTPUT_MTU, GsoSite.IP_OUTPUT_MTU, Site.QDISC, GsoSite.QDISC,
      Site.XFRM, GsoSite.XFRM, Site.UDP_RX, GsoSite.UDP_RX, Site.OTHER, GsoSite.OTHER));
  static final Map<io.segscope.probes.wire.GsoType, GsoType> TYPES = table(io.segscope.probes.wire.GsoType.class,
      Map.of(io.segscope.probes.wire.GsoType.TCP4, GsoType.TCP4, io.segscope.probes.wire.GsoType.TCP6, GsoType.TCP6,
          io.segscope.probes.wire.GsoType.UDP_L4, GsoType.UDP_L4,
          io.segscope.probes.wire.GsoType.UDP_TUNNEL, GsoType.UDP_TUNNEL,
          io.segscope.probes.wire.GsoType.GRE, GsoType.GRE, io.segscope.probes.wire.GsoType.IPIP, GsoType.IPIP,
          io.segscope.probes.wire.GsoType.FRAGLIST, GsoType.FRAGLIST,
          io.segscope.probes.wire.GsoType.OTHER, GsoType.OTHER));

  /** A total mapping: fails at class initialisation if the probes gained a value the exporters lack. */
  private static <K extends Enum<K>, V> Map<K, V> table(Class<K> type, Map<K, V> entries) {
    Map<K, V> m = new EnumMap<>(type);
    m.putAll(entries);
    for (K k : type.getEnumConstants()) {
      if (!m.containsKey(k)) {
        throw new IllegalStateException("map " + type.getSimpleName() + "." + k + ": no exported value");
      }
    }
    return m;
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
        b.addProbe(new ProbeStatus(a.path(), a.program(), a.mode(), a.attach(), a.attached()));
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
    Map<GsoCause, Long> causes = new EnumMap<>(GsoCause.class);
    Map<GsoSite, Long> sites = new EnumMap<>(GsoSite.class);
    Map<GsoType, Long> types = new EnumMap<>(GsoType.class);
    NativeHistogram duration = Histograms.EMPTY_DURATION;
    NativeHistogram segments = Histograms.EMPTY_SEGMENTS;
    if (r.gso().isPresent()) {
      GsoDetail d = r.gso().get();
      CAUSES.forEach((k, v) -> causes.put(v, d.cause(k)));
      SITES.forEach((k, v) -> sites.put(v, d.site(k)));
      TYPES.forEach((k, v) -> types.put(v, d.gsoType(k)));
      duration = Histograms.duration(d.durationSlots(), d.timedNanos());
      segments = Histograms.segments(d.segmentSlots(), c.swSegments());
    }
    return new GsoDeviceStats(ref, mode, c.swSkbs(), c.swSegments(), c.swBytes(), duration, segments,
        r.offloadedSkbs(), causes, sites, types, c.gsoQueuedBytes());
  }
}

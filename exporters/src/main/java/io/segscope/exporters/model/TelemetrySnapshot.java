package io.segscope.exporters.model;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything the agent measured at one instant: the input of the exporters. Immutable; lists are
 * unmodifiable copies without null elements.
 *
 * @param takenAt when the values were read ({@link Instant#EPOCH} for {@link #empty()})
 * @param gso software GSO per device and probe mode
 * @param xdp generic XDP per device and probe mode
 * @param probes every probe the agent planned, attached or not
 * @param programs bpf_stats per loaded program
 * @param build what the agent is and runs on
 * @param devices every device of the inventory, in every namespace
 * @param recommendations the open recommendations
 * @param selfCostSampledSeconds how long bpf_stats has been on to measure the agent's own programs
 * @param namespaces every network namespace of the inventory with the workload it belongs to
 * @param deviceWorkloads per device of the inventory, the workload it serves
 * @param verifiedSavings what closed recommendations were measured to save (the newest, at most 64)
 */
public record TelemetrySnapshot(
    Instant takenAt,
    List<GsoDeviceStats> gso,
    List<XdpDeviceStats> xdp,
    List<ProbeStatus> probes,
    List<ProgramStats> programs,
    BuildInfo build,
    List<DeviceInfo> devices,
    List<RecommendationInfo> recommendations,
    List<NetnsInfo> namespaces,
    List<DeviceWorkload> deviceWorkloads,
    double selfCostSampledSeconds,
    List<VerifiedSaving> verifiedSavings,
    List<CallSiteStatus> callSites) {
  public TelemetrySnapshot {
    Checks.notNull(takenAt, "TelemetrySnapshot.takenAt");
    gso = Checks.immutableList(gso, "TelemetrySnapshot.gso");
    xdp = Checks.immutableList(xdp, "TelemetrySnapshot.xdp");
    probes = Checks.immutableList(probes, "TelemetrySnapshot.probes");
    programs = Checks.immutableList(programs, "TelemetrySnapshot.programs");
    Checks.notNull(build, "TelemetrySnapshot.build");
    devices = Checks.immutableList(devices, "TelemetrySnapshot.devices");
    recommendations = Checks.immutableList(recommendations, "TelemetrySnapshot.recommendations");
    if (!(selfCostSampledSeconds >= 0) || Double.isInfinite(selfCostSampledSeconds)) {
      throw new IllegalArgumentException("TelemetrySnapshot.selfCostSampledSeconds must be finite and >= 0, got "
          + selfCostSampledSeconds);
    }
    namespaces = Checks.immutableList(namespaces, "TelemetrySnapshot.namespaces");
    deviceWorkloads = Checks.immutableList(deviceWorkloads, "TelemetrySnapshot.deviceWorkloads");
    verifiedSavings = Checks.immutableList(verifiedSavings, "TelemetrySnapshot.verifiedSavings");
    callSites = Checks.sharedList(callSites, "TelemetrySnapshot.callSites");
  }

  /** A snapshot without call-site resolutions. */
  public TelemetrySnapshot(Instant takenAt, List<GsoDeviceStats> gso, List<XdpDeviceStats> xdp,
      List<ProbeStatus> probes, List<ProgramStats> programs, BuildInfo build, List<DeviceInfo> devices,
      List<RecommendationInfo> recommendations, List<NetnsInfo> namespaces, List<DeviceWorkload> deviceWorkloads,
      double selfCostSampledSeconds, List<VerifiedSaving> verifiedSavings) {
    this(takenAt, gso, xdp, probes, programs, build, devices, recommendations, namespaces, deviceWorkloads,
        selfCostSampledSeconds, verifiedSavings, List.of());
  }

  /** A snapshot without verified savings. */
  public TelemetrySnapshot(Instant takenAt, List<GsoDeviceStats> gso, List<XdpDeviceStats> xdp,
      List<ProbeStatus> probes, List<ProgramStats> programs, BuildInfo build, List<DeviceInfo> devices,
      List<RecommendationInfo> recommendations, List<NetnsInfo> namespaces, List<DeviceWorkload> deviceWorkloads,
      double selfCostSampledSeconds) {
    this(takenAt, gso, xdp, probes, programs, build, devices, recommendations, namespaces, deviceWorkloads,
        selfCostSampledSeconds, List.of());
  }

  /** A snapshot without workload attribution (no namespaces, no device workloads). */
  public TelemetrySnapshot(Instant takenAt, List<GsoDeviceStats> gso, List<XdpDeviceStats> xdp,
      List<ProbeStatus> probes, List<ProgramStats> programs, BuildInfo build, List<DeviceInfo> devices,
      List<RecommendationInfo> recommendations) {
    this(takenAt, gso, xdp, probes, programs, build, devices, recommendations, List.of(), List.of(), 0);
  }

  /** Nothing measured yet: taken at {@link Instant#EPOCH}, no records, {@link BuildInfo#unknown()}. */
  public static TelemetrySnapshot empty() {
    return builder().build();
  }

  /** This snapshot with the inventory's devices and the open recommendations replaced. */
  public TelemetrySnapshot withDevicesAndRecommendations(List<DeviceInfo> devices,
      List<RecommendationInfo> recommendations) {
    return new TelemetrySnapshot(takenAt, gso, xdp, probes, programs, build, devices, recommendations,
        namespaces, deviceWorkloads, selfCostSampledSeconds, verifiedSavings, callSites);
  }

  /** This snapshot with the call-site resolutions replaced. */
  public TelemetrySnapshot withCallSites(List<CallSiteStatus> sites) {
    return new TelemetrySnapshot(takenAt, gso, xdp, probes, programs, build, devices, recommendations,
        namespaces, deviceWorkloads, selfCostSampledSeconds, verifiedSavings, sites);
  }

  /** This snapshot with the verified savings replaced. */
  public TelemetrySnapshot withVerifiedSavings(List<VerifiedSaving> savings) {
    return new TelemetrySnapshot(takenAt, gso, xdp, probes, programs, build, devices, recommendations,
        namespaces, deviceWorkloads, selfCostSampledSeconds, savings, callSites);
  }

  /** This snapshot with the namespaces' and devices' workloads replaced. */
  public TelemetrySnapshot withWorkloads(List<NetnsInfo> namespaces, List<DeviceWorkload> deviceWorkloads) {
    return new TelemetrySnapshot(takenAt, gso, xdp, probes, programs, build, devices, recommendations,
        namespaces, deviceWorkloads, selfCostSampledSeconds, verifiedSavings, callSites);
  }

  /** A builder starting from {@link #empty()}'s values. */
  public static Builder builder() {
    return new Builder();
  }

  /** Collects records, then {@link #build()}s an immutable snapshot. Not thread-safe. */
  public static final class Builder {
    private Instant takenAt = Instant.EPOCH;
    private final List<GsoDeviceStats> gso = new ArrayList<>();
    private final List<XdpDeviceStats> xdp = new ArrayList<>();
    private final List<ProbeStatus> probes = new ArrayList<>();
    private final List<ProgramStats> programs = new ArrayList<>();
    private final List<DeviceInfo> devices = new ArrayList<>();
    private final List<RecommendationInfo> recommendations = new ArrayList<>();
    private final List<NetnsInfo> namespaces = new ArrayList<>();
    private final List<DeviceWorkload> deviceWorkloads = new ArrayList<>();
    private final List<VerifiedSaving> verifiedSavings = new ArrayList<>();
    private final List<CallSiteStatus> callSites = new ArrayList<>();
    private BuildInfo build = BuildInfo.unknown();
    private double selfCostSampledSeconds;

    private Builder() {}

    public Builder takenAt(Instant takenAt) {
      this.takenAt = Checks.notNull(takenAt, "TelemetrySnapshot.Builder.takenAt");
      return this;
    }

    public Builder addGso(GsoDeviceStats stats) {
      gso.add(Checks.notNull(stats, "TelemetrySnapshot.Builder.addGso argument"));
      return this;
    }

    public Builder addXdp(XdpDeviceStats stats) {
      xdp.add(Checks.notNull(stats, "TelemetrySnapshot.Builder.addXdp argument"));
      return this;
    }

    public Builder addDevice(DeviceInfo device) {
      devices.add(Checks.notNull(device, "TelemetrySnapshot.Builder.addDevice argument"));
      return this;
    }

    public Builder addRecommendation(RecommendationInfo recommendation) {
      recommendations.add(Checks.notNull(recommendation, "TelemetrySnapshot.Builder.addRecommendation argument"));
      return this;
    }

    public Builder addNamespace(NetnsInfo namespace) {
      namespaces.add(Checks.notNull(namespace, "TelemetrySnapshot.Builder.addNamespace argument"));
      return this;
    }

    public Builder addDeviceWorkload(DeviceWorkload deviceWorkload) {
      deviceWorkloads.add(Checks.notNull(deviceWorkload, "TelemetrySnapshot.Builder.addDeviceWorkload argument"));
      return this;
    }

    public Builder addVerifiedSaving(VerifiedSaving saving) {
      verifiedSavings.add(Checks.notNull(saving, "TelemetrySnapshot.Builder.addVerifiedSaving argument"));
      return this;
    }

    public Builder addProbe(ProbeStatus probe) {
      probes.add(Checks.notNull(probe, "TelemetrySnapshot.Builder.addProbe argument"));
      return this;
    }

    public Builder addCallSite(CallSiteStatus callSite) {
      callSites.add(Checks.notNull(callSite, "TelemetrySnapshot.Builder.addCallSite argument"));
      return this;
    }

    public Builder addProgram(ProgramStats program) {
      programs.add(Checks.notNull(program, "TelemetrySnapshot.Builder.addProgram argument"));
      return this;
    }

    public Builder buildInfo(BuildInfo build) {
      this.build = Checks.notNull(build, "TelemetrySnapshot.Builder.buildInfo");
      return this;
    }

    public Builder selfCostSampledSeconds(double seconds) {
      this.selfCostSampledSeconds = seconds;
      return this;
    }

    public TelemetrySnapshot build() {
      return new TelemetrySnapshot(takenAt, gso, xdp, probes, programs, build, devices, recommendations,
          namespaces, deviceWorkloads, selfCostSampledSeconds, verifiedSavings, callSites);
    }
  }
}

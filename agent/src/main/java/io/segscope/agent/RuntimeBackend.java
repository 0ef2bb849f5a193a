package io.segscope.agent;

import io.segscope.agent.advice.Recommendation;
import io.segscope.agent.advice.SavingCheck;
import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.http.Backend;
import io.segscope.agent.inventory.DeviceInventory;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.telemetry.TelemetryPipeline;
import io.segscope.agent.workload.WorkloadResolver;
import io.segscope.agent.workload.Workloads;
import io.segscope.probes.ProbeSession;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * What the HTTP server serves, from the telemetry service, the probes and the inventory. Until the
 * probes are attached ({@link #attached}) there is no telemetry: /readyz says "probes: compiling",
 * /metrics and the API answer 503.
 */
final class RuntimeBackend implements Backend {
  private static final Logger LOG = Logger.getLogger(RuntimeBackend.class.getName());

  static final String COMPILING = "probes: compiling";
  private final DeviceInventory inventory;
  private final WorkloadResolver workloads;
  private volatile TelemetryPipeline telemetry;
  private volatile ProbeSession probes;
  private final HeapRelease heap;
  private boolean firstReadLogged;

  RuntimeBackend(DeviceInventory inventory, WorkloadResolver workloads,
      HeapRelease heap) {
    this.inventory = inventory;
    this.heap = heap;
    this.workloads = workloads;
  }

  void attached(TelemetryPipeline telemetry, ProbeSession probes) {
    this.probes = probes;
    this.telemetry = telemetry;
  }

  /** After each turn of the pipeline (on its thread): the first read is logged, the heap released. */
  void turned() {
    TelemetryPipeline t = telemetry;
    if (t == null) {
      return;
    }
    if (!firstReadLogged && t.firstReadDone()) {
      firstReadLogged = true;
      LOG.info("first map read done: serving telemetry " + AgentRuntime.sinceJvmStart() + " ms after the JVM started");
      heap.afterStart();
    } else if (firstReadLogged) {
      heap.afterRead(t.inventory().devices().size());
    }
  }

  @Override
  public Optional<String> unavailable() {
    TelemetryPipeline t = telemetry;
    return t == null ? Optional.of(COMPILING)
        : t.firstReadDone() ? Optional.empty() : Optional.of("first map read pending");
  }

  @Override
  public Inventory inventory() {
    TelemetryPipeline t = telemetry;
    return t == null ? Inventory.empty() : t.inventory();
  }

  @Override
  public Workloads workloads() {
    TelemetryPipeline t = telemetry;
    return t == null ? workloads.current() : t.workloads();
  }

  @Override
  public Collection<DeviceCost> costs() {
    TelemetryPipeline t = telemetry;
    return t == null ? List.of() : t.advisor().lastCosts();
  }

  @Override
  public List<Recommendation> recommendations() {
    TelemetryPipeline t = telemetry;
    return t == null ? List.of() : t.advisor().open();
  }

  @Override
  public List<SavingCheck.Verification> verifiedSavings() {
    return telemetry.advisor().verified();
  }

  @Override
  public List<String> notReadyReasons() {
    TelemetryPipeline t = telemetry;
    ProbeSession p = probes;
    if (t == null || p == null) {
      List<String> reasons = new ArrayList<>(List.of(COMPILING));
      reasons.addAll(Health.notReady(List.of(), List.of(), true, Health.status(inventory),
          Instant.now(), Health.INVENTORY_STALE_AFTER));
      return reasons;
    }
    return Health.notReady(p.plan().paths(), p.attachments(), t.firstReadDone(),
        Health.status(inventory), Instant.now(),
        Health.INVENTORY_STALE_AFTER);
  }
}

package io.segscope.agent.http;

import io.segscope.agent.advice.Recommendation;
import io.segscope.agent.advice.SavingCheck;
import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.workload.Workloads;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/** What the HTTP server serves: the agent's telemetry (as the pipeline published it), inventory, advice and health. */
public interface Backend {
  /** The latest device inventory. Fast. */
  Inventory inventory();

  /** The latest workload resolution (who each namespace belongs to). Fast. */
  Workloads workloads();

  /** The latest per-device costs (the advisor's window). Fast. */
  Collection<DeviceCost> costs();

  /** The open (and accepted) recommendations. Fast. */
  List<Recommendation> recommendations();

  /** What closed recommendations were measured to save, newest first. Fast. */
  default List<SavingCheck.Verification> verifiedSavings() {
    return List.of();
  }

  /** Why the agent is not ready (each reason one short line); empty when ready. Fast, non-blocking. */
  List<String> notReadyReasons();

  /**
   * Why there is no telemetry to serve yet (e.g. "probes: compiling" during a start): /metrics and the
   * API then answer 503 with it, /healthz and /readyz answer as usual. Empty once there is. Fast.
   */
  default Optional<String> unavailable() {
    return Optional.empty();
  }
}

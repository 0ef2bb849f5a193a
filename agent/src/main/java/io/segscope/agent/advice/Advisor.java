package io.segscope.agent.advice;

import io.segscope.agent.cost.CostModel;
import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.inventory.Inventory;
import io.segscope.exporters.model.TelemetrySnapshot;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.List;
import java.util.logging.Logger;

/**
 * Turns the stream of snapshots into open recommendations: the cost over the last {@code window}
 * (from the oldest kept snapshot at least that old), the rules, then hysteresis. Logs a line when a
 * recommendation opens or closes. Advice only: nothing here changes the host. Called by one thread.
 */
public final class Advisor {
  private static final Logger LOG = Logger.getLogger(Advisor.class.getName());

  /** Snapshots kept per advice window at most (plus two): bounds memory for any --interval. */
  static final int HISTORY_POINTS = 256;

  private final Duration window;
  private final Recommender recommender;
  private final RecommendationTracker tracker;
  private final AdviceContext.Thresholds thresholds;
  private final boolean xdpFragsCopy;
  private final ArrayDeque<TelemetrySnapshot> history = new ArrayDeque<>();
  private volatile List<Recommendation> open = List.of();
  private volatile Collection<DeviceCost> lastCosts = List.of();

  public Advisor(Duration window, Duration openAfter, Duration closeAfter, AdviceContext.Thresholds thresholds,
      boolean xdpFragsCopy) {
    this.window = window;
    this.recommender = new Recommender();
    this.tracker = new RecommendationTracker(openAfter, closeAfter);
    this.thresholds = thresholds;
    this.xdpFragsCopy = xdpFragsCopy;
  }

  /** Feeds one snapshot; returns the open recommendations after it. */
  public List<Recommendation> update(TelemetrySnapshot snapshot, Inventory inventory) {
    Instant now = snapshot.takenAt();
    // at most ~HISTORY_POINTS snapshots per window, whatever the interval: the newest replaces the
    // previous one while that one is less than window/HISTORY_POINTS younger than the one before it
    if (history.size() >= 2) {
      TelemetrySnapshot last = history.removeLast();
      TelemetrySnapshot before = history.peekLast();
      if (!Duration.between(before.takenAt(), last.takenAt()).minus(window.dividedBy(HISTORY_POINTS)).isNegative()) {
        history.addLast(last);
      }
    }
    history.addLast(snapshot);
    // keep the newest snapshot that is at least `window` old, and everything after it
    while (history.size() > 2) {
      TelemetrySnapshot second = history.stream().skip(1).findFirst().orElseThrow();
      if (!Duration.between(second.takenAt(), now).minus(window).isNegative()) {
        history.removeFirst();
      } else {
        break;
      }
    }
    TelemetrySnapshot from = history.peekFirst();
    if (from == null || !from.takenAt().isBefore(now)) {
      return open;
    }
    Collection<DeviceCost> costs = CostModel.window(from, snapshot).values();
    lastCosts = costs;
    List<Finding> findings = recommender.evaluate(costs, AdviceContext.of(inventory, thresholds, xdpFragsCopy, costs));
    List<RecommendationTracker.Change> changes = new java.util.ArrayList<>(tracker.update(now, findings));
    // a recommendation about a device that no longer exists closes now, not after --advice-close-after
    // (an empty inventory is a failed read, not every device gone)
    if (!inventory.devices().isEmpty()) {
      changes.addAll(tracker.closeIf(f -> f.devices().stream().anyMatch(d -> inventory.device(d.netns(),
          d.ifindex()).map(x -> !x.name().equals(d.device())).orElse(true))));
    }
    for (RecommendationTracker.Change c : changes) {
      Finding f = c.recommendation().finding();
      if (c.kind().equals("opened")) {
        LOG.info(String.format("recommendation opened: %s [%s] %s; saving %.4f cores; run: %s", c.recommendation().id(),
            f.severity(), f.summary(), f.cpuSavingCores(),
            f.commands().stream().map(Command::display).collect(java.util.stream.Collectors.joining(" && "))));
      } else {
        LOG.info("recommendation closed: " + c.recommendation().id() + " (" + f.summary()
            + "): no evidence since " + c.recommendation().lastSeen());
      }
    }
    open = tracker.open();
    return open;
  }

  /** How many snapshots are kept (for tests of the memory bound). */
  int historySize() {
    return history.size();
  }

  public List<Recommendation> open() {
    return open;
  }

  /** The costs of the latest window (for the API). */
  public Collection<DeviceCost> lastCosts() {
    return lastCosts;
  }
}

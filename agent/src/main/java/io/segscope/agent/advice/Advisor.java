package io.segscope.agent.advice;

import io.segscope.agent.cost.CostModel;
import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.device.DeviceId;
import io.segscope.exporters.model.TelemetrySnapshot;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * Turns the stream of snapshots into recommendations: the cost over the last {@code window} (from
 * the oldest kept snapshot at least that old), the rules, then hysteresis. Findings the operator
 * accepted ({@link AdviceIntent}) are tracked the same way with state {@code accepted}. Logs a line
 * when a recommendation opens or closes (an accepted one: one line when it is accepted). When one
 * closes because its evidence stopped, compares what its devices cost before and after
 * ({@link SavingCheck}) and keeps the newest {@link #MAX_VERIFIED} outcomes. Advice only: nothing here
 * changes the host. Called by one thread.
 */
public final class Advisor {
  private static final Logger LOG = Logger.getLogger(Advisor.class.getName());

  /** Snapshots kept per advice window at most (plus two): bounds memory for any --interval. */
  static final int HISTORY_POINTS = 256;
  /**
   * Verified savings kept (the newest), until the agent restarts: one per recommendation id, its latest close
   * (a recommendation whose evidence came back and stopped again closes twice under its stable id; both
   * outcomes exported would be one series twice).
   */
  public static final int MAX_VERIFIED = 64;

  /**
   * A window is the "before" of a recommendation when its software rate is at least this share of
   * the highest seen: a window that straddles the fix (part before, part after) is not taken for
   * the state before it.
   */
  static final double BASELINE_SHARE = 0.9;

  /** The before window of an open recommendation and the highest rate it was seen at. */
  private record Baseline(double peak, SavingCheck.Measure before, List<Device> settings) {}

  private final Duration window;
  private final Recommender recommender;
  private final RecommendationTracker tracker;
  private final AdviceContext.Thresholds thresholds;
  private final boolean xdpFragsCopy;
  private final ArrayDeque<TelemetrySnapshot> history = new ArrayDeque<>();
  /** The host's kernel CPU seconds ({@link io.segscope.agent.cost.HostCpu}) read with each kept snapshot. */
  private final Map<Instant, Double> hostCpuAt = new HashMap<>();
  private final AdviceIntent intent;
  private final Map<String, Baseline> baselines = new HashMap<>();
  private final Map<String, SavingCheck.Measure> afters = new HashMap<>();
  /**
   * When each open recommendation's finding was first absent after it was last present: the read at
   * which the evidence had stopped. Only counts after it are "after": a read that still found the
   * finding may have been taken before the fix (the inventory had not seen it yet), so the interval
   * from that read to the fix still carried the cost.
   */
  private final Map<String, Instant> absentSince = new HashMap<>();
  private final ArrayDeque<SavingCheck.Verification> verified = new ArrayDeque<>();
  private volatile List<SavingCheck.Verification> verifiedView = List.of();
  private volatile List<Recommendation> open = List.of();
  private volatile Collection<DeviceCost> lastCosts = List.of();

  public Advisor(Duration window, Duration openAfter, Duration closeAfter, AdviceContext.Thresholds thresholds,
      boolean xdpFragsCopy) {
    this(window, openAfter, closeAfter, thresholds, xdpFragsCopy, AdviceIntent.NONE);
  }

  public Advisor(Duration window, Duration openAfter, Duration closeAfter, AdviceContext.Thresholds thresholds,
      boolean xdpFragsCopy, AdviceIntent intent) {
    this.intent = intent;
    this.window = window;
    this.recommender = new Recommender();
    this.tracker = new RecommendationTracker(openAfter, closeAfter);
    this.thresholds = thresholds;
    this.xdpFragsCopy = xdpFragsCopy;
  }

  /** Feeds one snapshot without the host's CPU (verdicts that need it are then inconclusive). */
  public List<Recommendation> update(TelemetrySnapshot snapshot, Inventory inventory) {
    return update(snapshot, inventory, Double.NaN);
  }

  /**
   * Feeds one snapshot; returns the open recommendations after it.
   *
   * @param hostCpuSeconds the host's kernel CPU seconds ({@link io.segscope.agent.cost.HostCpu#read()}) read
   *     with the snapshot, NaN when unknown
   */
  public List<Recommendation> update(TelemetrySnapshot snapshot, Inventory inventory, double hostCpuSeconds) {
    Instant now = snapshot.takenAt();
    hostCpuAt.put(now, hostCpuSeconds);
    keepWindow(snapshot, now);
    TelemetrySnapshot from = history.peekFirst();
    if (from == null || !from.takenAt().isBefore(now)) {
      return open;
    }
    Map<DeviceId, DeviceCost> byKey = CostModel.window(from, snapshot);
    Collection<DeviceCost> costs = byKey.values();
    lastCosts = costs;
    List<Finding> findings = recommender.evaluate(costs, AdviceContext.of(inventory, thresholds, xdpFragsCopy, costs));
    List<RecommendationTracker.Change> changed = tracker.update(now, findings);
    // a recommendation about a device that no longer exists closes now, not after --advice-close-after
    // (an empty inventory is a failed read, not every device gone); nothing to verify there
    List<RecommendationTracker.Change> vanished = List.of();
    if (!inventory.devices().isEmpty()) {
      vanished = tracker.closeIf(f -> f.devices().stream().anyMatch(d -> inventory.device(d.netns(),
          d.ifindex()).map(x -> !x.name().equals(d.device())).orElse(true)));
    }
    long root = inventory.rootNetns();
    Set<String> present = new HashSet<>();
    findings.forEach(f -> present.add(f.id()));
    List<Recommendation> stillOpen = new ArrayList<>();
    for (Recommendation r : tracker.open()) {
      stillOpen.add(withIntent(r, root));
      measure(r, present.contains(r.id()), byKey, from.takenAt(), now, inventory);
    }
    for (RecommendationTracker.Change c : changed) {
      Recommendation r = withIntent(c.recommendation(), root);
      switch (c.kind()) {
        case OPENED -> logOpened(r);
        case CLOSED -> closed(r, snapshot, inventory);
      }
    }
    for (RecommendationTracker.Change c : vanished) {
      vanished(withIntent(c.recommendation(), root));
    }
    Set<String> openIds = new HashSet<>();
    stillOpen.forEach(r -> openIds.add(r.id()));
    baselines.keySet().retainAll(openIds);
    afters.keySet().retainAll(openIds);
    absentSince.keySet().retainAll(openIds);
    verifiedView = List.copyOf(verified);
    open = List.copyOf(stillOpen);
    return open;
  }

  /**
   * Adds {@code snapshot} to the history and keeps the newest snapshot that is at least {@code window}
   * old and everything after it: at most ~HISTORY_POINTS snapshots per window, whatever the interval.
   */
  private void keepWindow(TelemetrySnapshot snapshot, Instant now) {
    // the newest replaces the previous one while that one is less than window/HISTORY_POINTS younger than the
    // one before it
    if (history.size() >= 2) {
      TelemetrySnapshot last = history.removeLast();
      TelemetrySnapshot before = history.peekLast();
      if (!Duration.between(before.takenAt(), last.takenAt()).minus(window.dividedBy(HISTORY_POINTS)).isNegative()) {
        history.addLast(last);
      }
    }
    history.addLast(snapshot);
    while (history.size() > 2) {
      TelemetrySnapshot second = history.stream().skip(1).findFirst().orElseThrow();
      if (!Duration.between(second.takenAt(), now).minus(window).isNegative()) {
        history.removeFirst();
      } else {
        break;
      }
    }
    Set<Instant> kept = new HashSet<>();
    history.forEach(h -> kept.add(h.takenAt()));
    hostCpuAt.keySet().retainAll(kept);
  }

  /**
   * One open recommendation's window: while its evidence is {@code present}, the baseline (the peak of
   * software segmentation, with the link settings to undo); once it is gone, the best window after it.
   */
  private void measure(Recommendation r, boolean present, Map<DeviceId, DeviceCost> byKey, Instant from,
      Instant now, Inventory inventory) {
    SavingCheck.Measure m = SavingCheck.measure(r.finding(), byKey, from, now, hostCores(from, now));
    if (present) {
      Baseline b = baselines.get(r.id());
      if (b == null || m.softwarePerSec() >= b.peak() * BASELINE_SHARE) {
        baselines.put(r.id(), new Baseline(Math.max(b == null ? 0 : b.peak(), m.softwarePerSec()), m,
            Undo.record(r.finding(), inventory)));
      }
      afters.remove(r.id()); // the evidence is back: only windows after it count
      absentSince.remove(r.id());
    } else if (!from.isBefore(absentSince.computeIfAbsent(r.id(), k -> now))) {
      SavingCheck.Measure best = afters.get(r.id());
      if (best == null || m.traffic() > best.traffic()) {
        afters.put(r.id(), m);
      }
    }
  }

  /** A recommendation whose evidence stopped: its saving verified against its baseline, and logged. */
  private void closed(Recommendation r, TelemetrySnapshot snapshot, Inventory inventory) {
    Instant now = snapshot.takenAt();
    Baseline b = baselines.remove(r.id());
    SavingCheck.Measure best = afters.remove(r.id());
    // from the read that first found the evidence gone up to the one that closes it counts too
    // (with --advice-close-after <= --advice-window it is the only window after the evidence)
    Instant since = absentSince.remove(r.id());
    Optional<TelemetrySnapshot> stop = since == null ? Optional.empty()
        : history.stream().filter(s -> !s.takenAt().isBefore(since) && s.takenAt().isBefore(now)).findFirst();
    if (stop.isPresent()) {
      SavingCheck.Measure m = SavingCheck.measure(r.finding(), CostModel.window(stop.get(), snapshot),
          stop.get().takenAt(), now, hostCores(stop.get().takenAt(), now));
      if (best == null || m.traffic() > best.traffic()) {
        best = m;
      }
    }
    String outcome = "";
    if (b != null) {
      SavingCheck.Verification v = SavingCheck.verify(r, now, b.before(), Optional.ofNullable(best));
      if (v.verdict().equals("worse")) {
        v = v.withUndo(Undo.commands(b.settings(), inventory));
      }
      String id = r.id();
      verified.removeIf(x -> x.recommendation().id().equals(id));
      verified.addFirst(v);
      while (verified.size() > MAX_VERIFIED) {
        verified.removeLast();
      }
      outcome = outcome(v);
    }
    if (r.accepted()) {
      LOG.fine("accepted recommendation closed: " + r.id() + outcome);
    } else {
      LOG.info("recommendation closed: " + r.id() + " (" + r.finding().summary() + "): no evidence since "
          + r.lastSeen() + outcome);
    }
  }

  /** The verdict of a closed recommendation, as the log line's tail. */
  private static String outcome(SavingCheck.Verification v) {
    return switch (v.verdict()) {
      case "verified" -> String.format("; verified saving %.4f cores: host kernel CPU per byte %s (traffic "
          + "after/before %.2f)", v.savingCores(), perUnit(v), v.trafficRatio());
      case "worse" -> String.format("; worse: it costs %.4f cores more, host kernel CPU per byte %s (traffic "
          + "after/before %.2f); undo: %s", -v.savingCores(), perUnit(v), v.trafficRatio(),
          v.undo().isEmpty()
              ? "no recorded setting changed" : v.undo().stream().map(Command::display)
                  .collect(Collectors.joining(" && ")));
      case "inconclusive" -> String.format("; saving not verified: inconclusive, host kernel CPU per byte %s, "
          + "software after %.0f/s (traffic after/before %.2f)", perUnit(v),
          v.after().map(SavingCheck.Measure::softwarePerSec).orElse(Double.NaN), v.trafficRatio());
      case "traffic_changed" -> String.format("; saving not verified: the traffic changed too much "
          + "(after/before %.2f)", v.trafficRatio());
      default -> "; saving not verified: no traffic through the device after the evidence stopped";
    };
  }

  /** A recommendation whose device is gone: closed at once, nothing to verify. */
  private void vanished(Recommendation r) {
    baselines.remove(r.id());
    afters.remove(r.id());
    absentSince.remove(r.id());
    if (r.accepted()) {
      LOG.fine("accepted recommendation closed: " + r.id() + ": its device is gone");
    } else {
      LOG.info("recommendation closed: " + r.id() + " (" + r.finding().summary() + "): its device is gone");
    }
  }

  /** The host's kernel CPU in cores between two kept snapshots, NaN when either reading is unknown. */
  private double hostCores(Instant from, Instant to) {
    Double a = hostCpuAt.get(from);
    Double b = hostCpuAt.get(to);
    double secs = Duration.between(from, to).toNanos() / 1e9;
    return a == null || b == null || !(secs > 0) || !(b >= a) ? Double.NaN : (b - a) / secs;
  }

  /** "before -> after ns/B (-21 %)", per packet for generic XDP. */
  public static String perUnit(SavingCheck.Verification v) {
    boolean xdp = SavingCheck.xdpRule(v.recommendation().finding());
    double scale = 1e9;
    double b = v.before().cpuPerUnit() * scale;
    double a = v.after().map(SavingCheck.Measure::cpuPerUnit).orElse(Double.NaN) * scale;
    return String.format("%.3f -> %.3f ns/%s (%+.0f %%)", b, a, xdp ? "packet" : "B", (a / b - 1) * 100);
  }

  private Recommendation withIntent(Recommendation r, long root) {
    Optional<AcceptEntry> by = intent.acceptedBy(r.finding(), root);
    return by.isEmpty() ? r : r.withState(Recommendation.ACCEPTED, by.get().text() + " (" + by.get().source() + ")"
        + (by.get().reason().isEmpty() ? "" : ": " + by.get().reason()));
  }

  private void logOpened(Recommendation r) {
    Finding f = r.finding();
    if (r.accepted()) {
      LOG.info(String.format("recommendation accepted (measured, not advised): %s [%s] %s; matched %s", r.id(),
          f.severity(), f.summary(), r.acceptedBy()));
      return;
    }
    String run = f.commands().isEmpty() ? "no command: " + f.explanation()
        : "run: " + f.commands().stream().map(Command::display).collect(Collectors.joining(" && "));
    LOG.info(String.format("recommendation opened: %s [%s] %s; saving %.4f cores; %s", r.id(), f.severity(),
        f.summary(), f.cpuSavingCores(), run));
  }

  /**
   * What closed recommendations were measured to save, newest first (at most {@link #MAX_VERIFIED}): the latest
   * close of each recommendation id.
   */
  public List<SavingCheck.Verification> verified() {
    return verifiedView;
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

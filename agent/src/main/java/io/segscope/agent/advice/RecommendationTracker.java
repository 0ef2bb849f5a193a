package io.segscope.agent.advice;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Hysteresis: a finding opens only after it was present at every evaluation for {@code openAfter},
 * and an open recommendation closes only after it was absent for {@code closeAfter}. Input that
 * flickers therefore never opens, and an open recommendation survives short lulls in traffic.
 * Not thread-safe: one evaluator calls it.
 */
public final class RecommendationTracker {

  /** What changed in one update: a recommendation opened or closed. */
  public record Change(Kind kind, Recommendation recommendation) {
    /** Opened or closed. */
    public enum Kind {
      OPENED, CLOSED;

      /** "opened", "closed". */
      public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
      }
    }
  }

  private record Candidate(Finding finding, Instant firstSeen, Instant lastSeen) {}

  private final Duration openAfter;
  private final Duration closeAfter;
  private final Map<String, Candidate> candidates = new HashMap<>();
  private final Map<String, Recommendation> open = new HashMap<>();

  public RecommendationTracker(Duration openAfter, Duration closeAfter) {
    if (openAfter.isNegative() || closeAfter.isNegative()) {
      throw new IllegalArgumentException("openAfter and closeAfter must be >= 0");
    }
    this.openAfter = openAfter;
    this.closeAfter = closeAfter;
  }

  /** Feeds one evaluation's findings; returns the recommendations that opened or closed. */
  public List<Change> update(Instant now, List<Finding> findings) {
    List<Change> changes = new ArrayList<>();
    Map<String, Finding> seen = new HashMap<>();
    for (Finding f : findings) {
      seen.put(f.id(), f);
    }
    // streaks break at the first evaluation without the finding
    candidates.keySet().removeIf(id -> !seen.containsKey(id));
    for (Map.Entry<String, Finding> e : seen.entrySet()) {
      String id = e.getKey();
      Candidate c = candidates.get(id);
      c = c == null ? new Candidate(e.getValue(), now, now) : new Candidate(e.getValue(), c.firstSeen(), now);
      candidates.put(id, c);
      Recommendation r = open.get(id);
      if (r != null) {
        open.put(id, new Recommendation(id, e.getValue(), r.firstSeen(), now, r.openedAt()));
      } else if (!Duration.between(c.firstSeen(), now).minus(openAfter).isNegative()) {
        Recommendation opened = new Recommendation(id, e.getValue(), c.firstSeen(), now, now);
        open.put(id, opened);
        changes.add(new Change(Change.Kind.OPENED, opened));
      }
    }
    for (var it = open.entrySet().iterator(); it.hasNext();) {
      Recommendation r = it.next().getValue();
      if (!seen.containsKey(r.id()) && !Duration.between(r.lastSeen(), now).minus(closeAfter).isNegative()) {
        it.remove();
        changes.add(new Change(Change.Kind.CLOSED, r));
      }
    }
    return changes;
  }

  /**
   * Closes, at once, open recommendations (and forgets candidates) that {@code gone} says can no
   * longer apply, e.g. because their device vanished: a deleted device's advice must not linger.
   */
  public List<Change> closeIf(Predicate<Finding> gone) {
    List<Change> changes = new ArrayList<>();
    candidates.values().removeIf(c -> gone.test(c.finding()));
    for (var it = open.entrySet().iterator(); it.hasNext();) {
      Recommendation r = it.next().getValue();
      if (gone.test(r.finding())) {
        it.remove();
        changes.add(new Change(Change.Kind.CLOSED, r));
      }
    }
    return changes;
  }

  /** The open recommendations, most expensive first. */
  public List<Recommendation> open() {
    List<Recommendation> out = new ArrayList<>(open.values());
    out.sort((a, b) -> {
      int c = Double.compare(b.finding().cpuSavingCores(), a.finding().cpuSavingCores());
      return c != 0 ? c : a.id().compareTo(b.id());
    });
    return out;
  }
}

package io.segscope.agent.http;

import java.util.HashMap;
import java.util.Map;

/**
 * Counts the requests in flight, overall and per client address, and refuses one beyond either limit
 * at once (the caller answers 503): nothing waits for a slot. Thread-safe.
 */
final class Admission {
  private final int max;
  private final int perClient;
  private int inFlight;
  private final Map<String, Integer> byClient = new HashMap<>();

  /** @param max requests at once, 0 for no limit; @param perClient per client address (ignored when max is 0) */
  Admission(int max, int perClient) {
    this.max = max;
    this.perClient = perClient;
  }

  /** Takes a slot for {@code client}; false (nothing taken) when a limit is reached. */
  synchronized boolean tryAcquire(String client) {
    if (max == 0) {
      inFlight++;
      return true;
    }
    int mine = byClient.getOrDefault(client, 0);
    if (inFlight >= max || mine >= perClient) {
      return false;
    }
    inFlight++;
    byClient.put(client, mine + 1);
    return true;
  }

  /** Gives back the slot {@link #tryAcquire} took. */
  synchronized void release(String client) {
    inFlight--;
    if (max == 0) {
      return;
    }
    Integer mine = byClient.get(client);
    if (mine == null || mine <= 1) {
      byClient.remove(client);
    } else {
      byClient.put(client, mine - 1);
    }
  }

  synchronized int inFlight() {
    return inFlight;
  }

  /** Client addresses holding a slot (at most the limit: no entry outlives its requests). */
  synchronized int clients() {
    return byClient.size();
  }
}

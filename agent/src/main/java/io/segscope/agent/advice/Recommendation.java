package io.segscope.agent.advice;

import java.time.Instant;

/**
 * A finding that held long enough to be reported (and has not been absent long enough to close).
 *
 * @param id stable across restarts ({@link Finding#id()})
 * @param finding the latest evidence and commands
 * @param firstSeen when the evidence was first seen in the streak that opened it
 * @param lastSeen the last evaluation that found it
 * @param openedAt when it opened
 * @param state {@code open}, or {@code accepted} when an operator intent ({@link AcceptEntry}) matches it:
 *     measured and exported, never logged or alerted as open
 * @param acceptedBy the matching intent ({@code RULE:NETNS/DEVICE}, its source and reason), "" when open
 */
public record Recommendation(String id, Finding finding, Instant firstSeen, Instant lastSeen, Instant openedAt,
    String state, String acceptedBy) {

  public static final String OPEN = "open";
  public static final String ACCEPTED = "accepted";

  /** An open recommendation. */
  public Recommendation(String id, Finding finding, Instant firstSeen, Instant lastSeen, Instant openedAt) {
    this(id, finding, firstSeen, lastSeen, openedAt, OPEN, "");
  }

  public boolean accepted() {
    return state.equals(ACCEPTED);
  }

  /** This recommendation in another state. */
  public Recommendation withState(String newState, String by) {
    return new Recommendation(id, finding, firstSeen, lastSeen, openedAt, newState, by);
  }
}

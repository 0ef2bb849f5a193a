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
 */
public record Recommendation(String id, Finding finding, Instant firstSeen, Instant lastSeen, Instant openedAt) {}

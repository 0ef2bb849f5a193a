package io.segscope.bench;

import java.util.List;
import java.util.Map;

/**
 * One run of the suite: when, where, what ran and what failed.
 *
 * @param startedAt ISO-8601 UTC
 * @param loadBefore 1/5/15-minute load averages at the start
 * @param loadAfter the same at the end
 * @param quick whether the short development settings were used
 * @param parts the parts asked for
 * @param failures part → the error that stopped it
 * @param probeMode the agent's probe mode (from its metrics)
 * @param resultsDir where the raw results are, relative to the repository
 */
public record RunInfo(String startedAt, double seconds, Machine machine, double[] loadBefore, double[] loadAfter,
    boolean quick, List<String> parts, Map<String, String> failures, String probeMode, String resultsDir) {}

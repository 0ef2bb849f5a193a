package io.segscope.bench.common;

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
 * @param javaOptions the launcher's JVM flags the agent ran with
 * @param environment the environment the launcher sets for it
 * @param resultsDir where the raw results are, relative to the repository
 */
public record RunInfo(String startedAt, double seconds, Machine machine, double[] loadBefore, double[] loadAfter,
    boolean quick, List<String> parts, Map<String, String> failures, String javaOptions,
    Map<String, String> environment, String resultsDir) {}

package io.segscope.agent;

import java.time.Duration;

/**
 * How {@code segscope run} was asked to behave.
 *
 * @param interval how often the maps are read
 * @param bpfStats whether to turn on the kernel's bpf_stats while running
 * @param adviceWindow the window over which costs are computed for the rules
 * @param adviceOpenAfter how long a finding must hold before it becomes a recommendation
 * @param adviceCloseAfter how long a recommendation must lack evidence before it closes
 */
public record AgentOptions(String host, int port, Duration interval, boolean bpfStats, Duration adviceWindow,
    Duration adviceOpenAfter, Duration adviceCloseAfter) {}

package io.segscope.bench.report;

import static io.segscope.bench.report.Fmt.count;
import static io.segscope.bench.report.Fmt.mib;
import static io.segscope.bench.report.Fmt.num;

import io.segscope.bench.common.RunInfo;
import io.segscope.bench.part.ContainerResult;
import io.segscope.bench.part.ScaleResult;
import java.util.function.Function;

/**
 * The targets of the agent in its container at 1,000 devices: memory (cgroup and RSS) and CPU (idle and
 * scraped) against the manifest's requests and limits. Part of {@link Targets}.
 */
final class ContainerTargets {
  private final RunInfo run;
  private final ScaleResult scale;
  private final ContainerResult container;
  /** Why a part's figures are missing ({@link Targets}'s reason). */
  private final Function<String, String> missing;

  ContainerTargets(RunInfo run, ScaleResult scale, ContainerResult container, Function<String, String> missing) {
    this.run = run;
    this.scale = scale;
    this.container = container;
    this.missing = missing;
  }

  private String containerDevices() {
    return container.fleetDevices() == Targets.DEVICES ? "at 1,000 devices" : "at " + count(container.fleetDevices())
        + " devices";
  }

  /** Memory of the container as deployed against the manifest's memory limit: the cgroup's charge, or VmRSS. */
  Check containerMemory(boolean rss) {
    String what = rss ? "agent RSS in the container as deployed (VmRSS)"
        : "container memory as deployed (its memory cgroup's charge, which the limit is held against)";
    if (container == null) {
      return Check.notMeasured(what + " at 1,000 devices", "≤ the manifest's memory limit", missing.apply("container"));
    }
    long v = rss ? container.rssBytes() : container.cgroupMemoryBytes();
    String target = "≤ " + mib(container.memoryLimitBytes()) + " (the manifest's limit)";
    return Check.atMost(what + " " + containerDevices(), v, container.memoryLimitBytes(), mib(v), target,
        () -> "the container's memory cgroup held " + mib(container.cgroupMemoryBytes()) + " (peak "
            + mib(container.peakCgroupMemoryBytes()) + ", working set " + mib(container.workingSetBytes())
            + "), the agent's VmRSS " + mib(container.rssBytes()) + " (peak " + mib(container.peakRssBytes())
            + "): above the limit the kernel OOM-kills the container.");
  }

  /** CPU of the container as deployed against the manifest's CPU request: idle, or scraped at the ServiceMonitor's interval. */
  Check containerCpu(boolean scraped) {
    String what = scraped ? "container CPU as deployed while Prometheus scrapes /metrics"
        : "container CPU as deployed, idle (no scrape; the kubelet's probes only)";
    if (container == null) {
      return Check.notMeasured(what + " at 1,000 devices", "≤ the manifest's CPU request", missing.apply("container"));
    }
    double v = scraped ? container.scrapedCores() : container.idleCores();
    String figure = what + " " + containerDevices() + " (cgroup CPU time over " + num(scraped
        ? container.scrapedSeconds() : container.idleSeconds(), 0) + " s"
        + (scraped ? ", a scrape every "
            + num(container.scrapeIntervalSeconds(), 0) + " s" : "")
        + ")";
    String target = "≤ " + num(container.cpuRequestCores(), 3) + " cores (the manifest's request)";
    return Check.atMost(figure, v, container.cpuRequestCores(), num(v, 3) + " cores", target, () -> {
      StringBuilder b = new StringBuilder();
      b.append("idle ").append(num(container.idleCores(), 3)).append(" cores, scraped ")
          .append(num(container.scrapedCores(), 3)).append(" cores (").append(container.scrapes())
          .append(" scrapes, p50 ").append(num(container.scrapeMs().p50(), 1)).append(" ms, ")
          .append(Fmt.kib(container.scrapeBytes())).append(" gzip each), against the ")
          .append(num(container.cpuRequestCores(), 3)).append(" requested. Idle is the agent's own work: a map read")
          .append(" every interval, the inventory, the kubelet's probes; the scale part's idle figure (outside a")
          .append(" container, same devices) is ");
      ScaleResult.Level top = scale == null ? null : scale.top();
      b.append(top == null ? "not in this run" : num(top.idleCores(), 3) + " cores").append(". The request is")
          .append(" what the scheduler reserves, not a cap (the limit, ").append(num(container.cpuLimitCores(), 3))
          .append(" cores, is): above it the container only competes for spare CPU. Load average at the start")
          .append(" of the run: ").append(num(run.loadBefore()[0], 2)).append('.');
      return b.toString();
    });
  }
}

package io.segscope.bench.report;

import static io.segscope.bench.report.Fmt.count;
import static io.segscope.bench.report.Fmt.kib;
import static io.segscope.bench.report.Fmt.mib;
import static io.segscope.bench.report.Fmt.num;

import io.segscope.bench.common.RunInfo;
import io.segscope.bench.part.ContainerResult;
import io.segscope.bench.part.JmhResult;
import io.segscope.bench.part.ScaleResult;
import java.util.function.Function;

/**
 * The sections of BENCHMARKS.md about 1,000 devices: the agent's scale (latency of /metrics, memory and its
 * maps), its JMH benchmarks, and the container as deployed. Part of {@link BenchmarksMarkdown}.
 */
final class ScaleSections {
  private final StringBuilder md;
  private final RunInfo run;
  private final ScaleResult scale;
  private final JmhResult jmh;
  private final ContainerResult container;
  /** Why a part's figures are missing ({@link BenchmarksMarkdown}'s reason). */
  private final Function<String, String> why;

  ScaleSections(StringBuilder md, RunInfo run, ScaleResult scale, JmhResult jmh, ContainerResult container,
      Function<String, String> why) {
    this.md = md;
    this.run = run;
    this.scale = scale;
    this.jmh = jmh;
    this.container = container;
    this.why = why;
  }

  void scaleSection() {
    md.append("## 4. Scale: /metrics, memory at 10 to 1,000 devices\n\n");
    if (scale == null) {
      md.append("Not measured: ").append(why.apply("scale")).append(".\n\n");
      return;
    }
    md.append("Veth pairs in lab namespaces; every device sent TCP to its peer, so each has map entries and its")
        .append(
            " GSO series: the agent times always here (`--timing-window always`), so that the queued count of every")
        .append(" device is kept, the most series and map memory it can have (with the default windows a fleet that")
        .append(" never segments has no GSO series at all). The agent: launcher flags (`").append(scale.javaOptions())
        .append("`), read interval ")
        .append(scale.interval()).append(", ").append(scale.possibleCpus()).append(" possible CPUs. /metrics as")
        .append(" Prometheus asks (its Accept header with `Accept-Encoding: gzip`) and with the same Accept without")
        .append(" compression, request by request in turn after 5 warm-up requests each; latency = request sent to")
        .append(" body received, on loopback. The inventory counts every device of the host (other labs'")
        .append(" included). Map read = the agent's mean time to read its maps and build a snapshot, once per")
        .append(
            " interval (segscope_map_read_seconds). Kernel map memory = the sum of the kernel's memlock of the agent's maps (fdinfo; on")
        .append(" 6.4 and later computed from what each hash map holds now).\n\n");
    md.append("| devices | counted | series | first scrape | /metrics gzip p50 / p99 | size | plain p50 / p99 | size")
        .append(
            " | /api/v1/devices p50 / p99 | RSS / peak | RSS under load | CPU idle / load | map read | map memory |\n")
        .append(
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (ScaleResult.Level l : scale.levels()) {
      md.append("| ").append(count(l.fleetDevices())).append(" (").append(count(l.inventoryDevices()))
          .append(" inventoried) | ").append(count(l.fleetDevicesCounted())).append(" | ").append(count(l.series()))
          .append(" | ").append(num(l.firstScrapeSeconds(), 2)).append(" s | ").append(pq(l.metricsGzip()))
          .append(" | ").append(kib(l.metricsGzip().bytes())).append(" | ").append(pq(l.metricsPlain()))
          .append(" | ").append(kib(l.metricsPlain().bytes())).append(" | ").append(pq(l.devicesApi()))
          .append(" | ").append(mib(l.rssBytes())).append(" / ").append(mib(l.peakRssBytes())).append(" | ")
          .append(mib(l.loadRssBytes())).append(" | ").append(num(l.idleCores(), 3)).append(" / ")
          .append(num(l.loadCores(), 3)).append(" | ").append(num(1000 * l.mapReadSeconds(), 1)).append(" ms | ")
          .append(mib(l.mapMemlockBytes())).append(" |\n");
    }
    ScaleResult.Level top = scale.top();
    if (top != null) {
      md.append("\nContent types at ").append(count(top.fleetDevices())).append(" devices: gzip `")
          .append(top.metricsGzip().contentType()).append("` (Content-Encoding `").append(top.metricsGzip().encoding())
          .append("`), plain `").append(top.metricsPlain().contentType()).append("`. The agent's maps at ")
          .append(count(top.fleetDevices())).append(" devices:\n\n");
      MapText.table(md, top.maps());
    }
    if (scale.jvm() != null) {
      md.append("\nWhere the agent's memory goes at ").append(top == null ? "" : count(top.fleetDevices()))
          .append(" devices: ").append(JvmText.breakdown(scale.jvm())).append("\n\n| NMT category |")
          .append(" committed |\n| --- | ---: |\n");
      scale.jvm().nmtCommittedBytes().forEach((k, v) -> md.append("| ").append(k).append(" | ").append(mib(v))
          .append(" |\n"));
    }
    md.append('\n');
  }

  private static String pq(ScaleResult.Latency l) {
    return num(l.ms().p50(), 1) + " / " + num(l.ms().p99(), 1) + " ms";
  }

  void containerSection() {
    md.append("## 7. The container as deployed: memory and CPU at 1,000 devices\n\n");
    if (container == null) {
      md.append("Not measured: ").append(why.apply("container")).append(".\n\n");
      return;
    }
    ContainerResult c = container;
    md.append("The image built by `scripts/image` (`").append(c.image()).append("`, ").append(num(c.imageSeconds(), 0))
        .append(" s in this run), run through CRI on the lab's private containerd as a kubelet runs the DaemonSet")
        .append(" of `deploy/kubernetes` (").append(c.renderer()).append("): host network and PID namespace, the")
        .append(
            " manifest's capabilities, read-only root, mounts, env, CPU shares and quota and memory limit, its args")
        .append(" alone (`").append(c.args()).append("`), the startup, liveness and readiness probes polled at their")
        .append(" periods throughout. The node had ").append(count(c.fleetDevices()))
        .append(" more devices (the scale part's veth fleet, its namespaces pinned where the container sees")
        .append(" `/run/netns`), each of which had sent TCP; ").append(count(c.inventoryDevices()))
        .append(" devices inventoried, the node's own included. Ready ")
        .append(num(c.readySeconds(), 1)).append(" s after the container started. CPU = the container cgroup's CPU")
        .append(" time over the span: ").append(num(c.idleSeconds(), 0)).append(" s idle (no scrape), then ")
        .append(num(c.scrapedSeconds(), 0)).append(" s with /metrics scraped every ")
        .append(num(c.scrapeIntervalSeconds(), 0)).append(" s (the ServiceMonitor's interval) as Prometheus asks")
        .append(" (its Accept header, gzip). Memory at the end.\n\n");
    md.append("| | measured | the manifest's |\n| --- | ---: | ---: |\n");
    md.append("| memory cgroup charge (peak) | ").append(mib(c.cgroupMemoryBytes())).append(" (")
        .append(mib(c.peakCgroupMemoryBytes())).append(") | limit ").append(mib(c.memoryLimitBytes())).append(" |\n");
    md.append("| working set (charge − inactive files) | ").append(mib(c.workingSetBytes())).append(" | request ")
        .append(c.memoryRequestBytes() == 0 ? "none" : mib(c.memoryRequestBytes())).append(" |\n");
    md.append("| agent VmRSS (peak) | ").append(mib(c.rssBytes())).append(" (").append(mib(c.peakRssBytes()))
        .append(") | limit ").append(mib(c.memoryLimitBytes())).append(" |\n");
    md.append("| CPU idle | ").append(num(c.idleCores(), 3)).append(" cores | request ")
        .append(num(c.cpuRequestCores(), 3)).append(", limit ").append(num(c.cpuLimitCores(), 3)).append(" |\n");
    md.append("| CPU scraped (").append(c.scrapes()).append(" scrapes, p50 ").append(num(c.scrapeMs().p50(), 1))
        .append(" ms, ").append(kib(c.scrapeBytes())).append(" gzip) | ").append(num(c.scrapedCores(), 3))
        .append(" cores | request ").append(num(c.cpuRequestCores(), 3)).append(" |\n\n");
  }

  void jmhSection() {
    md.append("## 6. Java hot paths (JMH)\n\n");
    if (jmh == null) {
      md.append("Not measured: ").append(why.apply("jmh")).append(".\n\n");
      return;
    }
    md.append("`bench/src/main/java/io/segscope/bench/jmh/HotPathBenchmarks.java` on a synthetic host (every device")
        .append(" offloads GSO, every tenth b-side device also segments in software), 2 CPUs; ").append(jmh.settings())
        .append(". One operation = all devices once. decode = Counts.sumPerCpu of every per-CPU counter value;")
        .append(" refresh = TelemetryPipeline.turn (one read of the reader without the kernel read);")
        .append(" render = MetricsRegistry.render of a new snapshot (once per read, on the reader);")
        .append(" scrapeGzip / scrapeText = one scrape of the cached bytes as Prometheus asks / as plain text.\n\n");
    md.append("| benchmark | devices | time per operation | ± (99.9 %) | per device | allocated per operation |\n")
        .append("| --- | ---: | ---: | ---: | ---: | ---: |\n");
    for (JmhResult.Score s : jmh.scores()) {
      md.append("| ").append(s.benchmark()).append(" | ").append(s.devices()).append(" | ")
          .append(num(s.score(), 1)).append(" ").append(s.unit()).append(" | ").append(num(s.error(), 1)).append(" | ")
          .append(s.unit().equals("us/op") ? num(1000 * s.score() / s.devices(), 0) + " ns" : "—").append(" | ")
          .append(Double.isNaN(s.allocatedBytesPerOp()) ? "—" : kib(s.allocatedBytesPerOp())).append(" |\n");
    }
    md.append('\n');
  }
}

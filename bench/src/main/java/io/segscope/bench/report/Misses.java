package io.segscope.bench.report;

import io.segscope.bench.part.AccuracyResult;
import io.segscope.bench.part.CostResult;
import io.segscope.bench.part.JmhResult;
import io.segscope.bench.part.OverheadResult;
import io.segscope.bench.part.ScaleResult;
import java.util.Optional;

/**
 * Why a target was missed and what would close it. The reasons come from reading the programs and the
 * Java code; every number is taken from the same run, so the text stays true when the figures move.
 */
final class Misses {
  private final CostResult cost;
  private final OverheadResult overhead;
  private final AccuracyResult accuracy;
  private final ScaleResult scale;
  private final JmhResult jmh;

  private Misses(CostResult cost, OverheadResult overhead, AccuracyResult accuracy, ScaleResult scale, JmhResult jmh) {
    this.cost = cost;
    this.overhead = overhead;
    this.accuracy = accuracy;
    this.scale = scale;
    this.jmh = jmh;
  }

  static String explain(Check c, CostResult cost, OverheadResult overhead, AccuracyResult accuracy,
      ScaleResult scale, JmhResult jmh) {
    return new Misses(cost, overhead, accuracy, scale, jmh).explain(c.id());
  }

  private String explain(String id) {
    if (id.equals("cost.ns.net_dev_queue")) {
      return floor() + " For a GSO skb the program makes 10 `bpf_probe_read_kernel` calls (skb end and head, shinfo"
          + " gso_size/segs/type, dev, protocol, two bitfield bytes) and one update of the `gso_inflight` LRU hash,"
          + " whose default common LRU list takes a global lock. To close: one probe read of the sk_buff span the"
          + " fields sit in (offsets 0..end) into a per-CPU scratch buffer and one of the first 32 bytes of"
          + " skb_shared_info, instead of 9 scattered reads; create `gso_inflight` with `BPF_F_NO_COMMON_LRU`"
          + " (per-CPU LRU lists); where the kernel allows BTF-typed raw tracepoints (`tp_btf`, attached like a raw"
          + " tracepoint, without the trampoline fentry needs), plain loads replace probe reads (untested here).";
    }
    if (id.equals("cost.ns.consume_skb")) {
      return floor() + perSegmented() + " For a segmented skb it makes a hash lookup and delete, 3 probe reads"
          + " for the device key, a zero-template array lookup plus `lookup_or_try_init` on the per-CPU stats, 3-4"
          + " reads of the device's limits and features for the cause, and two log2 slots. To close: keep the"
          + " device key (ifindex, netns) in the in-flight entry, read at net_dev_queue from the same skb read as"
          + " above, and read the device's limits and features with one probe read of their span in net_device"
          + " (offsets from BTF) instead of 4.";
    }
    if (id.equals("cost.ns.netif_receive_skb")) {
      return floor() + " This is the generic-XDP check: it runs for every received packet on every device"
          + " (2 probe reads, then it exits because no device has a generic XDP program) and was "
          + share("netif_receive_skb") + " of all of segscope's in-kernel time in the window. To close: attach it"
          + " only while the device inventory shows a generic-XDP program somewhere (IFLA_XDP mode generic) and"
          + " detach it when none is left: on hosts without generic XDP it then costs nothing.";
    }
    if (id.startsWith("cost.ns.")) {
      return floor();
    }
    if (id.equals("cost.share.event")) {
      return "The costliest program against the mean time to segment one super-packet measured in the same"
          + " window." + perSegmented() + " Closing the per-event misses above closes this one.";
    }
    if (id.equals("cost.share.total")) {
      return "This counts every run of every segscope program on the host (every transmitted segment fires"
          + " net_dev_start_xmit, every received packet netif_receive_skb; ~45 of each per 64 KiB super-packet in"
          + " S1), against the segmentation time alone. Shares of segscope's time in the window: "
          + share("net_dev_queue") + " net_dev_queue, " + share("consume_skb") + " consume_skb, "
          + share("net_dev_start_xmit") + " net_dev_start_xmit, " + share("netif_receive_skb")
          + " netif_receive_skb. To close: attach the generic-XDP check only where generic XDP exists (removes"
          + " the netif_receive_skb share), and the per-event savings above; the per-packet floor (" + num(floorNs(), 0)
          + " ns under bpf_stats) stays, part of it the accounting itself, which `--no-bpf-stats` turns off.";
    }
    if (id.startsWith("overhead.")) {
      String s = id.substring("overhead.".length());
      Optional<OverheadResult.Summary> sum = overhead.scenarios().stream().filter(x -> x.scenario().equals(s))
          .findFirst();
      long lost = pairRatios(s).stream().filter(r -> r < 1).count();
      String range = sum.map(x -> "[" + num(x.throughputRatio().min(), 3) + " – " + num(x.throughputRatio().max(), 3)
          + "]").orElse("");
      boolean straddles = sum.isPresent() && sum.get().throughputRatio().max() > 1;
      return lost + " of " + pairRatios(s).size() + " pairs lost throughput with the agent attached (ratios " + range
          + ")" + (straddles ? "; the range reaches above 1, so on this shared machine the size of the effect is"
              + " uncertain (more pairs or a quiet machine would narrow it)." : ".")
          + " The programs of part 1 run in the senders' and receivers' context on every packet (in S1 about 45"
          + " segments per super-packet, each firing net_dev_start_xmit and netif_receive_skb), the kernel builds"
          + " each tracepoint's record for them (perf_trace_*, not counted in run_time_ns), and the agent turns"
          + " bpf_stats on by default, which adds run-time accounting to every BPF program on the host. To close:"
          + " part 1's proposals (above all the generic-XDP check only where generic XDP exists), raw tracepoints"
          + " where a program needs only the skb pointer (no record to build), and a run with `--no-bpf-stats` to"
          + " see what the accounting itself costs (not separated here).";
    }
    if (id.startsWith("accuracy.")) {
      return "The agent counts a segmentation only when it saw the skb's net_dev_queue (its in-flight entry);"
          + " segmented_untracked = " + num(accuracy.segmentedUntracked(), 0) + " in the window. A difference"
          + " beyond that means an in-flight entry was lost (LRU eviction under load) or attributed to another"
          + " device: the per-device rows above say which count differs.";
    }
    if (id.startsWith("scale.metrics")) {
      return scrapeText();
    }
    if (id.equals("scale.rss")) {
      return rssText();
    }
    if (id.equals("scale.first")) {
      ScaleResult.Level top = scale.levels().get(scale.levels().size() - 1);
      return "The agent starts its HTTP server only after libbcc has compiled and attached the programs (the"
          + " agent logged " + num(top.probesAttachSeconds(), 2) + " s for that at the largest level) and the"
          + " inventory is read; JVM start and Vert.x deployment come on top. To close: bind the HTTP server"
          + " first and serve /metrics (build info, probes not yet attached, /readyz 503) while the programs"
          + " compile on a worker thread; the first scrape then answers within about a second of the JVM start.";
    }
    return "No explanation recorded for this miss.";
  }

  private String scrapeText() {
    ScaleResult.Level top = scale.levels().get(scale.levels().size() - 1);
    double perDevice = top.metrics().payloadBytes() / (double) Math.max(1, top.gsoDevices());
    String j = jmhScore("scrape", top.fleetDevices()).map(s -> " JMH (part 5) puts MetricsRegistry.scrape alone at "
        + num(s / 1000, 1) + " ms for " + top.fleetDevices() + " devices.").orElse("");
    return "One /metrics answer at this level is " + Fmt.kib(top.metrics().payloadBytes()) + " (" + num(
        top.metricsSeries(), 0) + " series; about " + Fmt.kib(perDevice) + " per GSO device): every GSO device gets"
        + " 58 GSO sample lines, 49 of them its two fixed-layout histograms (45 buckets, sums, counts), exported even"
        + " for devices that never segmented in software (all 0), besides its ~20 inventory lines; the whole text"
        + " is rebuilt on every scrape, copied several times (ByteArrayOutputStream, toByteArray, the defensive"
        + " copies of MetricsRegistry.Scrape) and sent uncompressed." + j + " To close: (1) render the segscope_*"
        + " families once per map read (every 5 s, on the reader thread) and serve the cached bytes, rendering only"
        + " the small JVM families per scrape; (2) export the duration and segments-per-skb histograms and the"
        + " cause series only for devices that segmented in software (an offload-only device drops from 58 GSO"
        + " lines to 4); (3) gzip when the scraper sends Accept-Encoding: gzip (Prometheus does).";
  }

  private String rssText() {
    ScaleResult.CompileMemory cm = scale.compileMemory();
    String evidence = cm == null ? "" : " Measured in this run with a JVM started with the agent's flags that only"
        + " opens the agent's probe session (BTF read in Java, then libbcc compiles and loads the programs with its"
        + " in-process LLVM): RSS goes from " + Fmt.mib(cm.before()[0] * 1024.0) + " to "
        + Fmt.mib(cm.attached()[0] * 1024.0) + ", of which +" + Fmt.mib((cm.attached()[2] - cm.before()[2]) * 1024.0)
        + " file-backed (libLLVM/libclang code pages: clean, shared, but counted) and +"
        + Fmt.mib((cm.attached()[1] - cm.before()[1]) * 1024.0) + " anonymous (Java heap and the malloc arenas the"
        + " compile leaves behind); glibc `malloc_trim(0)` afterwards gives back "
        + Fmt.mib((cm.attached()[0] - cm.trimmed()[0]) * 1024.0) + ".";
    ScaleResult.Level first = scale.levels().get(0);
    ScaleResult.Level top = scale.levels().get(scale.levels().size() - 1);
    double base = Math.max(first.idleRssBytes(), first.loadRssBytes());
    double worst = Math.max(top.idleRssBytes(), top.loadRssBytes());
    String trim = cm == null ? "" : " (about " + Fmt.mib((cm.attached()[0] - cm.trimmed()[0]) * 1024.0) + " less)";
    String alloc = jmhAlloc("scrape", top.fleetDevices()).map(a -> " one scrape of " + top.fleetDevices()
        + " devices allocates " + Fmt.mib(a) + " (JMH, part 5), so").orElse("");
    return "Two parts. The base, " + Fmt.mib(base) + " at " + first.fleetDevices() + " devices, is the JVM plus"
        + " libbcc's LLVM in the same process." + evidence + " The growth, to " + Fmt.mib(worst) + " at "
        + top.fleetDevices() + " devices, is Java heap:" + alloc + " the serial collector grows the heap toward"
        + " its -Xmx192m cap under scrapes and keeps it. To close: call glibc `malloc_trim(0)` (one JNA call) once"
        + " the programs are loaded" + trim + "; the /metrics changes below (render once per read, no zero"
        + " histograms) cut the allocation per scrape, so the heap stays small; in the longer run, BPF objects"
        + " compiled at build time (CO-RE with libbpf) keep LLVM out of the agent's process altogether.";
  }

  /** Per-pair throughput ratios (with / without) of one scenario. */
  private java.util.List<Double> pairRatios(String scenario) {
    java.util.List<Double> out = new java.util.ArrayList<>();
    for (OverheadResult.Run w : overhead.runs()) {
      if (w.scenario().equals(scenario) && w.agent()) {
        overhead.runs().stream().filter(o -> o.scenario().equals(scenario) && !o.agent() && o.pair() == w.pair())
            .forEach(o -> out.add(w.gbps() / o.gbps()));
      }
    }
    return out;
  }

  private Optional<Double> jmhAlloc(String benchmark, int devices) {
    if (jmh == null) {
      return Optional.empty();
    }
    return jmh.scores().stream().filter(s -> s.benchmark().equals(benchmark) && s.devices() == devices)
        .map(JmhResult.Score::allocatedBytesPerOp).filter(v -> !Double.isNaN(v)).findFirst();
  }

  private String floor() {
    if (cost == null || Double.isNaN(floorNs())) {
      return "";
    }
    String perRead = cost.programs().stream().filter(p -> p.tracepoint().equals("netif_receive_skb")
            && p.segscopeRuns() > 0).findFirst()
        .map(p -> " segscope's netif_receive_skb program, which makes 2 probe reads and exits, costs "
            + num(p.segscopeNsPerEvent(), 0) + " ns: about " + num((p.segscopeNsPerEvent() - floorNs()) / 2, 0)
            + " ns per `bpf_probe_read_kernel`.").orElse("");
    return "On this machine an empty program costs " + num(floorNs(), 0) + " ns per run under bpf_stats;" + perRead;
  }

  private double floorNs() {
    return cost == null ? Double.NaN : cost.floorNsPerEvent();
  }

  /** The consume_skb program's cost per segmented skb, taking the other runs at the floor. */
  private String perSegmented() {
    if (cost == null || cost.segmentedSkbs() <= 0) {
      return "";
    }
    return cost.programs().stream().filter(p -> p.tracepoint().equals("consume_skb")).findFirst().map(p -> {
      double other = Math.max(0, p.segscopeRuns() - cost.segmentedSkbs());
      double perSeg = (p.segscopeNanos() - other * floorNs()) / cost.segmentedSkbs();
      return " Per segmented skb (the other consume_skb runs taken at the floor) the program costs about "
          + num(perSeg, 0) + " ns, " + Fmt.pct(perSeg / cost.meanSegmentationNanos(), 1)
          + " of the mean segmentation time (" + num(cost.meanSegmentationNanos() / 1000, 2) + " µs).";
    }).orElse("");
  }

  private String share(String tracepoint) {
    if (cost == null || cost.segscopeRunNanos() <= 0) {
      return "n/a";
    }
    return cost.programs().stream().filter(p -> p.tracepoint().equals(tracepoint)).findFirst()
        .map(p -> Fmt.pct(p.segscopeNanos() / (double) cost.segscopeRunNanos(), 0)).orElse("n/a");
  }

  private Optional<Double> jmhScore(String benchmark, int devices) {
    if (jmh == null) {
      return Optional.empty();
    }
    return jmh.scores().stream().filter(s -> s.benchmark().equals(benchmark) && s.devices() == devices)
        .map(JmhResult.Score::score).findFirst();
  }

  private static String num(double v, int decimals) {
    return Fmt.num(v, decimals);
  }
}

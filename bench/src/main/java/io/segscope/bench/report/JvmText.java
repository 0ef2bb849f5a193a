package io.segscope.bench.report;

import static io.segscope.bench.report.Fmt.mib;

import io.segscope.bench.agent.JvmMemory;
import java.util.Map;

/** Texts about a JVM's memory. */
final class JvmText {
  private JvmText() {}

  /**
   * What the heap's size can and cannot explain: everything but the committed heap, plus the live heap,
   * is the least RSS any heap setting leaves (the committed heap counted as resident).
   */
  static String floor(JvmMemory j, long targetBytes) {
    long rest = Math.max(0, j.rssBytes() - j.heapCommittedBytes());
    long least = rest + j.heapLiveBytes();
    String s = "Everything but the Java heap takes " + mib(rest) + " of that start's RSS; with the heap no larger"
        + " than what is live, its RSS would be about " + mib(least);
    if (least > targetBytes) {
      return s + ", still above " + mib(targetBytes) + ": no heap setting meets the target, the live heap and the"
          + " JVM's own memory must shrink.";
    }
    return s + ", within " + mib(targetBytes) + ": the heap's sizing is what misses the target.";
  }

  static String breakdown(JvmMemory j) {
    Map<String, Long> c = j.nmtCommittedBytes();
    long heap = c.getOrDefault("Java Heap", 0L);
    long classes = c.getOrDefault("Class", 0L) + c.getOrDefault("Metaspace", 0L);
    long code = c.getOrDefault("Code", 0L);
    long cds = c.getOrDefault("Shared class space", 0L);
    long threads = c.getOrDefault("Thread", 0L);
    long gc = c.getOrDefault("GC", 0L);
    long rest = j.nmtTotalBytes() - heap - classes - code - cds - threads - gc;
    long outside = j.rssBytes() - j.nmtTotalBytes();
    StringBuilder b = new StringBuilder();
    b.append("A second start with Native Memory Tracking (RSS ").append(mib(j.rssBytes())).append("): Java heap ")
        .append(mib(heap)).append(" committed, of which ").append(mib(j.heapLiveBytes()))
        .append(" live after a full collection (").append(mib(j.heapUsedBytes())).append(" used before it);")
        .append(" classes and metaspace ").append(mib(classes)).append("; JIT code ").append(mib(code))
        .append("; shared class archive ").append(mib(cds)).append("; thread stacks ").append(mib(threads))
        .append(" (").append(j.threads()).append(" threads); GC ").append(mib(gc)).append("; other JVM ")
        .append(mib(rest)).append("; outside NMT (library code, native allocations of libraries) ")
        .append(mib(outside)).append(". The largest live classes: ").append(String.join(", ", j.topClasses()))
        .append(".");
    if (heap > 0 && heap - j.heapLiveBytes() > (long) (0.5 * heap)) {
      b.append(" The heap holds ").append(mib(heap - j.heapLiveBytes()))
          .append(" more than is live: the collector grew it for the start's garbage and keeps it.");
    }
    return b.toString();
  }
}

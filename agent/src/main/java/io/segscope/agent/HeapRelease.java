package io.segscope.agent;

import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * Gives back to the operating system the heap that the start, or many devices now gone, grew.
 *
 * <p>The start (inventory dumps of every namespace, the kernel's BTF for the probe plan) leaves tens
 * of MiB of garbage, and a host with thousands of devices makes the heap grow to hold them. A young
 * collection never shrinks the heap, and the agent's steady work (one map read per interval, a
 * scrape) rarely needs a full one, so that memory would stay resident after the start and after the
 * devices are gone (a node drained of its pods). One full collection at those moments, with the
 * launcher's {@code -XX:MaxHeapFreeRatio=30 -XX:-ShrinkHeapInSteps}, sizes the heap to what is live
 * again (without {@code -XX:-ShrinkHeapInSteps} the JVM damps the first shrink to nothing):
 * <ul>
 *   <li>once after the first map read;</li>
 *   <li>after a read at which the inventory holds at most half the devices it held at its largest
 *       since the last collection, and at least {@link #FEWER_DEVICES} fewer, with the count unchanged
 *       since the read before (the deletion is over, not half-way).</li>
 * </ul>
 * A collection stops every thread for tens of milliseconds; it runs on the reader thread. Used by one
 * thread.
 */
final class HeapRelease {
  private static final Logger LOG = Logger.getLogger(HeapRelease.class.getName());
  /** Fewer devices than this gone is not worth a collection. */
  static final int FEWER_DEVICES = 100;

  private final Runnable collect;
  private final LongSupplier committed;
  private int peak = -1;
  private int previous = -1;

  HeapRelease(Runnable collect, LongSupplier committed) {
    this.collect = collect;
    this.committed = committed;
  }

  /** The process' own: {@link System#gc()} and the committed Java heap. */
  static HeapRelease ofThisProcess() {
    return new HeapRelease(System::gc,
        () -> ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted());
  }

  /** After the first map read: one collection. */
  void afterStart() {
    release("the start");
  }

  /**
   * After a later map read, with the inventory holding {@code devices}: one collection when the rule
   * above says so. Returns whether it collected.
   */
  boolean afterRead(int devices) {
    boolean settled = devices == previous;
    previous = devices;
    peak = Math.max(peak, devices);
    if (settled && devices <= peak / 2 && peak - devices >= FEWER_DEVICES) {
      release(peak - devices + " devices gone");
      peak = devices;
      return true;
    }
    return false;
  }

  private void release(String why) {
    long before = committed.getAsLong();
    long t0 = System.nanoTime();
    collect.run();
    long ms = (System.nanoTime() - t0) / 1_000_000;
    LOG.info("released the heap (" + why + "): committed " + mib(before) + " -> " + mib(committed.getAsLong())
        + " MiB in " + ms + " ms");
  }

  private static String mib(long bytes) {
    return String.format(Locale.ROOT, "%.1f", bytes / (1024.0 * 1024.0));
  }
}

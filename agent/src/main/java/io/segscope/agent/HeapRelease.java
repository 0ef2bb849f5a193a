package io.segscope.agent;

import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * Gives back to the operating system the heap that the start, or a churn of devices, grew.
 *
 * <p>The start (inventory dumps of every namespace, the kernel's BTF for the probe plan) and a burst
 * of link notifications (a thousand veth pairs created or deleted) leave tens of MiB of garbage, and
 * the collector grows the heap for it. A young collection never shrinks the heap again, and the
 * agent's steady work (one map read per interval, a scrape) rarely needs a full one, so that memory
 * would stay resident. One full collection at those two moments, with the launcher's
 * {@code -XX:MaxHeapFreeRatio=30 -XX:-ShrinkHeapInSteps}, sizes the heap to what is live again.
 * Without {@code -XX:-ShrinkHeapInSteps} the JVM damps the first shrink to nothing.
 *
 * <p>A collection takes tens of milliseconds and stops every thread; it runs at most once per
 * {@link #MIN_GAP_NANOS} (a host that churns devices all the time does not get one per burst), on the
 * thread that asks (the reader after its first read, the inventory thread after a burst).
 */
final class HeapRelease {
  private static final Logger LOG = Logger.getLogger(HeapRelease.class.getName());
  /** The shortest time between two collections this class runs. */
  static final long MIN_GAP_NANOS = 30_000_000_000L;

  private final Runnable collect;
  private final LongSupplier nanoTime;
  private final AtomicLong last = new AtomicLong(Long.MIN_VALUE);

  HeapRelease(Runnable collect, LongSupplier nanoTime) {
    this.collect = collect;
    this.nanoTime = nanoTime;
  }

  /** The process' own: {@link System#gc()} and {@link System#nanoTime()}. */
  static HeapRelease ofThisProcess() {
    return new HeapRelease(System::gc, System::nanoTime);
  }

  /**
   * One full collection for {@code why} (e.g. "the start"), unless one ran less than
   * {@link #MIN_GAP_NANOS} ago; logs the committed heap before and after. Returns whether it ran.
   */
  boolean release(String why) {
    long now = nanoTime.getAsLong();
    long prev = last.get();
    if (prev != Long.MIN_VALUE && now - prev < MIN_GAP_NANOS || !last.compareAndSet(prev, now)) {
      return false;
    }
    long before = committed();
    long t0 = System.nanoTime();
    collect.run();
    long ms = (System.nanoTime() - t0) / 1_000_000;
    LOG.info("released the heap " + why + " grew: committed " + mib(before) + " -> " + mib(committed())
        + " MiB in " + ms + " ms");
    return true;
  }

  private static long committed() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted();
  }

  private static String mib(long bytes) {
    return String.format(Locale.ROOT, "%.1f", bytes / (1024.0 * 1024.0));
  }
}

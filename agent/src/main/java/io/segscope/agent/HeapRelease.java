package io.segscope.agent;

import io.segscope.host.sys.Libc;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * Gives back to the operating system the memory that the start, or many devices now gone, grew.
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
 *       since the last collection, and at least {@link #FEWER_DEVICES} fewer;</li>
 *   <li>once more when, after such a collection, the number of devices has not changed for
 *       {@link #SETTLED_READS} reads: the collections during a deletion run while the previous
 *       snapshots and the series of the devices just gone are still referenced, and a fast deletion
 *       (a thousand veths in 3 s) leaves most of its garbage to this one.</li>
 * </ul>
 * The read after each collection trims the C heap ({@code malloc_trim}), by then holding the native
 * buffers that the collection's cleaners freed; the launcher's {@code -XX:TrimNativeHeapInterval}
 * does the same every 5 s, this one makes it happen at the moment that matters and shows its effect in
 * the log. A collection stops every thread for tens of milliseconds; it runs on the reader thread.
 * Used by one thread.
 */
final class HeapRelease {
  private static final Logger LOG = Logger.getLogger(HeapRelease.class.getName());
  /** Fewer devices than this gone is not worth a collection. */
  static final int FEWER_DEVICES = 100;
  /** Reads with an unchanged device count after which a deletion counts as over. */
  static final int SETTLED_READS = 3;

  private final Runnable collect;
  private final LongSupplier committed;
  private final Runnable trim;
  private final LongSupplier residentKiB;
  private int peak = -1;
  /** Devices gone since the deletion began, while a deletion has not settled; 0 otherwise. */
  private int goneSinceSettled;
  /** Devices at the last collection for devices gone. */
  private int atCollection;
  private int last = -1;
  private int unchangedReads;
  private boolean trimPending;

  HeapRelease(Runnable collect, LongSupplier committed, Runnable trim, LongSupplier residentKiB) {
    this.collect = collect;
    this.committed = committed;
    this.trim = trim;
    this.residentKiB = residentKiB;
  }

  /** The process' own: {@link System#gc()}, the committed Java heap, malloc_trim and VmRSS. */
  static HeapRelease ofThisProcess() {
    return new HeapRelease(System::gc,
        () -> ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted(),
        () -> Libc.INSTANCE.malloc_trim(0), HeapRelease::selfResidentKiB);
  }

  /** After the first map read: one collection. */
  void afterStart() {
    release("the start");
  }

  /**
   * After a later map read, with the inventory holding {@code devices}: trims the C heap when the
   * previous read collected, and collects when the rules above say so. Returns whether it collected.
   */
  boolean afterRead(int devices) {
    if (trimPending) {
      trimPending = false;
      long before = residentKiB.getAsLong();
      trim.run();
      LOG.info("trimmed the C heap: resident " + mib(before * 1024) + " -> " + mib(residentKiB.getAsLong() * 1024)
          + " MiB");
    }
    unchangedReads = devices == last ? unchangedReads + 1 : 0;
    last = devices;
    peak = Math.max(peak, devices);
    if (devices <= peak / 2 && peak - devices >= FEWER_DEVICES) {
      goneSinceSettled += peak - devices;
      release(peak - devices + " devices gone");
      peak = devices;
      atCollection = devices;
      return true;
    }
    if (goneSinceSettled > 0 && peak - atCollection >= FEWER_DEVICES) {
      goneSinceSettled = 0; // devices came back (a new burst): its own deletion will collect
    }
    if (goneSinceSettled > 0 && unchangedReads >= SETTLED_READS) {
      release("a deletion of " + goneSinceSettled + " devices settled");
      goneSinceSettled = 0;
      return true;
    }
    return false;
  }

  private void release(String why) {
    long before = committed.getAsLong();
    long t0 = System.nanoTime();
    collect.run();
    long ms = (System.nanoTime() - t0) / 1_000_000;
    trimPending = true;
    LOG.info("released the heap (" + why + "): committed " + mib(before) + " -> " + mib(committed.getAsLong())
        + " MiB in " + ms + " ms");
  }

  /** VmRSS of this process in KiB, or -1 when /proc/self/status cannot be read. */
  private static long selfResidentKiB() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("\\D", ""));
        }
      }
    } catch (IOException | NumberFormatException e) {
      // only for the log line
    }
    return -1;
  }

  private static String mib(long bytes) {
    return String.format(Locale.ROOT, "%.1f", bytes / (1024.0 * 1024.0));
  }
}

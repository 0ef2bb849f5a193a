package io.segscope.bench.part;

import io.segscope.bench.kernel.BpfFdinfo;
import io.segscope.bench.kernel.MemInfo;
import java.util.List;

/**
 * Part 4: kernel map memory at many devices on a host with many possible CPUs: Debian's 6.1 kernel in
 * the qemu guest ({@code scripts/guest-run}) with 1 online and N possible CPUs.
 *
 * @param smp qemu's {@code -smp} as run
 * @param kernel the guest's {@code uname -r}
 * @param possibleCpus the guest's possible CPUs (/sys/devices/system/cpu/possible)
 * @param onlineCpus the guest's online CPUs
 * @param fleetDevices veth devices of the fleet
 * @param fleetDevicesCounted fleet devices the agent exported GSO series for
 * @param mode the agent's probe mode there
 * @param firstScrapeSeconds the agent's start to its first scrape with programs attached, in the guest
 * @param maps the agent's maps at the end, with the kernel's memlock (before 6.4: the maximum a map can hold)
 * @param before /proc/meminfo with the fleet built and sprayed once, before the agent started
 * @param with the same with the agent running and every device counted
 * @param after the same once the agent exited and the kernel freed its maps
 * @param agentRssBytes the agent's VmRSS there
 * @param failure why the guest run did not produce the figures ("" when it did)
 */
public record GuestResult(String smp, String kernel, int possibleCpus, int onlineCpus, int fleetDevices,
    int fleetDevicesCounted, String mode, double firstScrapeSeconds, List<BpfFdinfo.BpfMap> maps, MemInfo before,
    MemInfo with, MemInfo after, long agentRssBytes, String failure) {

  public static GuestResult failed(String smp, String why) {
    return new GuestResult(smp, "", 0, 0, 0, 0, "", -1, List.of(), null, null, null, 0, why);
  }

  public long memlockBytes() {
    return maps.stream().mapToLong(BpfFdinfo.BpfMap::memlockBytes).sum();
  }

  /** Percpu + Slab grown from before the agent to it running with every device counted. */
  public long grownBytes() {
    return with == null || before == null ? -1 : with.minus(before).mapRelevant();
  }

  /** Percpu + Slab given back when the agent exited. */
  public long freedBytes() {
    return with == null || after == null ? -1 : with.minus(after).mapRelevant();
  }
}

package io.segscope.agent.e2e;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import io.segscope.agent.inventory.NetnsThread;
import io.segscope.host.sys.Libc;
import io.segscope.lab.DeviceAt;
import io.segscope.lab.Lab;
import io.segscope.lab.Netns;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The kernel's own packet and byte counters of a set of lab devices at one moment (each namespace's
 * {@code /proc/net/dev}, read on the agent's {@link NetnsThread}, which enters the namespace with setns(2) and
 * checks the inode it entered: no process per read, which
 * under emulation cost 0.3-0.5 s per namespace as {@code ip netns exec ... ip -s link}): the independent
 * measure of what crossed a device that the scenario tests hold segscope's counts against.
 */
record LinkCounters(Map<DeviceAt, Stats> stats) {
  /** The one thread that enters namespaces; it returns to the test JVM's own after each read. */
  private static final NetnsThread NETNS_THREAD = new NetnsThread("link-counters-netns");

  /**
   * rx/tx packets and bytes of one device (dev_get_stats, as {@code ip -s link} shows them), the packets it
   * dropped on transmit (a veth counts there what its peer's backlog refused) and its MTU.
   */
  record Stats(long rxPackets, long rxBytes, long txPackets, long txBytes, long txDropped, int mtu) {}

  /** What one namespace showed: /proc/net/dev, and each device's MTU (SIOCGIFMTU). */
  private record Reading(String procNetDev, Map<String, Integer> mtus) {}

  private static final long SIOCGIFMTU = 0x8921;
  private static final int AF_INET = 2;
  private static final int SOCK_DGRAM = 2;

  static LinkCounters read(Lab lab, Iterable<DeviceAt> devices) {
    Set<Netns> namespaces = new LinkedHashSet<>();
    devices.forEach(d -> namespaces.add(d.ns()));
    Map<DeviceAt, Stats> out = new HashMap<>();
    for (Netns ns : namespaces) {
      if (!lab.namespaces().contains(ns)) {
        throw new IllegalArgumentException("read counters in " + ns.name() + ": not a namespace of this lab");
      }
      String name = ns.name();
      var target = new io.segscope.agent.inventory.model.Netns(ns.inode(), name, Path.of("/run/netns", name),
          false);
      Reading r;
      try {
        r = NETNS_THREAD.call(target, LinkCounters::inside);
      } catch (RuntimeException e) {
        throw new IllegalStateException("read counters in " + name + ": " + e.getMessage(), e);
      }
      parse(r.procNetDev(), r.mtus()).forEach((dev, st) -> out.put(new DeviceAt(ns, dev), st));
    }
    for (DeviceAt d : devices) {
      if (!out.containsKey(d)) {
        throw new IllegalStateException("read counters of " + d.name() + " in " + d.ns().name() + ": no such link");
      }
    }
    return new LinkCounters(out);
  }

  /** What the namespace of the calling thread shows; runs on {@link #NETNS_THREAD} only. */
  private static Reading inside() throws IOException {
    String text = Files.readString(Path.of("/proc/thread-self/net/dev"));
    return new Reading(text, mtus(parse(text, Map.of()).keySet()));
  }

  /** Each device's MTU by SIOCGIFMTU on a socket made in the thread's namespace. */
  private static Map<String, Integer> mtus(Set<String> names) throws IOException {
    Libc c = Libc.INSTANCE;
    int sock = c.socket(AF_INET, SOCK_DGRAM, 0);
    if (sock < 0) {
      throw new IOException("socket: errno " + Native.getLastError());
    }
    try {
      Map<String, Integer> out = new HashMap<>();
      for (String name : names) {
        try (Memory ifreq = new Memory(40)) {
          ifreq.clear();
          ifreq.write(0, name.getBytes(StandardCharsets.US_ASCII), 0, name.length());
          if (c.ioctl(sock, SIOCGIFMTU, ifreq) != 0) {
            throw new IOException("SIOCGIFMTU " + name + ": errno " + Native.getLastError());
          }
          out.put(name, ifreq.getInt(16));
        }
      }
      return out;
    } finally {
      c.close(sock);
    }
  }

  /**
   * {@code /proc/net/dev}: two header lines, then {@code NAME: rx bytes packets errs drop fifo frame compressed
   * multicast, tx bytes packets errs drop fifo colls carrier compressed}.
   */
  static Map<String, Stats> parse(String procNetDev, Map<String, Integer> mtus) {
    Map<String, Stats> out = new HashMap<>();
    for (String line : procNetDev.split("\n")) {
      int colon = line.indexOf(':');
      if (colon < 0 || line.contains("|")) {
        continue;
      }
      String[] f = line.substring(colon + 1).trim().split("\\s+");
      if (f.length < 16) {
        throw new IllegalArgumentException("parse /proc/net/dev line '" + line + "': " + f.length + " fields, not 16");
      }
      String name = line.substring(0, colon).trim();
      out.put(name, new Stats(Long.parseLong(f[1]), Long.parseLong(f[0]), Long.parseLong(f[9]),
          Long.parseLong(f[8]), Long.parseLong(f[11]), mtus.getOrDefault(name, 0)));
    }
    return out;
  }

  /**
   * The counters once traffic through {@code devices} has settled: read until two readings in a row
   * are equal (what a sender's kernel still sends after iperf3 exited, and skbs still waiting in a
   * receive backlog, have then crossed every device), at most {@code timeout}; then the last reading.
   * A device's rx counter moves when its peer hands it a packet, before the packet is received, so a
   * reading taken while the tail of a flow is in flight counts packets no receive hook has seen yet.
   */
  static LinkCounters readWhenSettled(Lab lab, Iterable<DeviceAt> devices, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    LinkCounters last = read(lab, devices);
    while (System.nanoTime() < deadline) {
      LinkCounters next = read(lab, devices);
      if (next.equals(last)) {
        return next;
      }
      last = next;
    }
    return last;
  }

  Stats of(DeviceAt d) {
    Stats s = stats.get(d);
    if (s == null) {
      throw new IllegalArgumentException("no counters read for " + d);
    }
    return s;
  }

  /** Packets received by {@code d} from {@code earlier} to this reading. */
  long rxPacketsSince(LinkCounters earlier, DeviceAt d) {
    return of(d).rxPackets() - earlier.of(d).rxPackets();
  }

  long rxBytesSince(LinkCounters earlier, DeviceAt d) {
    return of(d).rxBytes() - earlier.of(d).rxBytes();
  }

  long txPacketsSince(LinkCounters earlier, DeviceAt d) {
    return of(d).txPackets() - earlier.of(d).txPackets();
  }

  long txBytesSince(LinkCounters earlier, DeviceAt d) {
    return of(d).txBytes() - earlier.of(d).txBytes();
  }

  /** Packets {@code d} dropped on transmit from {@code earlier} to this reading. */
  long txDroppedSince(LinkCounters earlier, DeviceAt d) {
    return of(d).txDropped() - earlier.of(d).txDropped();
  }
}

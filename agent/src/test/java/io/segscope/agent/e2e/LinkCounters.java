package io.segscope.agent.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.lab.DeviceAt;
import io.segscope.lab.Lab;
import io.segscope.lab.Netns;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The kernel's own packet and byte counters of a set of lab devices at one moment ({@code ip -s -j
 * link show} in each namespace): the independent measure of what crossed a device that the scenario
 * tests hold segscope's counts against.
 */
record LinkCounters(Map<DeviceAt, Stats> stats) {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * rx/tx packets and bytes of one device (stats64), the packets it dropped on transmit (a veth counts
   * there what its peer's backlog refused) and its MTU.
   */
  record Stats(long rxPackets, long rxBytes, long txPackets, long txBytes, long txDropped, int mtu) {}

  static LinkCounters read(Lab lab, Iterable<DeviceAt> devices) {
    Set<Netns> namespaces = new LinkedHashSet<>();
    devices.forEach(d -> namespaces.add(d.ns()));
    Map<DeviceAt, Stats> out = new HashMap<>();
    for (Netns ns : namespaces) {
      JsonNode links;
      try {
        links = JSON.readTree(lab.exec(ns, "ip", "-s", "-j", "link", "show"));
      } catch (IOException e) {
        throw new UncheckedIOException("parse ip -s -j link show in " + ns.name() + ": " + e.getMessage(), e);
      }
      for (JsonNode l : links) {
        JsonNode s = l.path("stats64");
        out.put(new DeviceAt(ns, l.path("ifname").asText()), new Stats(s.path("rx").path("packets").asLong(),
            s.path("rx").path("bytes").asLong(), s.path("tx").path("packets").asLong(),
            s.path("tx").path("bytes").asLong(), s.path("tx").path("dropped").asLong(), l.path("mtu").asInt()));
      }
    }
    for (DeviceAt d : devices) {
      if (!out.containsKey(d)) {
        throw new IllegalStateException("read counters of " + d.name() + " in " + d.ns().name() + ": no such link");
      }
    }
    return new LinkCounters(out);
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

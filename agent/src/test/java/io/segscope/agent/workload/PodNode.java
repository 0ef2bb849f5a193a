package io.segscope.agent.workload;

import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Features;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.model.Link;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.inventory.model.XdpAttachment;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;

/** A small Kubernetes node for tests: the host's eth0 and cni0, one pod whose veth is a cni0 port. */
public final class PodNode {
  public static final long HOST = 4026531840L;
  public static final long POD = 4026532901L;
  public static final Path POD_NETNS = Path.of("/run/netns/cni-1b2c");

  private PodNode() {}

  public static Inventory inventory() {
    List<Device> d = new ArrayList<>();
    d.add(dev(HOST, 2, "eth0", "", null, null, null));
    d.add(dev(HOST, 7, "cni0", "bridge", null, null, null));
    d.add(dev(HOST, 10, "veth1b2c", "veth", 7, 2, 1));
    d.add(dev(POD, 2, "eth0", "veth", null, 10, 0));
    return new Inventory(List.of(new Netns(HOST, "", Path.of("/proc/1/ns/net"), true),
        new Netns(POD, "cni-1b2c", POD_NETNS, false)), d, Map.of(HOST, Map.of(1, POD), POD, Map.of(0, HOST)),
        Instant.parse("2026-12-01T10:00:00Z"));
  }

  public static Workloads workloads() {
    return new Workloads(Map.of(POD, Workload.pod("web-0", "shop", "6f1c2a52-8a1e-4f1e-9d0b-3b9d2f8c1a10",
        "a3f0c9d2e1b4", "containerd")), Instant.parse("2026-12-01T10:00:01Z"));
  }

  private static Device dev(long ns, int index, String name, String kind, Integer master, Integer link, Integer nsid) {
    Link l = new Link(index, name, kind, "", 1500, link == null ? OptionalInt.empty() : OptionalInt.of(link),
        master == null ? OptionalInt.empty() : OptionalInt.of(master),
        nsid == null ? OptionalInt.empty() : OptionalInt.of(nsid),
        OptionalLong.of(65536), OptionalLong.of(65535), OptionalLong.empty(), OptionalLong.empty(),
        OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), XdpAttachment.UNREPORTED, "UP",
        OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), 1, OptionalInt.empty());
    return new Device(ns, ns == POD ? "cni-1b2c" : "", l, Features.unavailable("test"));
  }
}

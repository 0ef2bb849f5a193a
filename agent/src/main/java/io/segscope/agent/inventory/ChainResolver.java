package io.segscope.agent.inventory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Builds the device graph of an {@link Inventory} and walks it. See docs/inventory.md.
 *
 * <p>An edge {@code a → b} means "packets that a sends out continue through b" (b is one step
 * closer to leaving the host). Edges:
 * <ol>
 *   <li><b>Stacked devices</b> (macvlan, ipvlan, vlan, vxlan, tunnels: any device that is not a
 *       veth/netkit and has a lower device by IFLA_LINK or IFLA_VXLAN_LINK): upper → lower.</li>
 *   <li><b>Bond, team, vrf and other non-switch masters</b>: master → port.</li>
 *   <li><b>Bridges</b> (kind bridge, openvswitch): a port that is a workload's end (veth, netkit,
 *       tun/tap) feeds the bridge: port → bridge; any other port (NIC, bond, vlan, vxlan, ...) is an
 *       uplink: bridge → port.</li>
 *   <li><b>veth/netkit pairs</b>: the end that is a bridge/bond port, or else the end in the root
 *       namespace when the other is not, is the <i>outer</i> end: inner → outer. When neither or
 *       both ends are outer, both directions are added (packets flow either way).</li>
 * </ol>
 * {@code down} is a breadth-first walk along edges, {@code up} along reversed edges; each device
 * appears once (cycles, as from two-way pairs, stop at visited devices).
 */
final class ChainResolver {
  static final Set<String> PAIR_KINDS = Set.of("veth", "netkit");
  static final Set<String> SWITCH_KINDS = Set.of("bridge", "openvswitch");
  static final Set<String> FEEDER_KINDS = Set.of("veth", "netkit", "tun");

  private record Edge(DeviceKey to, Relation forward, Relation reverse) {}

  private final Inventory inventory;
  private final Map<DeviceKey, List<Edge>> out = new HashMap<>();
  private final Map<DeviceKey, List<Edge>> in = new HashMap<>();
  private final Map<DeviceKey, List<String>> unresolved = new HashMap<>();

  ChainResolver(Inventory inventory) {
    this.inventory = inventory;
    for (Device d : inventory.devices()) {
      addEdges(d);
    }
  }

  private void addEdges(Device d) {
    if (d.link().lower().isPresent()) {
      Optional<Device> target = inventory.linkTarget(d);
      if (target.isEmpty()) {
        note(d, describeMissingLink(d));
      } else if (!target.get().key().equals(d.key())) {
        Device t = target.get();
        if (PAIR_KINDS.contains(d.kind())) {
          addPair(d, t);
        } else {
          edge(d, t, Relation.LOWER, Relation.UPPER);
        }
      }
    }
    if (d.link().master().isPresent()) {
      Optional<Device> master = inventory.master(d);
      if (master.isEmpty()) {
        note(d, d.name() + ": master ifindex " + d.link().master().getAsInt() + " not found in namespace "
            + d.netns());
      } else {
        Device m = master.get();
        if (SWITCH_KINDS.contains(m.kind()) && FEEDER_KINDS.contains(d.kind())) {
          edge(d, m, Relation.MASTER, Relation.PORT);
        } else {
          edge(m, d, Relation.PORT, Relation.MASTER);
        }
      }
    }
  }

  /** Each end of a pair reports the other; the edges are added once, from the end seen first. */
  private void addPair(Device a, Device b) {
    boolean outerA = outer(a, b);
    boolean outerB = outer(b, a);
    if (outerA && !outerB) {
      edge(b, a, Relation.PEER, Relation.PEER);
    } else if (outerB && !outerA) {
      edge(a, b, Relation.PEER, Relation.PEER);
    } else {
      edge(a, b, Relation.PEER, Relation.PEER);
      edge(b, a, Relation.PEER, Relation.PEER);
    }
  }

  private boolean outer(Device x, Device other) {
    if (x.link().master().isPresent()) {
      return true;
    }
    if (other.link().master().isPresent()) {
      return false;
    }
    long root = inventory.rootNetns();
    return x.netns() == root && other.netns() != root;
  }

  private void edge(Device from, Device to, Relation forward, Relation reverse) {
    List<Edge> outs = out.computeIfAbsent(from.key(), k -> new ArrayList<>());
    for (Edge e : outs) {
      if (e.to().equals(to.key())) {
        return;
      }
    }
    outs.add(new Edge(to.key(), forward, reverse));
    in.computeIfAbsent(to.key(), k -> new ArrayList<>()).add(new Edge(from.key(), reverse, forward));
  }

  private String describeMissingLink(Device d) {
    Link l = d.link();
    int index = l.lower().getAsInt();
    if (l.linkNetnsId().isPresent() && inventory.linkNetns(d).isEmpty()) {
      return d.name() + ": link ifindex " + index + " is in netnsid " + l.linkNetnsId().getAsInt()
          + ", a namespace this agent did not find";
    }
    return d.name() + ": link ifindex " + index + " not found in namespace "
        + inventory.linkNetns(d).orElse(d.netns());
  }

  private void note(Device d, String text) {
    unresolved.computeIfAbsent(d.key(), k -> new ArrayList<>()).add(text);
  }

  Chain chain(Device start) {
    List<Hop> down = walk(start.key(), out);
    List<Hop> up = walk(start.key(), in);
    Set<DeviceKey> ends = new LinkedHashSet<>();
    if (out.getOrDefault(start.key(), List.of()).isEmpty()) {
      ends.add(start.key());
    }
    for (Hop h : down) {
      if (out.getOrDefault(h.device(), List.of()).isEmpty()) {
        ends.add(h.device());
      }
    }
    List<String> notes = new ArrayList<>(unresolved.getOrDefault(start.key(), List.of()));
    for (Hop h : down) {
      notes.addAll(unresolved.getOrDefault(h.device(), List.of()));
    }
    for (Hop h : up) {
      notes.addAll(unresolved.getOrDefault(h.device(), List.of()));
    }
    return new Chain(start.key(), down, up, new ArrayList<>(ends), notes);
  }

  private List<Hop> walk(DeviceKey start, Map<DeviceKey, List<Edge>> edges) {
    List<Hop> hops = new ArrayList<>();
    Set<DeviceKey> seen = new HashSet<>();
    seen.add(start);
    Deque<DeviceKey> queue = new ArrayDeque<>();
    Map<DeviceKey, Integer> distance = new HashMap<>();
    queue.add(start);
    distance.put(start, 0);
    while (!queue.isEmpty()) {
      DeviceKey k = queue.poll();
      for (Edge e : edges.getOrDefault(k, List.of())) {
        if (seen.add(e.to())) {
          int dist = distance.get(k) + 1;
          distance.put(e.to(), dist);
          String name = inventory.device(e.to()).map(Device::name).orElse("?");
          hops.add(new Hop(e.to(), name, k, e.forward(), dist));
          queue.add(e.to());
        }
      }
    }
    return hops;
  }
}

package io.segscope.agent.inventory.model;

import io.segscope.agent.inventory.model.DeviceEdges.Edge;
import io.segscope.agent.inventory.model.DeviceEdges.Kind;
import io.segscope.agent.inventory.model.DeviceEdges.State;
import io.segscope.device.DeviceId;
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
 * The one device graph of an {@link Inventory}: how a packet can travel from device to device on
 * this host. The API's chains ({@link #chain}) and every recommendation rule ({@link #sources})
 * walk this graph and nothing else. See docs/inventory.md.
 *
 * <p>A packet passes a device either on the device's transmit path (TX: queued for the device to
 * send, where software segmentation happens) or on its receive path (RX). The graph's states are
 * TX(d) and RX(d) for every device d, plus two kinds of intermediate state: a bridge forwarding
 * what one port received (BRIDGE(m, p): never back out of port p), and a namespace routing what a
 * device received (ROUTE(x): never back out of x). Edges, in the direction packets travel:
 * <ol>
 *   <li><b>veth/netkit pairs</b>: TX(a) → RX(peer), both ways (PEER).
 *   <li><b>Stacked devices</b> (macvlan, macvtap, ipvlan, vlan, vxlan, tunnels: a device that is
 *       not a pair and has a lower device by IFLA_LINK or IFLA_VXLAN_LINK): TX(upper) → TX(lower)
 *       (LOWER) and RX(lower) → RX(upper) (UPPER).
 *   <li><b>Bridges</b> (bridge, openvswitch) m with ports p, q: RX(p) → BRIDGE(m, p) (MASTER) →
 *       TX(q), q ≠ p (PORT), and → RX(m), the bridge's own stack; TX(m) → TX(q) for every port.
 *   <li><b>Other masters</b> (bond, team, vrf, ...): TX(m) → TX(p) (PORT), RX(p) → RX(m) (MASTER).
 *   <li><b>Routing</b>: in a namespace, RX(x) of a device whose forwarding is on (netconf; not a
 *       port of a master, whose received packets go to the master) → ROUTE(x) → TX(y) for every
 *       device y ≠ x some unicast route leaves by (ROUTE). A tunnel without a known lower device
 *       (vxlan, geneve, gre, wireguard, ...) sends what it encapsulates the same way from its
 *       underlay namespace: TX(t) → TX(y) (ROUTE). Which route a given flow takes is not known, so
 *       every egress of the namespace is a possible next hop.
 * </ol>
 * tun/tap devices have no edges of their own: what a tap transmits goes to user space (a VM), what
 * it receives was injected by user space.
 *
 * <p>Walks are breadth-first by device distance (moving within one device's states costs nothing),
 * so each device is reported once, at its smallest distance, and cycles stop at visited states.
 * The edges themselves are built by {@link DeviceEdges}; this class walks them.
 */
public final class DeviceGraph {
  static final Set<String> PAIR_KINDS = Set.of("veth", "netkit");
  static final Set<String> SWITCH_KINDS = Set.of("bridge", "openvswitch");
  /** Kinds that encapsulate and send through their (underlay) namespace's routing. */
  static final Set<String> TUNNEL_KINDS = Set.of("vxlan", "geneve", "gre", "gretap", "ip6gre", "ip6gretap",
      "ipip", "sit", "ip6tnl", "bareudp", "wireguard", "erspan", "ip6erspan", "vti", "vti6", "xfrm");
  /** Kinds whose transmit path user space (a hypervisor) writes into: macvtap/ipvtap character devices. */
  public static final Set<String> GUEST_TX_KINDS = Set.of("macvtap", "ipvtap");
  /** tun and tap devices (kind "tun"): user space injects what they receive. */
  static final String TUN_KIND = "tun";

  /** Where super-packets that reach a device's transmit path were built. */
  public enum Origin {
    /** Sockets of the device's namespace, sized for this device's limits. */
    LOCAL,
    /** User space behind a tap, macvtap or ipvtap (a VM, a VPN daemon): sized by the guest. */
    GUEST,
    /** Another host, received by a physical device: sized by that host. */
    WIRE
  }

  /**
   * One place where packets that reach a device's transmit path may come from.
   *
   * @param device the device
   * @param origin who builds the packets there
   * @param leaf nothing else on this host hands packets to it (for LOCAL: only its namespace's
   *     sockets can be the senders)
   * @param distance device steps from the device the walk started at
   * @param relation how it relates to the device it was reached from
   */
  public record Source(Device device, Origin origin, boolean leaf, int distance, Relation relation) {}

  private final Inventory inventory;
  private final DeviceEdges edges;

  DeviceGraph(Inventory inventory) {
    this.inventory = inventory;
    this.edges = new DeviceEdges(inventory);
  }

  /** A walk's result: the hops (one per device) and every state reached with its device distance. */
  private record Walk(List<Hop> hops, Map<State, Integer> states, Map<State, Relation> relations) {}

  /**
   * 0-1 breadth-first walk from {@code start} along successors (forward) or predecessors: a step to
   * a state of another device costs 1, within the same device 0.
   */
  private Walk walk(State start, boolean forward) {
    Map<State, Integer> dist = new HashMap<>();
    Map<State, Relation> relation = new HashMap<>();
    Map<State, DeviceId> via = new HashMap<>();
    Set<State> settled = new HashSet<>();
    Deque<State> queue = new ArrayDeque<>();
    dist.put(start, 0);
    queue.add(start);
    List<Hop> hops = new ArrayList<>();
    Set<DeviceId> reported = new HashSet<>(List.of(start.device()));
    while (!queue.isEmpty()) {
      State s = queue.pollFirst();
      if (!settled.add(s)) {
        continue;
      }
      int ds = dist.get(s);
      if (reported.add(s.device())) {
        String name = inventory.device(s.device()).map(Device::name).orElse("?");
        hops.add(new Hop(s.device(), name, via.get(s), relation.get(s), ds));
      }
      for (Edge e : forward ? edges.successors(s) : edges.predecessors(s)) {
        int w = e.to().device().equals(s.device()) ? 0 : 1;
        int nd = ds + w;
        Integer old = dist.get(e.to());
        if (old == null || nd < old) {
          dist.put(e.to(), nd);
          relation.put(e.to(), w == 0 ? relation.getOrDefault(s, e.relation()) : e.relation());
          via.put(e.to(), w == 0 ? via.get(s) : s.device());
          if (w == 0) {
            queue.addFirst(e.to());
          } else {
            queue.addLast(e.to());
          }
        }
      }
    }
    Map<State, Integer> reached = new HashMap<>();
    settled.forEach(s -> reached.put(s, dist.get(s)));
    return new Walk(hops, reached, relation);
  }

  /**
   * The chain around {@code start}: {@code down}, where what it transmits can go next (a forward
   * walk from its transmit path); {@code up}, every device whose packets can reach its transmit path
   * (a backward walk); {@code exits}, the devices where the down walk ends (a physical NIC or a tap
   * sends out of the host; a receive path whose namespace does not forward delivers locally; the
   * device itself when nothing lies below it); and the references that could not be followed.
   */
  public Chain chain(Device start) {
    State s = State.tx(start.id());
    Walk down = walk(s, true);
    Walk up = walk(s, false);
    Set<DeviceId> ends = new LinkedHashSet<>();
    List<State> reached = new ArrayList<>(down.states().keySet());
    reached.sort((a, b) -> Integer.compare(down.states().get(a), down.states().get(b)));
    for (State x : reached) {
      if (edges.successors(x).isEmpty()) {
        ends.add(x.device());
      }
    }
    List<String> notes = new ArrayList<>(edges.unresolved(start.id()));
    for (Hop h : down.hops()) {
      notes.addAll(edges.unresolved(h.device()));
    }
    for (Hop h : up.hops()) {
      notes.addAll(edges.unresolved(h.device()));
    }
    return new Chain(start.id(), down.hops(), up.hops(), new ArrayList<>(ends), notes);
  }

  /**
   * Where the super-packets that reach {@code device}'s transmit path can come from, nearest first:
   * every other device whose transmit path the backward walk reaches (local sockets may send there:
   * {@link Origin#LOCAL}, or a hypervisor for macvtap/ipvtap: {@link Origin#GUEST}), and every
   * receive path nothing on this host feeds (a physical NIC: {@link Origin#WIRE}; a tap:
   * {@link Origin#GUEST}).
   */
  public List<Source> sources(DeviceId device) {
    State start = State.tx(device);
    Walk up = walk(start, false);
    List<Map.Entry<State, Integer>> states = new ArrayList<>(up.states().entrySet());
    states.sort(Map.Entry.<State, Integer>comparingByValue()
        .thenComparing(e -> e.getKey().device())
        .thenComparing(e -> e.getKey().kind()));
    List<Source> out = new ArrayList<>();
    Set<DeviceId> seen = new HashSet<>(List.of(device));
    for (Map.Entry<State, Integer> e : states) {
      State s = e.getKey();
      Optional<Device> d = inventory.device(s.device());
      if (d.isEmpty() || d.get().name().equals("lo")) {
        continue;
      }
      boolean leaf = edges.predecessors(s).isEmpty();
      Origin origin = null;
      if (s.kind() == Kind.TX && !s.device().equals(device)) {
        origin = GUEST_TX_KINDS.contains(d.get().kind()) && leaf ? Origin.GUEST : Origin.LOCAL;
      } else if (s.kind() == Kind.RX && leaf) {
        if (d.get().kind().equals(TUN_KIND)) {
          origin = Origin.GUEST;
        } else if (d.get().kind().isEmpty()) {
          origin = Origin.WIRE;
        }
      }
      if (origin != null && seen.add(s.device())) {
        out.add(new Source(d.get(), origin, leaf, e.getValue(), up.relations().get(s)));
      }
    }
    return out;
  }
}

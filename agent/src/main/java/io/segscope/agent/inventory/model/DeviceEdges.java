package io.segscope.agent.inventory.model;

import io.segscope.device.DeviceId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The edges of the {@link DeviceGraph}: which state a packet can move to from a device's transmit
 * path, receive path, a bridge's forwarding or a namespace's routing, and back (the numbered rules
 * of {@link DeviceGraph}'s documentation), built once from an {@link Inventory}'s links, masters,
 * forwarding and routes. References that could not be followed are kept, per device, as notes.
 */
final class DeviceEdges {
  enum Kind { TX, RX, BRIDGE, ROUTE }

  /** A state; {@code via} is the ingress port of a BRIDGE state (null otherwise). */
  record State(Kind kind, DeviceId device, DeviceId via) {
    static State tx(DeviceId d) {
      return new State(Kind.TX, d, null);
    }

    static State rx(DeviceId d) {
      return new State(Kind.RX, d, null);
    }
  }

  record Edge(State to, Relation relation) {}

  private final Inventory inventory;
  private final Map<DeviceId, DeviceId> peer = new HashMap<>();
  private final Map<DeviceId, DeviceId> lower = new HashMap<>();
  private final Map<DeviceId, List<DeviceId>> uppers = new HashMap<>();
  private final Map<DeviceId, DeviceId> master = new HashMap<>();
  private final Map<DeviceId, List<DeviceId>> ports = new HashMap<>();
  /** Per namespace: devices whose received packets the namespace routes (forwarding on, not a port). */
  private final Map<Long, List<DeviceId>> forwarders = new HashMap<>();
  /** Per underlay namespace: tunnels without a lower device that send through its routing. */
  private final Map<Long, List<DeviceId>> tunnels = new HashMap<>();
  private final Map<DeviceId, List<String>> unresolved = new HashMap<>();

  DeviceEdges(Inventory inventory) {
    this.inventory = inventory;
    for (Device d : inventory.devices()) {
      index(d);
    }
    for (Device d : inventory.devices()) {
      if (!master.containsKey(d.id()) && !d.name().equals("lo")
          && inventory.routing(d.netns()).forwards(d.ifindex())) {
        forwarders.computeIfAbsent(d.netns(), k -> new ArrayList<>()).add(d.id());
      }
      if (DeviceGraph.TUNNEL_KINDS.contains(d.kind()) && !lower.containsKey(d.id())) {
        underlayNetns(d).ifPresent(ns -> tunnels.computeIfAbsent(ns, k -> new ArrayList<>()).add(d.id()));
      }
    }
  }

  private void index(Device d) {
    if (d.link().lower().isPresent()) {
      Optional<Device> target = inventory.linkTarget(d);
      if (target.isEmpty()) {
        note(d, describeMissingLink(d));
      } else if (!target.get().id().equals(d.id())) {
        if (DeviceGraph.PAIR_KINDS.contains(d.kind())) {
          peer.put(d.id(), target.get().id());
        } else {
          lower.put(d.id(), target.get().id());
          uppers.computeIfAbsent(target.get().id(), k -> new ArrayList<>()).add(d.id());
        }
      }
    }
    if (d.link().master().isPresent()) {
      Optional<Device> m = inventory.master(d);
      if (m.isEmpty()) {
        note(d, d.name() + ": master ifindex " + d.link().master().getAsInt() + " not found in namespace "
            + d.netns());
      } else {
        master.put(d.id(), m.get().id());
        ports.computeIfAbsent(m.get().id(), k -> new ArrayList<>()).add(d.id());
      }
    }
  }

  /** The namespace a tunnel's encapsulated packets are routed in: its link namespace, else its own. */
  private OptionalLong underlayNetns(Device t) {
    return t.link().linkNetnsId().isPresent() ? inventory.linkNetns(t) : OptionalLong.of(t.netns());
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
    unresolved.computeIfAbsent(d.id(), k -> new ArrayList<>()).add(text);
  }

  private String kind(DeviceId k) {
    return inventory.device(k).map(Device::kind).orElse("");
  }

  private boolean isSwitch(DeviceId k) {
    return DeviceGraph.SWITCH_KINDS.contains(kind(k));
  }

  /** Devices some route of {@code netns} leaves by (that exist). */
  private List<DeviceId> egress(long netns) {
    List<DeviceId> out = new ArrayList<>();
    for (Integer i : inventory.routing(netns).egress().keySet()) {
      inventory.device(netns, i).ifPresent(d -> out.add(d.id()));
    }
    out.sort(null);
    return out;
  }

  List<Edge> successors(State s) {
    List<Edge> out = new ArrayList<>();
    DeviceId d = s.device();
    switch (s.kind()) {
      case TX -> {
        DeviceId p = peer.get(d);
        if (p != null) {
          out.add(new Edge(State.rx(p), Relation.PEER));
        }
        DeviceId l = lower.get(d);
        if (l != null) {
          out.add(new Edge(State.tx(l), Relation.LOWER));
        }
        for (DeviceId q : ports.getOrDefault(d, List.of())) {
          out.add(new Edge(State.tx(q), Relation.PORT));
        }
        if (l == null && DeviceGraph.TUNNEL_KINDS.contains(kind(d))) {
          inventory.device(d).flatMap(t -> {
            OptionalLong ns = underlayNetns(t);
            return ns.isPresent() ? Optional.of(ns.getAsLong()) : Optional.empty();
          }).ifPresent(ns -> {
            for (DeviceId y : egress(ns)) {
              if (!y.equals(d)) {
                out.add(new Edge(State.tx(y), Relation.ROUTE));
              }
            }
          });
        }
      }
      case RX -> {
        for (DeviceId u : uppers.getOrDefault(d, List.of())) {
          out.add(new Edge(State.rx(u), Relation.UPPER));
        }
        DeviceId m = master.get(d);
        if (m != null) {
          out.add(new Edge(isSwitch(m) ? new State(Kind.BRIDGE, m, d) : State.rx(m), Relation.MASTER));
        } else if (forwarders.getOrDefault(d.netns(), List.of()).contains(d)) {
          out.add(new Edge(new State(Kind.ROUTE, d, null), Relation.ROUTE));
        }
      }
      case BRIDGE -> {
        for (DeviceId q : ports.getOrDefault(d, List.of())) {
          if (!q.equals(s.via())) {
            out.add(new Edge(State.tx(q), Relation.PORT));
          }
        }
        out.add(new Edge(State.rx(d), Relation.MASTER));
      }
      case ROUTE -> {
        for (DeviceId y : egress(d.netns())) {
          if (!y.equals(d)) {
            out.add(new Edge(State.tx(y), Relation.ROUTE));
          }
        }
      }
      default -> throw new IllegalStateException(s.kind().name());
    }
    return out;
  }

  /** The edges into {@code s}, each with the relation of its source to {@code s}'s device. */
  List<Edge> predecessors(State s) {
    List<Edge> out = new ArrayList<>();
    DeviceId d = s.device();
    switch (s.kind()) {
      case TX -> {
        for (DeviceId u : uppers.getOrDefault(d, List.of())) {
          out.add(new Edge(State.tx(u), Relation.UPPER));
        }
        DeviceId m = master.get(d);
        if (m != null) {
          if (isSwitch(m)) {
            for (DeviceId p : ports.getOrDefault(m, List.of())) {
              if (!p.equals(d)) {
                out.add(new Edge(new State(Kind.BRIDGE, m, p), Relation.MASTER));
              }
            }
          }
          out.add(new Edge(State.tx(m), Relation.MASTER));
        }
        if (inventory.routing(d.netns()).isEgress(d.ifindex())) {
          for (DeviceId x : forwarders.getOrDefault(d.netns(), List.of())) {
            if (!x.equals(d)) {
              out.add(new Edge(new State(Kind.ROUTE, x, null), Relation.ROUTE));
            }
          }
          for (DeviceId t : tunnels.getOrDefault(d.netns(), List.of())) {
            if (!t.equals(d)) {
              out.add(new Edge(State.tx(t), Relation.ROUTE));
            }
          }
        }
      }
      case RX -> {
        DeviceId p = peer.get(d);
        if (p != null) {
          out.add(new Edge(State.tx(p), Relation.PEER));
        }
        DeviceId l = lower.get(d);
        if (l != null) {
          out.add(new Edge(State.rx(l), Relation.LOWER));
        }
        if (isSwitch(d)) {
          for (DeviceId q : ports.getOrDefault(d, List.of())) {
            out.add(new Edge(new State(Kind.BRIDGE, d, q), Relation.PORT));
          }
        } else {
          for (DeviceId q : ports.getOrDefault(d, List.of())) {
            out.add(new Edge(State.rx(q), Relation.PORT));
          }
        }
      }
      case BRIDGE -> out.add(new Edge(State.rx(s.via()), Relation.PORT));
      case ROUTE -> out.add(new Edge(State.rx(d), Relation.ROUTE));
      default -> throw new IllegalStateException(s.kind().name());
    }
    return out;
  }

  /** What could not be followed from {@code device} (a link or master not found). */
  List<String> unresolved(DeviceId device) {
    return unresolved.getOrDefault(device, List.of());
  }
}

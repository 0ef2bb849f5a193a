package io.segscope.agent.inventory;

import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.agent.netlink.NetlinkException;
import io.segscope.agent.netlink.NetlinkMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The devices of one namespace as last read, kept current by full reloads and by applying
 * RTNLGRP_LINK notifications. Used by one thread.
 */
final class NamespaceState implements AutoCloseable {
  private static final int AF_UNSPEC = 0;

  private final NamespaceSession session;
  private final DecodeWarnings warnings;
  private final Map<Integer, Link> links = new HashMap<>();
  private final Map<Integer, Features> features = new HashMap<>();
  private final DriverNames drivers = new DriverNames(java.nio.file.Path.of("/sys/class/net"));
  private Routing routing = Routing.UNREAD;
  private List<Qdisc> qdiscs = List.of();
  private boolean routingDirty;
  private boolean qdiscsDirty;

  NamespaceState(NamespaceSession session, DecodeWarnings warnings) {
    this.session = session;
    this.warnings = warnings;
  }

  Netns netns() {
    return session.netns();
  }

  NamespaceSession session() {
    return session;
  }

  /** Re-reads every link and its features, the routes and the qdiscs. */
  void reload() {
    routing = session.routing();
    qdiscs = session.qdiscs();
    routingDirty = false;
    qdiscsDirty = false;
    List<Link> dumped = session.links();
    Map<Integer, Features> read = session.features(dumped);
    links.clear();
    features.clear();
    for (Link l : dumped) {
      links.put(l.ifindex(), l);
      features.put(l.ifindex(), read.getOrDefault(l.ifindex(),
          Features.unavailable("read features of " + l.name() + ": device missing from the reply")));
    }
  }

  /**
   * Dumps the links again and applies the differences: the kernel does not announce every change
   * (do_setlink changes gso_max_size/segs and gro limits without a notification; XDP attached
   * through a bpf_link is not announced either). Features are re-read for new or changed links.
   * Returns whether anything changed.
   */
  boolean refreshLinks() {
    List<Link> dumped = session.links();
    boolean changed = false;
    Set<Integer> seen = new HashSet<>();
    for (Link l : dumped) {
      seen.add(l.ifindex());
      Link old = links.put(l.ifindex(), l);
      if (!l.equals(old)) {
        features.put(l.ifindex(), session.features(l));
        changed = true;
      }
    }
    changed |= links.keySet().retainAll(seen);
    features.keySet().retainAll(seen);
    return changed;
  }

  /**
   * Applies notifications: RTM_NEWLINK replaces the device (and re-reads its features, which
   * change with NETDEV_FEAT_CHANGE notifications), RTM_DELLINK removes it. Bridge-family (AF_BRIDGE)
   * port notifications are not device changes and are ignored. Returns whether anything changed.
   */
  boolean apply(List<NetlinkMessage> events) {
    boolean changed = false;
    for (NetlinkMessage m : events) {
      if (m.type() != Rtnl.RTM_NEWLINK && m.type() != Rtnl.RTM_DELLINK) {
        continue;
      }
      try {
        if (m.payloadLength() >= 1 && Byte.toUnsignedInt(m.payloadView().get(0)) != AF_UNSPEC) {
          continue;
        }
        int index = LinkDecoder.ifindex(m);
        if (m.type() == Rtnl.RTM_DELLINK) {
          changed |= links.remove(index) != null;
          features.remove(index);
          continue;
        }
        Link link = LinkDecoder.decode(m, warnings);
        links.put(index, link);
        features.put(index, session.features(link));
        changed = true;
      } catch (NetlinkException e) {
        warnings.warn("apply link notification in namespace " + netns().inode() + ": " + e.getMessage());
      }
    }
    return changed;
  }

  /**
   * Notes route, netconf and qdisc notifications: the routes (or qdiscs) are read again at the next
   * {@link #refreshRouting()}, not once per message (a router's table can change thousands of times a
   * second). Returns whether any was of interest.
   */
  boolean noteRoutingEvents(List<NetlinkMessage> events) {
    boolean any = false;
    for (NetlinkMessage m : events) {
      switch (m.type()) {
        case Rtnl.RTM_NEWROUTE, Rtnl.RTM_DELROUTE, Rtnl.RTM_NEWNETCONF, Rtnl.RTM_DELNETCONF -> {
          routingDirty = true;
          any = true;
        }
        case Rtnl.RTM_NEWQDISC, Rtnl.RTM_DELQDISC -> {
          qdiscsDirty = true;
          any = true;
        }
        default -> { }
      }
    }
    return any;
  }

  /** After a notification overflow: read routes and qdiscs again at the next refresh. */
  void routingOverflowed() {
    routingDirty = true;
    qdiscsDirty = true;
  }

  /** Re-reads routes and qdiscs if notifications said they changed; returns whether anything changed. */
  boolean refreshRouting() {
    boolean changed = false;
    if (routingDirty) {
      routingDirty = false;
      Routing r = session.routing();
      changed |= !r.equals(routing);
      routing = r;
    }
    if (qdiscsDirty) {
      qdiscsDirty = false;
      List<Qdisc> q = session.qdiscs();
      changed |= !q.equals(qdiscs);
      qdiscs = q;
    }
    return changed;
  }

  Routing routing() {
    return routing;
  }

  List<Qdisc> qdiscs() {
    return qdiscs;
  }

  /** The nsids this namespace's links refer to. */
  Set<Integer> neededNsids() {
    Set<Integer> needed = new HashSet<>();
    for (Link l : links.values()) {
      l.linkNetnsId().ifPresent(needed::add);
    }
    return needed;
  }

  List<Device> devices() {
    List<Device> out = new ArrayList<>(links.size());
    Netns ns = netns();
    for (Link l : links.values()) {
      String driver = ns.root() && l.kind().isEmpty() ? drivers.driver(l.ifindex(), l.name()) : "";
      out.add(new Device(ns.inode(), ns.name(), l, features.get(l.ifindex()), driver));
    }
    return out;
  }

  int size() {
    return links.size();
  }

  @Override
  public void close() {
    session.close();
  }
}

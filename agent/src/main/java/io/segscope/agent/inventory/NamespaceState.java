package io.segscope.agent.inventory;

import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.FeatureSets;
import io.segscope.agent.inventory.model.Features;
import io.segscope.agent.inventory.model.Link;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.inventory.model.Qdisc;
import io.segscope.agent.inventory.model.Routing;
import io.segscope.agent.inventory.wire.LinkDecoder;
import io.segscope.agent.inventory.wire.LinkNotifications;
import io.segscope.agent.inventory.wire.Rtnl;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.agent.netlink.NetlinkException;
import io.segscope.agent.netlink.NetlinkMessage;
import java.nio.file.Path;
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
  /** How a namespace's device features are read: one device, or several with one dump. */
  interface FeatureSource {
    Features one(Link link);

    /** Features of {@code links} by ifindex (a device missing from the answer is left out). */
    Map<Integer, Features> several(List<Link> links);
  }

  private final NamespaceSession session;
  private final FeatureSource featureSource;
  private final DecodeWarnings warnings;
  private final Map<Integer, Link> links = new HashMap<>();
  private final Map<Integer, Features> features = new HashMap<>();
  private final DriverNames drivers = new DriverNames(Path.of("/sys/class/net"));
  private Routing routing = Routing.UNREAD;
  private List<Qdisc> qdiscs = List.of();
  private boolean routingDirty;
  private boolean qdiscsDirty;
  /** Feature requests for one device each, and dumps of the whole namespace (for the work log). */
  private long featureRequests;
  private long featureDumps;

  NamespaceState(NamespaceSession session, DecodeWarnings warnings) {
    this(session, session == null ? null : new FeatureSource() {
      @Override
      public Features one(Link link) {
        return session.features(link);
      }

      @Override
      public Map<Integer, Features> several(List<Link> links) {
        return session.features(links);
      }
    }, warnings);
  }

  /** With features read from {@code featureSource} (tests: recorded features without a namespace). */
  NamespaceState(NamespaceSession session, FeatureSource featureSource, DecodeWarnings warnings) {
    this.session = session;
    this.featureSource = featureSource;
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
    featureDumps++;
    Map<Integer, Features> read = featureSource.several(dumped);
    links.clear();
    features.clear();
    for (Link l : dumped) {
      links.put(l.ifindex(), l);
      features.put(l.ifindex(), FeatureSets.SHARED.canonical(read.getOrDefault(l.ifindex(),
          Features.unavailable("read features of " + l.name() + ": device missing from the reply"))));
    }
  }

  /**
   * Dumps the links again and applies the differences: the kernel does not announce every change
   * (do_setlink changes gso_max_size/segs and gro limits without a notification; XDP attached
   * through a bpf_link is not announced either). Features are re-read for new or changed links.
   * Returns whether anything changed.
   */
  boolean refreshLinks() {
    return refreshLinks(session.links());
  }

  /** {@link #refreshLinks()} with the dump already read. */
  boolean refreshLinks(List<Link> dumped) {
    List<Link> fresh = new ArrayList<>();
    Set<Integer> seen = new HashSet<>();
    for (Link l : dumped) {
      seen.add(l.ifindex());
      Link old = links.put(l.ifindex(), l);
      if (!l.equals(old)) {
        fresh.add(l);
      }
    }
    boolean changed = !fresh.isEmpty();
    changed |= links.keySet().retainAll(seen);
    features.keySet().retainAll(seen);
    features.putAll(readFeatures(fresh));
    return changed;
  }

  /**
   * The features of {@code changed} links (already in {@link #links}): one dump of the namespace when
   * they are many ({@link LinkNotifications#oneDump}), else one request each.
   */
  private Map<Integer, Features> readFeatures(List<Link> changed) {
    Map<Integer, Features> out = new HashMap<>();
    if (changed.isEmpty()) {
      return out;
    }
    if (LinkNotifications.oneDump(changed.size(), links.size())) {
      featureDumps++;
      Map<Integer, Features> read = featureSource.several(changed);
      for (Link l : changed) {
        out.put(l.ifindex(), FeatureSets.SHARED.canonical(read.getOrDefault(l.ifindex(),
            Features.unavailable("read features of " + l.name() + ": device missing from the reply"))));
      }
      return out;
    }
    for (Link l : changed) {
      featureRequests++;
      out.put(l.ifindex(), FeatureSets.SHARED.canonical(featureSource.one(l)));
    }
    return out;
  }

  /** Feature requests for one device each since this namespace was opened. */
  long featureRequests() {
    return featureRequests;
  }

  /** Dumps of the namespace's features (for several devices at once) since it was opened. */
  long featureDumps() {
    return featureDumps;
  }

  /**
   * Applies notifications, coalesced per device ({@link LinkNotifications}): a device's last
   * RTM_NEWLINK replaces it (and its features are read again: they change with NETDEV_FEAT_CHANGE
   * notifications), a last RTM_DELLINK removes it. Features of many devices are read with one dump.
   * Bridge-family (AF_BRIDGE) port notifications are not device changes and are ignored. Returns
   * whether anything changed.
   */
  boolean apply(List<NetlinkMessage> events) {
    return apply(LinkNotifications.of(events));
  }

  boolean apply(LinkNotifications batch) {
    for (String why : batch.unreadable()) {
      warnings.warn("apply link notification in namespace " + inode() + ": " + why);
    }
    boolean changed = false;
    List<Link> fresh = new ArrayList<>();
    for (Map.Entry<Integer, NetlinkMessage> e : batch.latest().entrySet()) {
      int index = e.getKey();
      NetlinkMessage m = e.getValue();
      if (m.type() == Rtnl.RTM_DELLINK) {
        changed |= links.remove(index) != null;
        features.remove(index);
        continue;
      }
      try {
        Link link = LinkDecoder.decode(m, warnings);
        links.put(index, link);
        fresh.add(link);
        changed = true;
      } catch (NetlinkException ex) {
        warnings.warn("apply link notification in namespace " + inode() + ": " + ex.getMessage());
      }
    }
    features.putAll(readFeatures(fresh));
    return changed;
  }

  private String inode() {
    return session == null ? "?" : Long.toString(netns().inode());
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
        default -> {}
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

  /** The features last read for a device, if it is known. */
  Features features(int ifindex) {
    return features.get(ifindex);
  }

  /** The devices' links by ifindex (a copy). */
  Map<Integer, Link> links() {
    return new HashMap<>(links);
  }

  List<Device> devices() {
    List<Device> out = new ArrayList<>(links.size());
    Netns ns = netns();
    for (Link l : links.values()) {
      String driver = ns.root() && l.kind().isEmpty() ? drivers.driver(l.ifindex(), l.name()) : "";
      out.add(new Device(ns.inode(), ns.name(), l, features.get(l.ifindex()), driver, ns.cookie()));
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

package io.segscope.agent.inventory;

import com.sun.jna.Native;
import io.segscope.agent.inventory.model.Features;
import io.segscope.agent.inventory.model.Link;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.inventory.model.Qdisc;
import io.segscope.agent.inventory.model.Route;
import io.segscope.agent.inventory.model.Routing;
import io.segscope.agent.inventory.wire.EthtoolIoctlFeatures;
import io.segscope.agent.inventory.wire.EthtoolNetlinkFeatures;
import io.segscope.agent.inventory.wire.FeatureReader;
import io.segscope.agent.inventory.wire.Rtnetlink;
import io.segscope.agent.inventory.wire.Rtnl;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.agent.netlink.Netlink;
import io.segscope.agent.netlink.NetlinkException;
import io.segscope.agent.netlink.NetlinkMessage;
import io.segscope.agent.netlink.NetlinkSocket;
import io.segscope.host.sys.Libc;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The sockets the inventory holds in one network namespace: an rtnetlink socket for requests, two
 * optional rtnetlink sockets for notifications (one subscribed to RTNLGRP_LINK; one to the route,
 * netconf and tc groups, so that a flood of route changes cannot make link notifications overflow),
 * and a feature reader. They are created on
 * the {@link NetnsThread} inside the namespace and used from any one thread afterwards.
 *
 * <p>Open sockets keep their namespace alive; {@link #close()} releases it.
 */
final class NamespaceSession implements AutoCloseable {

  private final Netns netns;
  private final NetlinkSocket rtnl;
  private final NetlinkSocket events;
  private final NetlinkSocket routingEvents;
  private final FeatureReader features;
  private final DecodeWarnings warnings;
  private final Map<Integer, Long> nsids = new HashMap<>();

  private NamespaceSession(Netns netns, NetlinkSocket rtnl, NetlinkSocket events, NetlinkSocket routingEvents,
      FeatureReader features, DecodeWarnings warnings) {
    this.netns = netns;
    this.rtnl = rtnl;
    this.events = events;
    this.routingEvents = routingEvents;
    this.features = features;
    this.warnings = warnings;
  }

  /** Routing and tc notifications are a trickle; a burst beyond this is an ENOBUFS and a re-read. */
  private static final int ROUTING_EVENT_BUFFER_BYTES = 1024 * 1024;

  /** Opens the sockets inside {@code ns}; {@code follow} adds the notification subscriptions. */
  static NamespaceSession open(NetnsThread thread, Netns ns, InventoryConfig config, boolean follow,
      DecodeWarnings warnings) {
    return thread.call(ns, () -> {
      NetlinkSocket rtnl = NetlinkSocket.open(Netlink.NETLINK_ROUTE, config.requestTimeout(), warnings);
      NetlinkSocket events = null;
      NetlinkSocket routing = null;
      FeatureReader reader = null;
      try {
        if (follow) {
          events = NetlinkSocket.open(Netlink.NETLINK_ROUTE, config.requestTimeout(), warnings);
          events.subscribe(Rtnl.RTNLGRP_LINK, config.eventBufferBytes());
          routing = NetlinkSocket.open(Netlink.NETLINK_ROUTE, config.requestTimeout(), warnings);
          for (int group : new int[] {Rtnl.RTNLGRP_IPV4_ROUTE, Rtnl.RTNLGRP_IPV6_ROUTE, Rtnl.RTNLGRP_IPV4_NETCONF,
              Rtnl.RTNLGRP_IPV6_NETCONF, Rtnl.RTNLGRP_TC}) {
            routing.subscribe(group, ROUTING_EVENT_BUFFER_BYTES);
          }
        }
        reader = openFeatures(config, warnings);
        return new NamespaceSession(ns.withCookie(rtnl.netnsCookie()), rtnl, events, routing, reader, warnings);
      } catch (RuntimeException e) {
        rtnl.close();
        if (events != null) {
          events.close();
        }
        if (routing != null) {
          routing.close();
        }
        throw e;
      }
    });
  }

  private static FeatureReader openFeatures(InventoryConfig config, DecodeWarnings warnings) {
    switch (config.features()) {
      case NONE:
        return null;
      case IOCTL:
        return EthtoolIoctlFeatures.open();
      default:
        NetlinkSocket genl = NetlinkSocket.open(Netlink.NETLINK_GENERIC, config.requestTimeout(), warnings);
        Optional<EthtoolNetlinkFeatures> nl;
        try {
          nl = EthtoolNetlinkFeatures.open(genl, warnings);
        } catch (RuntimeException e) {
          genl.close();
          throw e;
        }
        if (nl.isPresent()) {
          return nl.get();
        }
        genl.close();
        if (config.features() == InventoryConfig.FeatureMode.NETLINK) {
          throw new NetlinkException("open ethtool netlink: the kernel has no \"ethtool\" genl family");
        }
        return EthtoolIoctlFeatures.open();
    }
  }

  Netns netns() {
    return netns;
  }

  List<Link> links() {
    return Rtnetlink.dumpLinks(rtnl, warnings);
  }

  /** The namespace's routes and forwarding ({@link Rtnetlink#dumpRouting}). */
  Routing routing() {
    return Rtnetlink.dumpRouting(rtnl, warnings);
  }

  /** The namespace's qdiscs. */
  List<Qdisc> qdiscs() {
    return Rtnetlink.dumpQdiscs(rtnl, warnings);
  }

  Features features(Link link) {
    return features == null ? Features.unavailable("features not read (disabled)")
        : features.read(link.ifindex(), link.name());
  }

  Map<Integer, Features> features(List<Link> links) {
    Map<Integer, String> names = new HashMap<>();
    links.forEach(l -> names.put(l.ifindex(), l.name()));
    if (features == null) {
      Map<Integer, Features> none = new HashMap<>();
      names.keySet().forEach(i -> none.put(i, Features.unavailable("features not read (disabled)")));
      return none;
    }
    try {
      return features.readAll(names);
    } catch (NetlinkException e) {
      warnings.warn("read features in namespace " + netns.inode() + ": " + e.getMessage()
          + "; reading devices one by one");
      Map<Integer, Features> out = new HashMap<>();
      links.forEach(l -> out.put(l.ifindex(), features.read(l.ifindex(), l.name())));
      return out;
    }
  }

  Features.Source featureSource() {
    return features == null ? Features.Source.UNAVAILABLE : features.source();
  }

  /**
   * The nsid this namespace has assigned to {@code other}, or empty when none. The other namespace
   * is opened by path and checked by inode before asking.
   */
  OptionalInt nsidOf(Netns other) {
    Path path = other.path();
    int fd = Libc.INSTANCE.open(path.toString(), Libc.O_RDONLY | Libc.O_CLOEXEC);
    if (fd < 0) {
      throw NetlinkException.errno("open namespace " + other.inode() + " at " + path, Native.getLastError());
    }
    try {
      long actual = NetnsDiscovery.inode(Path.of("/proc/self/fd/" + fd));
      if (actual != other.inode()) {
        throw new NetlinkException("open namespace " + other.inode() + ": " + path
            + " now refers to namespace " + actual);
      }
      return Rtnetlink.nsidOf(rtnl, fd, warnings);
    } finally {
      Libc.INSTANCE.close(fd);
    }
  }

  /**
   * Makes sure every nsid in {@code needed} is mapped to a namespace inode, asking about the
   * candidate namespaces (in order) until all are found. Found mappings are cached: an nsid stays
   * assigned while both namespaces live. Returns the cache (nsid → inode).
   */
  Map<Integer, Long> resolveNsids(Set<Integer> needed, List<Netns> candidates) {
    if (nsids.keySet().containsAll(needed)) {
      return nsids;
    }
    for (Netns other : candidates) {
      if (other.inode() == netns.inode() || nsids.containsValue(other.inode())) {
        continue;
      }
      try {
        OptionalInt id = nsidOf(other);
        if (id.isPresent()) {
          nsids.put(id.getAsInt(), other.inode());
        }
      } catch (NetlinkException e) {
        warnings.warn("map nsids of namespace " + netns.inode() + ": " + e.getMessage());
      }
      if (nsids.keySet().containsAll(needed)) {
        break;
      }
    }
    return nsids;
  }

  /** Forgets a namespace that vanished (its nsid may be reused). */
  void forget(long inode) {
    nsids.values().removeIf(v -> v == inode);
  }

  Map<Integer, Long> nsids() {
    return nsids;
  }

  /** The file descriptor of the notification socket, or -1 when not following. */
  int eventFd() {
    return events == null ? -1 : events.fd();
  }

  /** Notifications queued on the subscribed socket; ENOBUFS (overflow) is thrown. */
  List<NetlinkMessage> drainEvents() {
    return events == null ? List.of() : events.drain();
  }

  /** The file descriptor of the routing/tc notification socket, or -1 when not following. */
  int routingEventFd() {
    return routingEvents == null ? -1 : routingEvents.fd();
  }

  /** Route, netconf and qdisc notifications queued; ENOBUFS (overflow) is thrown. */
  List<NetlinkMessage> drainRoutingEvents() {
    return routingEvents == null ? List.of() : routingEvents.drain();
  }

  @Override
  public void close() {
    rtnl.close();
    if (events != null) {
      events.close();
    }
    if (routingEvents != null) {
      routingEvents.close();
    }
    if (features != null) {
      features.close();
    }
  }
}

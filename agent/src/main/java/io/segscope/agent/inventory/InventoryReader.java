package io.segscope.agent.inventory;

import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.inventory.model.Qdisc;
import io.segscope.agent.inventory.model.Routing;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.agent.netlink.NetlinkException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a complete {@link Inventory} once: discovers the namespaces, opens sockets in each on a
 * dedicated {@link NetnsThread}, dumps links and features, routes, forwarding and qdiscs, maps nsids,
 * closes everything.
 * A namespace that cannot be entered (it vanished meanwhile, or access is refused) is left out
 * with a counted warning.
 */
public final class InventoryReader {
  private InventoryReader() {}

  public static Inventory read(InventoryConfig config, DecodeWarnings warnings) {
    NetnsDiscovery discovery = new NetnsDiscovery(config.proc(), config.namedNetnsDirs());
    List<NamespaceState> states = new ArrayList<>();
    try (NetnsThread thread = new NetnsThread("segscope-netns-read")) {
      List<Netns> namespaces = discovery.scan();
      for (Netns ns : namespaces) {
        NamespaceState state = open(thread, ns, config, false, warnings);
        if (state != null) {
          states.add(state);
        }
      }
      for (NamespaceState s : states) {
        try {
          s.reload();
        } catch (NetlinkException e) {
          warnings.warn("read namespace " + s.netns().inode() + ": " + e.getMessage());
        }
      }
      return snapshot(states, warnings);
    } finally {
      states.forEach(NamespaceState::close);
    }
  }

  /** Opens a namespace's state, or returns null (with a warning) when it cannot be entered. */
  static NamespaceState open(NetnsThread thread, Netns ns, InventoryConfig config, boolean follow,
      DecodeWarnings warnings) {
    try {
      return new NamespaceState(NamespaceSession.open(thread, ns, config, follow, warnings), warnings);
    } catch (NetlinkException e) {
      warnings.warn("open namespace " + ns.inode() + (ns.name().isEmpty() ? "" : " (" + ns.name() + ")")
          + ": " + e.getMessage());
      return null;
    }
  }

  /** Resolves the nsids the devices need and assembles the snapshot. */
  static Inventory snapshot(Collection<NamespaceState> states, DecodeWarnings warnings) {
    List<Netns> namespaces = new ArrayList<>();
    for (NamespaceState s : states) {
      namespaces.add(s.netns());
    }
    namespaces.sort((a, b) -> a.root() == b.root() ? Long.compare(a.inode(), b.inode()) : a.root() ? -1 : 1);
    List<Device> devices = new ArrayList<>();
    Map<Long, Map<Integer, Long>> nsids = new HashMap<>();
    Map<Long, Routing> routing = new HashMap<>();
    Map<Long, List<Qdisc>> qdiscs = new HashMap<>();
    for (NamespaceState s : states) {
      devices.addAll(s.devices());
      routing.put(s.netns().inode(), s.routing());
      qdiscs.put(s.netns().inode(), s.qdiscs());
      Set<Integer> needed = s.neededNsids();
      if (!needed.isEmpty()) {
        nsids.put(s.netns().inode(), new HashMap<>(s.session().resolveNsids(needed, namespaces)));
      }
    }
    return new Inventory(namespaces, devices, nsids, routing, qdiscs, Instant.now());
  }
}

package io.segscope.agent.inventory.model;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * A namespace's IP routing as far as the device graph needs it: where its routes lead and which of
 * its devices forward what they receive. Immutable.
 *
 * @param routes the unicast routes read (at most {@link #MAX_ROUTES}: a full Internet table is
 *     summarised, not kept)
 * @param routeCount every unicast route the dump held, kept or not
 * @param egress the devices some unicast route leaves by (outside the local table; IPv6
 *     link-local and multicast prefixes left out: every IPv6 device has them), with the smallest
 *     route MTU metric seen through each (empty: the device's MTU applies)
 * @param forwarding the devices whose IPv4 or IPv6 forwarding is on (netconf, RTM_GETNETCONF)
 * @param forwardingKnown false when the kernel did not answer the netconf dump (then no device is
 *     taken to forward)
 * @param read false when the routes could not be read at all (see {@code notes})
 * @param notes what could not be read or followed, in words
 */
public record Routing(List<Route> routes, int routeCount, Map<Integer, OptionalLong> egress,
    Set<Integer> forwarding, boolean forwardingKnown, boolean read, List<String> notes) {

  /** Routes kept per namespace; beyond, only the egress devices are summarised. */
  public static final int MAX_ROUTES = 1024;

  /** Nothing read (yet): no egress, no forwarding. */
  public static final Routing UNREAD = new Routing(List.of(), 0, Map.of(), Set.of(), false, false, List.of());

  public Routing {
    routes = List.copyOf(routes);
    egress = Map.copyOf(egress);
    forwarding = Set.copyOf(forwarding);
    notes = List.copyOf(notes);
  }

  /** Whether the device forwards (IPv4 or IPv6) what it receives. */
  public boolean forwards(int ifindex) {
    return forwarding.contains(ifindex);
  }

  /** Whether some unicast route leaves by this device. */
  public boolean isEgress(int ifindex) {
    return egress.containsKey(ifindex);
  }
}

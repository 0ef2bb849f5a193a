package io.segscope.agent.inventory.model;

import java.util.List;
import java.util.OptionalLong;

/**
 * One unicast route of a namespace, as rtnetlink (RTM_NEWROUTE) describes it.
 *
 * @param family {@code 4} or {@code 6}
 * @param destination the prefix, e.g. {@code 198.18.1.0/24}, {@code ::/0}
 * @param table the routing table (254 main; policy routing uses others)
 * @param oifs the devices it leaves by: RTA_OIF, or every nexthop of RTA_MULTIPATH
 * @param mtu the route's MTU metric (RTAX_MTU), empty when the device's MTU applies
 * @param nexthopObject the route names a nexthop object (RTA_NH_ID) instead of a device: its
 *     device is not known to the inventory, and the route adds no egress
 */
public record Route(int family, String destination, int table, List<Integer> oifs, OptionalLong mtu,
    boolean nexthopObject) {
  public Route {
    oifs = List.copyOf(oifs);
  }
}

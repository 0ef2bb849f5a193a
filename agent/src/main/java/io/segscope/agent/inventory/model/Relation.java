package io.segscope.agent.inventory.model;

/** How a device in a chain relates to the device before it in the walk. */
public enum Relation {
  /** The other end of a veth/netkit pair (possibly in another namespace). */
  PEER,
  /** The device below a stacked one (a macvlan's, ipvlan's, vlan's or vxlan's lower device). */
  LOWER,
  /** A stacked device on top of the previous one (the inverse of LOWER). */
  UPPER,
  /** The bridge/bond/team/vrf the previous device is a port of. */
  MASTER,
  /** A port of the previous device (a bridge, bond, team or vrf). */
  PORT,
  /**
   * Reached through the namespace's IP routing: a device a route leaves by, for what the previous
   * device received and its namespace forwards (or for what a tunnel encapsulated); in the up
   * direction, the device whose received packets are forwarded to the previous one.
   */
  ROUTE
}

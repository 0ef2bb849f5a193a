package io.segscope.agent.inventory.model;

import io.segscope.device.DeviceId;
import java.util.List;

/**
 * The devices around one device, along the direction packets take on their way out of the host.
 *
 * @param device the device the chain was computed for
 * @param down devices its outgoing packets pass through next, breadth-first (nearest first)
 * @param up devices whose outgoing packets reach it, breadth-first
 * @param exits the ends of the down walk (a physical NIC or a tap sends out of the host; a receive
 *     path whose namespace does not route it on delivers locally); the device itself when nothing
 *     lies below it
 * @param unresolved references that could not be followed (a peer in a namespace the agent cannot
 *     see, an ifindex that no longer exists), described in words
 */
public record Chain(DeviceId device, List<Hop> down, List<Hop> up, List<DeviceId> exits,
    List<String> unresolved) {

  public Chain {
    down = List.copyOf(down);
    up = List.copyOf(up);
    exits = List.copyOf(exits);
    unresolved = List.copyOf(unresolved);
  }
}

package io.segscope.lab;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A built scenario: where traffic starts and ends and every device by role
 * ({@code "sender"}, {@code "senderPeer"}, {@code "uplink"}, {@code "receiver"}, {@code "bridge"},
 * {@code "lower"}, {@code "macvlan"}, ...).
 *
 * @param name         scenario name, e.g. {@code "s1-gso-mismatch"} or {@code "s1-gso-mismatch-healthy"}
 * @param receiverAddr the receiver's address without prefix length (for iperf3 / ping)
 */
public record Topology(String name, Netns sender, Netns receiver, String receiverAddr, Map<String, DeviceAt> devices) {
  public Topology {
    devices = Collections.unmodifiableMap(new LinkedHashMap<>(devices)); // keeps the builder's order
  }

  /** The device playing {@code role}; throws naming the role and the scenario when there is none. */
  public DeviceAt device(String role) {
    DeviceAt d = devices.get(role);
    if (d == null) {
      throw new IllegalArgumentException("find device " + role + " in " + name + ": no such role (have "
          + devices.keySet() + ")");
    }
    return d;
  }
}

package io.segscope.agent.inventory;

import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A device's offload features by ethtool name (bit numbers change between kernels, names do not).
 *
 * <p>The four sets are the kernel's: {@code active} = dev->features, {@code hardware} =
 * dev->hw_features (what the user may change), {@code wanted} = dev->wanted_features (what the user
 * asked for), {@code noChange} = features that can never change. {@code known} lists every feature
 * name the kernel has (so that an "off" feature is distinguishable from an unknown one).
 * {@link #isFixed} is ethtool(8)'s "[fixed]": not in {@code hardware}, or in {@code noChange}.
 *
 * @param source where the sets came from; {@link Source#UNAVAILABLE} with {@code error} when they
 *     could not be read (then all sets are empty)
 */
public record Features(Source source, List<String> known, Set<String> active, Set<String> hardware,
    Set<String> wanted, Set<String> noChange, String error) {

  /** Where features were read from. */
  public enum Source { ETHTOOL_NETLINK, ETHTOOL_IOCTL, UNAVAILABLE }

  public Features {
    known = known.stream().filter(n -> !n.isEmpty()).toList();
    active = Collections.unmodifiableSet(new TreeSet<>(active));
    hardware = Collections.unmodifiableSet(new TreeSet<>(hardware));
    wanted = Collections.unmodifiableSet(new TreeSet<>(wanted));
    noChange = Collections.unmodifiableSet(new TreeSet<>(noChange));
    error = error == null ? "" : error;
  }

  public static Features unavailable(String error) {
    return new Features(Source.UNAVAILABLE, List.of(), Set.of(), Set.of(), Set.of(), Set.of(), error);
  }

  public boolean available() {
    return source != Source.UNAVAILABLE;
  }

  public boolean isActive(String name) {
    return active.contains(name);
  }

  /** ethtool's "[fixed]": the user cannot toggle it. */
  public boolean isFixed(String name) {
    return !hardware.contains(name) || noChange.contains(name);
  }
}

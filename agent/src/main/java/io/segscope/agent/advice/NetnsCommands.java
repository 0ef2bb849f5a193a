package io.segscope.agent.advice;

import io.segscope.agent.inventory.Netns;

/**
 * Commands that work in a given namespace: the root namespace runs them as they are, a named one
 * (under /run/netns) through {@code ip -n} / {@code ip netns exec}, an unnamed one (a container's)
 * through {@code nsenter --net=/proc/PID/ns/net}.
 */
final class NetnsCommands {
  private NetnsCommands() {}

  /**
   * Whether {@code ip -n NAME} finds the namespace: only names under /run/netns. A name from another
   * --netns-dir (containerd's state directory, /run/docker/netns) is reached through its path.
   */
  private static boolean ipKnowsName(Netns ns) {
    java.nio.file.Path dir = ns.path().getParent();
    return !ns.name().isEmpty() && dir != null
        && (dir.equals(java.nio.file.Path.of("/run/netns")) || dir.equals(java.nio.file.Path.of("/var/run/netns")));
  }

  /** {@code ip link set dev DEV ARGS} in that namespace. */
  static String ipLinkSet(Netns ns, String dev, String args) {
    if (ns.root()) {
      return "ip link set dev " + dev + " " + args;
    }
    if (ipKnowsName(ns)) {
      return "ip -n " + ns.name() + " link set dev " + dev + " " + args;
    }
    return "nsenter --net=" + ns.path() + " ip link set dev " + dev + " " + args;
  }

  /**
   * A command in that namespace through {@code nsenter --net}, which, unlike {@code ip netns exec},
   * leaves the mount namespace alone: /sys/fs/bpf (bpffs pins) stays visible.
   */
  static String nsenter(Netns ns, String command) {
    return ns.root() ? command : "nsenter --net=" + ns.path() + " " + command;
  }

  /** Any other command ({@code ethtool ...}) in that namespace. */
  static String exec(Netns ns, String command) {
    if (ns.root()) {
      return command;
    }
    if (ipKnowsName(ns)) {
      return "ip netns exec " + ns.name() + " " + command;
    }
    return "nsenter --net=" + ns.path() + " " + command;
  }
}

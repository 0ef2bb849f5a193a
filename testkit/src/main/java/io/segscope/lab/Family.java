package io.segscope.lab;

/** The IP family a scenario's hosts talk: its addresses (docs/lab.md) and its name suffix. */
public enum Family {
  IPV4,
  IPV6;

  /**
   * The network of scenario {@code n} without the host part: {@code 198.18.<n>.} (healthy {@code n + 10}),
   * or for IPv6 {@code 2001:2:0:<n>::} (healthy {@code n + 10}).
   */
  String net(int n, boolean healthy) {
    int k = healthy ? n + 10 : n;
    return this == IPV4 ? "198.18." + k + "." : "2001:2:0:" + k + "::";
  }

  /** The prefix length of a scenario's networks, with its slash. */
  String len() {
    return this == IPV4 ? "/24" : "/64";
  }

  /** "" or {@code -ipv6}: what a scenario's name carries. */
  String suffix() {
    return this == IPV4 ? "" : "-ipv6";
  }
}

package io.segscope.agent.netlink;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the problems the device inventory worked around rather than threw, exported as
 * segscope_netlink_decode_warnings_total. Despite the name, not only decode problems: an attribute
 * whose payload has the wrong size for its type, bytes left over after the last attribute, a record
 * or reply dropped from a dump because it could not be decoded or was unexpected; and also a
 * namespace that could not be opened or read (links, features, routes, qdiscs, nsids) or whose links
 * could not be refreshed, a link notification that could not be applied, a failed turn of the
 * follower's poll loop, and overflowed route/qdisc notifications. Each is logged at WARNING (once per
 * distinct message in a row) and counted. Thread-safe.
 */
public final class DecodeWarnings {
  private static final System.Logger LOG = System.getLogger(DecodeWarnings.class.getName());

  private final AtomicLong count = new AtomicLong();
  private volatile String last = "";

  public void warn(String message) {
    count.incrementAndGet();
    if (!message.equals(last)) {
      last = message;
      LOG.log(System.Logger.Level.WARNING, message);
    }
  }

  public long count() {
    return count.get();
  }

  /** The most recent warning text, "" before the first. */
  public String last() {
    return last;
  }
}

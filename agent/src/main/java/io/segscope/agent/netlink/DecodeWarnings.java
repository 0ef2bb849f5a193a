package io.segscope.agent.netlink;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts decode problems that were skipped rather than thrown: an attribute whose payload has the
 * wrong size for its type, bytes left over after the last attribute, a record dropped from a dump
 * because it could not be decoded. Each is logged once per distinct message at WARNING and counted
 * so that it can be exported as a self-metric. Thread-safe.
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

package io.segscope.agent.inventory.model;

/**
 * One instance per distinct set of features: the devices of a host mostly share a few (every veth
 * has the same), and each {@link Features} holds four sorted sets of about fifty names (some 8 KiB).
 * With thousands of devices that was the largest part of the inventory on the heap. Only features
 * that were read are shared (an unavailable one carries its own error text); at most {@code max}
 * distinct sets are kept, so tenants toggling features cannot grow it without bound: beyond that a
 * set is used as it is.
 */
public final class FeatureSets {
  /** The one the inventory uses. */
  public static final FeatureSets SHARED = new FeatureSets(256);

  private final Interner<Features> seen;

  FeatureSets(int max) {
    this.seen = new Interner<>(max);
  }

  /** The shared instance equal to {@code f} (it becomes the shared one if it is the first). */
  public Features canonical(Features f) {
    if (f == null || !f.available()) {
      return f;
    }
    return seen.of(f);
  }

  int size() {
    return seen.size();
  }
}

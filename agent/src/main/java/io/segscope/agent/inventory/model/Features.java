package io.segscope.agent.inventory.model;

import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * A device's offload features by ethtool name (bit numbers change between kernels, names do not).
 *
 * <p>The four sets are the kernel's: {@code active} = dev->features, {@code hardware} =
 * dev->hw_features (what the user may change), {@code wanted} = dev->wanted_features (what the user
 * asked for), {@code noChange} = features that can never change. {@code known} lists every feature
 * name the kernel has (so that an "off" feature is distinguishable from an unknown one).
 * {@link #isFixed} is ethtool(8)'s "[fixed]": not in {@code hardware}, or in {@code noChange}.
 *
 * <p>Memory: a host keeps one of these per device (thousands on a container host), each naming ~100
 * features. The names are the kernel's, a small fixed vocabulary, so every name is stored once for the
 * whole process ({@link #canonical}) and each set is a sorted array of those shared strings, not a tree of
 * per-device copies (measured at 1,000 devices: ~160,000 fewer strings and tree entries, ~15 MiB of heap).
 *
 * @param source where the sets came from; {@link Source#UNAVAILABLE} with {@code error} when they
 *     could not be read (then all sets are empty)
 */
public record Features(Source source, List<String> known, Set<String> active, Set<String> hardware,
    Set<String> wanted, Set<String> noChange, String error) {

  /** Where features were read from. */
  public enum Source { ETHTOOL_NETLINK, ETHTOOL_IOCTL, UNAVAILABLE }

  public Features {
    known = known.stream().filter(n -> !n.isEmpty()).map(Features::canonical).toList();
    active = NameSet.of(active);
    hardware = NameSet.of(hardware);
    wanted = NameSet.of(wanted);
    noChange = NameSet.of(noChange);
    error = error == null ? "" : error;
  }

  /** Feature names held once per process; beyond this many distinct names, names are kept as given. */
  static final int CANONICAL_LIMIT = 4096;
  private static final Interner<String> NAMES = new Interner<>(CANONICAL_LIMIT);

  /**
   * The process-wide instance equal to {@code name}. The names come from the kernel's ETH_SS_FEATURES
   * string set (about 70 on 6.x), never from tenants; the limit only bounds a kernel that sends nonsense.
   */
  static String canonical(String name) {
    return NAMES.of(name);
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

  /** An immutable set of feature names: a sorted array of canonical strings, iterated in name order. */
  static final class NameSet extends AbstractSet<String> {
    private static final NameSet EMPTY = new NameSet(new String[0]);
    private final String[] names;

    private NameSet(String[] names) {
      this.names = names;
    }

    static NameSet of(Collection<String> names) {
      if (names instanceof NameSet n) {
        return n;
      }
      if (names.isEmpty()) {
        return EMPTY;
      }
      String[] a = names.stream().map(Features::canonical).distinct().sorted().toArray(String[]::new);
      return new NameSet(a);
    }

    @Override
    public boolean contains(Object o) {
      return o instanceof String s && Arrays.binarySearch(names, s) >= 0;
    }

    @Override
    public int size() {
      return names.length;
    }

    @Override
    public Iterator<String> iterator() {
      return new Iterator<>() {
        private int next;

        @Override
        public boolean hasNext() {
          return next < names.length;
        }

        @Override
        public String next() {
          if (next >= names.length) {
            throw new NoSuchElementException();
          }
          return names[next++];
        }
      };
    }
  }
}

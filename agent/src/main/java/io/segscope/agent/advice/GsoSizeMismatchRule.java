package io.segscope.agent.advice;

import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.DeviceGraph;
import io.segscope.agent.inventory.model.Link;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.inventory.model.Relation;
import io.segscope.exporters.model.DeviceRef;
import io.segscope.vocabulary.Cause;
import io.segscope.vocabulary.GsoType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * {@code gso_size_mismatch}: device D segments in software because the super-packets reaching it
 * exceed its {@code gso_max_size} (its {@code gso_ipv4_max_size} for IPv4, or its
 * {@code gso_max_segs}), while the devices where those super-packets were sized advertise larger
 * limits. The devices are D's sources in the one device graph ({@link DeviceGraph#sources}): across
 * veth pairs, bridges, stacked devices, bond masters and router namespaces.
 *
 * <p>A setting or a cap (issue 28): where D's limit is below what its driver takes ({@code tso_max_size},
 * {@code tso_max_segs}) and below what its feeders use, it is only a setting, and the command raises D to
 * the smaller of the two ({@link #raise}): nothing above D changes (lowering the feeders instead made S1's
 * path 16 % slower). Where D is at its cap, the feeders' limits come down to D's, which makes TCP build
 * super-packets D can take intact (docs/kernel.md: ~3x less sender CPU in the original report); both where
 * a raised D is still below the feeders.
 *
 * <p>A bond (like a bridge) takes the minimum of its ports' {@code tso_max_size}, not of their
 * {@code gso_max_size}: a port whose gso_max_size was lowered receives larger super-packets from the
 * bond's own sockets, and the bond is then one of the sources this rule changes.
 *
 * <p>BIG TCP: where D's IPv4 and IPv6 limits differ ({@code gso_ipv4_max_size} below
 * {@code gso_max_size}), each family's limit is compared and set on its own, following the GSO types
 * seen (tcp4, tcp6).
 */
public final class GsoSizeMismatchRule implements Rule {

  /** MAX_TCP_HEADER + 1 on x86-64: the smallest gso_max_size rtnetlink accepts. */
  static final long KERNEL_MIN_GSO_MAX_SIZE = 321;
  /** GSO_LEGACY_MAX_SIZE: setting gso_max_size at or below it sets gso_ipv4_max_size too. */
  static final long LEGACY_MAX = 65536;
  /** Source devices changed by one finding at most. */
  static final int MAX_SOURCES = 32;

  @Override
  public String name() {
    return "gso_size_mismatch";
  }

  @Override
  public Optional<Finding> evaluate(DeviceCost cost, AdviceContext ctx) {
    var t = ctx.thresholds();
    if (cost.swSkbsPerSec() < t.minSoftwareGsoPerSec()) {
      return Optional.empty();
    }
    double sizeShare = cost.causeShare(Cause.GSO_MAX_SIZE);
    double segsShare = cost.causeShare(Cause.GSO_MAX_SEGS);
    if (sizeShare + segsShare < t.minCauseShare()) {
      return Optional.empty();
    }
    Optional<AdviceContext.Located> at = ctx.locate(cost);
    if (at.isEmpty()) {
      return Optional.empty();
    }
    Device d = at.get().device();
    Limits before = Limits.of(d.link());
    boolean typesKnown = Evidence.typesKnown(cost);
    boolean v4 = !typesKnown || cost.typeShare(GsoType.TCP4) > 0;
    boolean v6 = !typesKnown || cost.typeShare(GsoType.TCP6) > 0 || cost.typeShare(GsoType.UDP_L4) > 0;
    List<DeviceGraph.Source> sources = ctx.localSources(d, MAX_SOURCES).stream()
        .filter(s -> ctx.netns(s.device().netns()).isPresent()).toList();
    // a setting or a cap: D's limit below its driver's (tso_max_size, tso_max_segs) and below what its
    // feeders use is only a setting, and raising it (to the smaller of the two) removes the segmentation
    // without shrinking every super-packet above it; feeders above D's cap still come down to it
    Raise raise = raise(d, before, sources, sizeShare > 0, segsShare > 0, v4, v6);
    Plan plan = new Plan(d);
    for (List<String> set : raise.sets()) {
      plan.commands.add(NetnsCommands.ipLinkSet(at.get().netns(), d.name(), set));
    }
    plan.ipv4Keyword = raise.sets().stream().anyMatch(x -> x.contains("gso_ipv4_max_size"));
    for (DeviceGraph.Source src : sources) {
      bringDown(ctx, d, src, raise.after(), sizeShare > 0, segsShare > 0, v4, v6, plan);
    }
    if (plan.commands.isEmpty()) {
      return Optional.empty(); // no source we could change (or the kernel would refuse)
    }
    boolean shrinks = plan.devices.size() > 1;
    String limitCase = raise.sets().isEmpty() ? (raise.keywordV4() > 0 ? "setting_ipv4_keyword" : "cap")
        : shrinks ? "setting_and_cap" : "setting";
    Map<String, Object> ev =
        GsoSizeMismatchFinding.evidence(cost, d, before, sizeShare, segsShare, limitCase, raise, plan.compared);
    double saving = cost.gsoCpu().cores() * Math.min(1, sizeShare + segsShare);
    String confidence = sizeShare + segsShare >= 0.9 ? "high" : "medium";
    String limit = sizeShare >= segsShare
        ? (before.differ() && v4 && !v6 ? "gso_ipv4_max_size (" + before.v4() + ")"
            : "gso_max_size (" + before.size.orElse(-1) + ")")
        : "gso_max_segs (" + before.segs.orElse(-1) + ")";
    return Optional.of(new Finding(name(), "warning", AdviceContext.ref(d), plan.devices,
        String.format("%s segments %.0f super-packets/s in software because they exceed its %s; the devices "
            + "feeding it%s advertise larger limits%s", AdviceContext.label(d), cost.swSkbsPerSec(), limit,
            plan.routed ? " (through IP forwarding)" : "", GsoSizeMismatchFinding.what(limitCase)),
        ev, plan.commands, saving,
        "the CPU measured segmenting at " + AdviceContext.label(d) + " for these causes ("
            + cost.gsoCpu().basis() + "): it stops once the super-packets fit",
        confidence, GsoSizeMismatchFinding.risk(d, raise, shrinks, plan.ipv4Keyword),
        GsoSizeMismatchFinding.keywordExplanation(d, raise)));
  }

  /** What one finding changes: its commands and devices, the feeders it compared, and what they imply. */
  private static final class Plan {
    final List<Command> commands = new ArrayList<>();
    final List<DeviceRef> devices = new ArrayList<>();
    final List<Map<String, Object>> compared = new ArrayList<>();
    boolean routed;
    boolean ipv4Keyword;

    Plan(Device d) {
      devices.add(AdviceContext.ref(d));
    }
  }

  /**
   * Compares one feeder {@code src} with D's limits once raised ({@code dl}): the settings that bring it down
   * to them (none where it fits), recorded in {@code plan} with the comparison for the evidence.
   */
  private static void bringDown(AdviceContext ctx, Device d, DeviceGraph.Source src, Limits dl, boolean size,
      boolean segs, boolean v4, boolean v6, Plan plan) {
    Device u = src.device();
    List<List<String>> sets = new ArrayList<>();
    if (size) {
      sets.addAll(sizeSettings(dl, Limits.of(u.link()), u.link(), v4, v6));
    }
    if (segs && dl.segs.isPresent() && u.link().gsoMaxSegs().orElse(0) > dl.segs.getAsLong()) {
      long m = dl.segs.getAsLong();
      if (m >= 1 && m <= Math.min(65535, u.link().tsoMaxSegs().orElse(65535))) {
        if (sets.isEmpty()) {
          sets.add(new ArrayList<>());
        }
        sets.get(0).addAll(List.of("gso_max_segs", Long.toString(m)));
      }
    }
    plan.compared.add(GsoSizeMismatchFinding.comparison(ctx, src, !sets.isEmpty()));
    if (sets.isEmpty()) {
      return;
    }
    plan.ipv4Keyword |= sets.stream().anyMatch(x -> x.contains("gso_ipv4_max_size"));
    plan.routed |= src.relation() == Relation.ROUTE || pathIsRouted(ctx, d, src);
    Netns ns = ctx.netns(u.netns()).get();
    for (List<String> set : sets) {
      plan.commands.add(NetnsCommands.ipLinkSet(ns, u.name(), set));
    }
    plan.devices.add(AdviceContext.ref(u));
  }

  /**
   * What raising D's own limits can do: for each limit (gso_max_size for IPv6 or both families,
   * gso_ipv4_max_size for IPv4, gso_max_segs) that sits below D's cap (tso_max_size, tso_max_segs) and
   * below the largest its feeders use, the new value is the smaller of the two. Bridges, bonds and teams
   * take the minimum of their ports and are never raised.
   *
   * @param sets the {@code ip link set} settings that raise D (none: every limit is at its cap or
   *     fits the feeders)
   * @param after D's limits once raised (the limits the feeders are then compared with)
   * @param why the reasoning, for the evidence
   */
  record Raise(List<List<String>> sets, Limits after, String why, long keywordV4) {}

  static Raise raise(Device d, Limits dl, List<DeviceGraph.Source> sources, boolean size, boolean segs, boolean v4,
      boolean v6) {
    Link l = d.link();
    String kind = d.kind();
    long tso = l.tsoMaxSize().orElse(-1);
    long tsoSegs = l.tsoMaxSegs().orElse(-1);
    if (kind.equals("bridge") || kind.equals("bond") || kind.equals("team") || kind.equals("openvswitch")
        || dl.size.isEmpty()) {
      return new Raise(List.of(), dl, dl.size.isEmpty() ? "its limits are unknown"
          : "a " + kind + " takes the smallest limit of its ports: not raised", 0);
    }
    Feeders f = Feeders.of(sources);
    long fSize = f.size();
    long fV4 = f.v4();
    long curSize = dl.size.getAsLong();
    long curV4 = dl.v4();
    long keywordV4 = 0;
    long newSize = curSize;
    long newV4 = curV4;
    List<String> why = new ArrayList<>();
    if (size && tso > 0) {
      if (v6 && curSize < tso && curSize < fSize) {
        newSize = Math.min(tso, fSize);
        why.add("gso_max_size " + curSize + " is below its tso_max_size " + tso + " and the feeders' " + fSize);
      }
      if (v4 && curV4 < tso && curV4 < fV4) {
        long want = Math.min(tso, fV4);
        if (want > LEGACY_MAX) {
          // only the gso_ipv4_max_size keyword (iproute2 6.3+) sets an IPv4 limit above 64 KiB: explained, and
          // the commands raise it as far as plain gso_max_size can (64 KiB)
          keywordV4 = want;
          want = Math.max(curV4, LEGACY_MAX);
        }
        newV4 = want;
        if (!dl.differ() && newV4 > newSize) {
          newSize = newV4; // one limit for both families: raise gso_max_size with it
        }
        if (newV4 > curV4 || keywordV4 > 0) {
          why.add((dl.differ() ? "gso_ipv4_max_size " : "its IPv4 limit ") + curV4 + " is below its tso_max_size "
              + tso + " and the feeders' " + fV4);
        }
      }
    }
    if (newSize != curSize && newSize <= LEGACY_MAX && newV4 == curV4 && curV4 <= newSize) {
      newV4 = newSize; // gso_max_size at or below 64 KiB sets the IPv4 limit with it: let it
    }
    long curSegs = dl.segs.orElse(-1);
    long newSegs = segs ? raisedSegs(curSegs, tsoSegs, f.segs(), why) : curSegs;
    List<List<String>> sets = raiseSettings(curSize, curV4, newSize, newV4);
    if (newSegs != curSegs) {
      if (sets.isEmpty()) {
        sets.add(new ArrayList<>());
      }
      sets.get(0).addAll(List.of("gso_max_segs", Long.toString(newSegs)));
    }
    Limits after = new Limits(OptionalLong.of(newSize),
        dl.ipv4.isPresent() || newV4 != newSize ? OptionalLong.of(newV4) : OptionalLong.empty(),
        curSegs > 0 ? OptionalLong.of(newSegs) : dl.segs);
    return new Raise(sets, after, raiseWhy(why, dl, l, keywordV4), keywordV4);
  }

  /**
   * gso_max_segs raised to the smaller of tso_max_segs and the feeders' largest (at most 65535) when it
   * is below both, with the reason added to {@code why}; otherwise unchanged.
   */
  private static long raisedSegs(long curSegs, long tsoSegs, long fSegs, List<String> why) {
    if (tsoSegs > 0 && curSegs > 0 && curSegs < tsoSegs && curSegs < fSegs) {
      why.add("gso_max_segs " + curSegs + " is below its tso_max_segs " + tsoSegs + " and the feeders' " + fSegs);
      return Math.min(Math.min(tsoSegs, fSegs), 65535);
    }
    return curSegs;
  }

  /** The largest limits D's feeders use: what raising D's own limits is worth up to. */
  private record Feeders(long size, long v4, long segs) {
    static Feeders of(List<DeviceGraph.Source> sources) {
      long size = 0;
      long v4 = 0;
      long segs = 0;
      for (DeviceGraph.Source s : sources) {
        Limits u = Limits.of(s.device().link());
        size = Math.max(size, u.size.orElse(0));
        v4 = Math.max(v4, u.v4());
        segs = Math.max(segs, u.segs.orElse(0));
      }
      return new Feeders(size, v4, segs);
    }
  }

  /** The raise's reasoning for the evidence: a setting raised ({@code why}), or D at its cap. */
  private static String raiseWhy(List<String> why, Limits dl, Link l, long keywordV4) {
    String text;
    if (why.isEmpty()) {
      text = "at its cap: gso_max_size " + dl.size.getAsLong() + (dl.differ() ? ", gso_ipv4_max_size " + dl.v4() : "")
          + " (tso_max_size " + l.tsoMaxSize().orElse(-1) + "), gso_max_segs " + dl.segs.orElse(-1)
          + " (tso_max_segs " + l.tsoMaxSegs().orElse(-1)
          + "): its driver takes no more, so the feeders must come down";
    } else {
      text = "a setting: " + String.join("; ", why) + ": raised to the smaller";
    }
    if (keywordV4 > 0) {
      text += "; its IPv4 limit can go up to " + keywordV4 + " only with the gso_ipv4_max_size keyword (iproute2 6.3 "
          + "or later), which segscope explains rather than commands";
    }
    return text;
  }

  /**
   * The settings that take D from (curSize, curV4) to (newSize, newV4). gso_max_size at or below 64 KiB
   * sets gso_ipv4_max_size to the same value; above, it leaves it; only the keyword (iproute2 6.3+) sets
   * an IPv4 limit above 64 KiB.
   */
  static List<List<String>> raiseSettings(long curSize, long curV4, long newSize, long newV4) {
    List<List<String>> out = new ArrayList<>();
    if (newSize == curSize && newV4 == curV4) {
      return out;
    }
    if (newV4 > LEGACY_MAX || (newSize <= LEGACY_MAX && newV4 != newSize)) {
      List<String> set = new ArrayList<>();
      if (newSize != curSize || newSize <= LEGACY_MAX) {
        set.addAll(List.of("gso_max_size", Long.toString(newSize)));
      }
      set.addAll(List.of("gso_ipv4_max_size", Long.toString(newV4)));
      out.add(set);
    } else if (newSize <= LEGACY_MAX) {
      out.add(new ArrayList<>(List.of("gso_max_size", Long.toString(newSize)))); // both families
    } else if (newV4 != curV4) {
      out.add(new ArrayList<>(List.of("gso_max_size", Long.toString(newV4))));  // both to the IPv4 limit
      out.add(new ArrayList<>(List.of("gso_max_size", Long.toString(newSize)))); // IPv6 up; IPv4 stays
    } else {
      out.add(new ArrayList<>(List.of("gso_max_size", Long.toString(newSize))));
    }
    return out;
  }

  private static boolean pathIsRouted(AdviceContext ctx, Device d, DeviceGraph.Source src) {
    return ctx.inventory().chain(d).up().stream().anyMatch(h -> h.relation() == Relation.ROUTE
        && h.distance() < src.distance());
  }

  /** A device's size limits: gso_max_size, the IPv4 one (gso_ipv4_max_size, else gso_max_size), segs. */
  record Limits(OptionalLong size, OptionalLong ipv4, OptionalLong segs) {
    static Limits of(Link l) {
      return new Limits(l.gsoMaxSize(), l.gsoIpv4MaxSize(), l.gsoMaxSegs());
    }

    long v4() {
      return ipv4.isPresent() ? ipv4.getAsLong() : size.orElse(-1);
    }

    /** BIG TCP: the two families' limits differ. */
    boolean differ() {
      return size.isPresent() && v4() != size.getAsLong();
    }
  }

  /**
   * The {@code ip link set} commands (each a list of settings) that bring source {@code u} down to
   * D's size limit for the families seen, or none when u's limits already fit or the kernel would
   * refuse the value (below MAX_TCP_HEADER + 1, above u's tso_max_size).
   *
   * <p>iproute2 before 6.3 (Debian 12's 6.1) does not know {@code gso_ipv4_max_size}, so an IPv4
   * limit at or below 64 KiB is set through the kernel's rule instead: {@code gso_max_size N} sets
   * both limits to N, and a second {@code gso_max_size G} above 64 KiB raises only the IPv6 one back.
   * The keyword is used only for an IPv4 limit above 64 KiB, which nothing else can set.
   */
  static List<List<String>> sizeSettings(Limits dl, Limits ul, Link u, boolean v4, boolean v6) {
    List<List<String>> out = new ArrayList<>();
    if (dl.size.isEmpty() || ul.size.isEmpty()) {
      return out;
    }
    long dSize = dl.size.getAsLong();
    long uSize = ul.size.getAsLong();
    if (!dl.differ()) {
      // one limit for both families: gso_max_size (which, at or below 64 KiB, sets the IPv4 one too)
      boolean over = uSize > dSize || (v4 && ul.v4() > dSize);
      if (over && accepted(dSize, u)) {
        List<String> set = new ArrayList<>(List.of("gso_max_size", Long.toString(dSize)));
        if (dSize > LEGACY_MAX && v4 && ul.ipv4.isPresent() && ul.v4() > dSize) {
          set.addAll(List.of("gso_ipv4_max_size", Long.toString(dSize)));
        }
        out.add(set);
      }
      return out;
    }
    // BIG TCP: D's IPv4 and IPv6 limits differ
    long uSizeTarget = v6 && uSize > dSize ? dSize : uSize;
    long dV4 = dl.v4();
    long v4After = uSizeTarget != uSize && uSizeTarget <= LEGACY_MAX ? uSizeTarget : ul.v4();
    boolean v4Over = v4 && v4After > dV4;
    if (v4Over && accepted(dV4, u)) {
      if (dV4 > LEGACY_MAX) {
        List<String> set = new ArrayList<>();
        if (uSizeTarget != uSize && accepted(uSizeTarget, u)) {
          set.addAll(List.of("gso_max_size", Long.toString(uSizeTarget)));
        }
        set.addAll(List.of("gso_ipv4_max_size", Long.toString(dV4)));
        out.add(set);
      } else if (uSizeTarget > LEGACY_MAX) {
        out.add(List.of("gso_max_size", Long.toString(dV4)));         // both limits to D's IPv4 one
        out.add(List.of("gso_max_size", Long.toString(uSizeTarget))); // IPv6 back up; IPv4 stays
      } else {
        out.add(List.of("gso_max_size", Long.toString(Math.min(dV4, uSizeTarget))));
      }
    } else if (uSizeTarget != uSize && accepted(uSizeTarget, u)) {
      out.add(List.of("gso_max_size", Long.toString(uSizeTarget)));
    }
    return out;
  }

  private static boolean accepted(long n, Link u) {
    return n >= KERNEL_MIN_GSO_MAX_SIZE && (u.tsoMaxSize().isEmpty() || n <= u.tsoMaxSize().getAsLong());
  }

  static double round(double v) {
    return Evidence.round(v);
  }
}

package io.segscope.agent.advice;

import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.inventory.model.Qdisc;
import io.segscope.vocabulary.Cause;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code qdisc_segmentation}: a qdisc on device D segments GSO super-packets itself (cause
 * {@code qdisc}, site {@code qdisc}).
 * <ul>
 *   <li>tbf: a super-packet longer than the bucket ({@code burst}) is segmented ({@code tbf_segment}).
 *       Command: {@code tc qdisc change dev D (root | parent P) handle H tbf rate R burst B limit L}
 *       with the qdisc's own rate and link-layer settings and a burst that holds D's largest
 *       super-packet (its gso_max_size plus the headers of every segment); the limit grows by as
 *       much, so that tbf's latency ((limit − burst) / rate) stays what it was. Not with a peak
 *       rate: its bucket ({@code mtu}) caps packets too, and a large one defeats the peak rate (an
 *       explanation instead).
 *   <li>cake: splits super-packets by default ({@code split-gso}) to keep latency low at low rates.
 *       Command: {@code tc qdisc change dev D ... cake no-split-gso}.
 *   <li>netem (with corruption), taprio (with max-sdu/txtime), dualpi2 and others: the
 *       segmentation is part of what they were configured to do: an explanation only.
 * </ul>
 */
public final class QdiscSegmentationRule implements Rule {

  /** Header bytes counted per segment (Ethernet + IPv6 + TCP with options): qdisc_pkt_len adds them. */
  static final long HEADERS_PER_SEGMENT = 14 + 40 + 60;
  static final int MAX_QDISCS = 16;

  @Override
  public String name() {
    return "qdisc_segmentation";
  }

  @Override
  public Optional<Finding> evaluate(DeviceCost cost, AdviceContext ctx) {
    double share = cost.causeShare(Cause.QDISC);
    Optional<AdviceContext.Located> at = ctx.locateSegmenting(cost, share);
    if (at.isEmpty()) {
      return Optional.empty();
    }
    Device d = at.get().device();
    List<Qdisc> qdiscs = ctx.inventory().qdiscs(d);
    long need = largestSuperPacket(d);
    List<Command> commands = new ArrayList<>();
    List<Map<String, Object>> seen = new ArrayList<>();
    List<String> explained = new ArrayList<>();
    for (Qdisc q : qdiscs.subList(0, Math.min(qdiscs.size(), MAX_QDISCS))) {
      seen.add(examine(q, need, at.get().netns(), d.name(), commands, explained));
    }
    Map<String, Object> ev = Evidence.gso(cost);
    ev.put("cause_qdisc_share", Evidence.round(share));
    ev.put("largest_super_packet_bytes", need);
    ev.put("qdiscs", seen);
    if (commands.isEmpty() && explained.isEmpty()) {
      explained.add("no qdisc of " + AdviceContext.label(d) + " that segments (tbf, cake, netem, taprio) was found "
          + "in the inventory; `tc -s qdisc show dev` in its namespace shows which one does");
    }
    boolean cake = seen.stream().anyMatch(e -> "cake".equals(e.get("kind")));
    return Optional.of(new Finding(name(), commands.isEmpty() ? "info" : "warning", AdviceContext.ref(d),
        List.of(AdviceContext.ref(d)),
        String.format("a qdisc on %s segments %.0f super-packets/s in software", AdviceContext.label(d),
            cost.swSkbsPerSec()),
        ev, commands, commands.isEmpty() ? 0 : cost.gsoCpu().cores() * share,
        commands.isEmpty() ? "none: there is no command to run"
            : "the CPU measured segmenting at " + AdviceContext.label(d) + " for this cause (" + cost.gsoCpu().basis()
                + "): the qdisc passes super-packets whole once its bucket holds them",
        commands.isEmpty() ? "high" : share >= 0.9 ? "high" : "medium",
        commands.isEmpty() ? "none"
            : "a larger burst lets the shaper send up to that many bytes back to back at line rate (shaping is "
                + "coarser by one super-packet)" + (cake ? "; cake without split-gso delays other flows behind a "
                    + "whole super-packet, which matters at rates below about 1 Gbit/s" : ""),
        String.join("; ", explained)));
  }

  /**
   * One qdisc of the device: what the evidence lists of it, with the command that stops it segmenting added to
   * {@code commands}, or why there is none to {@code explained}.
   */
  private static Map<String, Object> examine(Qdisc q, long need, Netns ns, String dev, List<Command> commands,
      List<String> explained) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("kind", q.kind());
    e.put("handle", q.handleText());
    e.put("parent", q.parentText());
    switch (q.kind()) {
      case "tbf" -> tbf(q, need, ns, dev, e, commands, explained);
      case "cake" -> {
        if (q.cake().isPresent() && q.cake().get().splitGso()) {
          List<String> args = new ArrayList<>(where(q));
          args.addAll(List.of("cake", "no-split-gso"));
          commands.add(NetnsCommands.tcQdiscChange(ns, dev, args));
          e.put("split_gso", true);
        }
      }
      case "netem", "taprio", "dualpi2" -> explained.add(q.kind() + " " + q.handleText()
          + " segments super-packets as part of what it was configured to do (netem corruption, taprio "
          + "max-sdu or txtime, dualpi2 splitting): change that configuration if the segmentation is not wanted");
      default -> {}
    }
    return e;
  }

  /** A tbf whose bucket is smaller than the largest super-packet: its burst raised to hold one. */
  private static void tbf(Qdisc q, long need, Netns ns, String dev, Map<String, Object> e, List<Command> commands,
      List<String> explained) {
    if (q.tbf().isEmpty()) {
      explained.add("tbf " + q.handleText() + ": its parameters could not be read");
      return;
    }
    Qdisc.Tbf p = q.tbf().get();
    e.put("burst_bytes", p.burstBytes());
    e.put("limit_bytes", p.limitBytes());
    e.put("rate_bytes_per_sec", p.rateBytesPerSec());
    if (p.peakBytesPerSec() > 0) {
      explained.add("tbf " + q.handleText() + " has a peak rate: its peak bucket (mtu " + p.mtuBytes()
          + " bytes) also caps packets; raise burst and mtu together to at least " + need
          + " bytes if the peak rate allows such bursts, or let it segment");
      return;
    }
    if (p.burstBytes() >= need || p.rateBytesPerSec() <= 0) {
      return;
    }
    List<String> args = new ArrayList<>(where(q));
    // the limit grows with the burst: tbf's latency ((limit - burst) / rate) stays what it was
    long limit = Math.max(need, p.limitBytes() + (need - p.burstBytes()));
    args.addAll(List.of("tbf", "rate", p.rateBytesPerSec() + "bps", "burst", Long.toString(need), "limit",
        Long.toString(limit)));
    if (p.overhead() != 0) {
      args.addAll(List.of("overhead", Integer.toString(p.overhead())));
    }
    if (p.mpu() != 0) {
      args.addAll(List.of("mpu", Integer.toString(p.mpu())));
    }
    if (p.linklayer() == 2) {
      args.addAll(List.of("linklayer", "atm"));
    }
    commands.add(NetnsCommands.tcQdiscChange(ns, dev, args));
    e.put("new_burst_bytes", need);
  }

  /** {@code root} or {@code parent P}, then {@code handle H}: how tc finds the qdisc to change. */
  private static List<String> where(Qdisc q) {
    List<String> w = new ArrayList<>();
    if (q.root()) {
      w.add("root");
    } else {
      w.addAll(List.of("parent", q.parentText()));
    }
    w.addAll(List.of("handle", q.handleText()));
    return w;
  }

  /**
   * The largest length a qdisc sees for one of D's super-packets (qdisc_pkt_len: the payload plus
   * the headers of every segment): D's gso_max_size (the larger family limit) plus
   * {@link #HEADERS_PER_SEGMENT} per segment at D's MTU.
   */
  static long largestSuperPacket(Device d) {
    long size = Math.max(d.link().gsoMaxSize().orElse(65536), d.link().gsoIpv4MaxSize().orElse(0));
    long mss = Math.max(536, d.link().mtu() - 40 - 20);
    long segments = Math.min(d.link().gsoMaxSegs().orElse(65535), (size + mss - 1) / mss);
    return size + segments * HEADERS_PER_SEGMENT;
  }
}

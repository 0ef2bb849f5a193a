package io.segscope.probes.program;

import io.segscope.probes.ksym.Kallsyms;
import io.segscope.probes.wire.Site;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Where in the kernel software segmentation happens, as address ranges of the functions that
 * contain each call site (or, where the call site is inlined, of the function it is inlined into),
 * taken from /proc/kallsyms. A location seen by {@code skb:consume_skb} (or a return address seen by
 * a kprobe) inside one of them classifies a segmentation by {@link Site}; the programs get the ranges
 * compiled in as a binary search ({@link #siteFunction()}).
 *
 * <p>The same for the functions on the transmit path that drop skbs before the driver
 * ({@link #txDropFunction()}): a GSO super-packet freed there was queued but never handed to the driver.
 */
public final class CallSites {

  /** One function's address range and what it means. */
  public record Range(String function, long start, long end, Site site, boolean afterQueue) {}

  /**
   * The functions per site, in the order looked up. A function may be absent on a kernel (inlined
   * into the next one listed, or a feature not built): each present one contributes its range.
   * {@code afterQueue}: the segmentation happens after net:net_dev_queue on the same device (it
   * counts against that device's "offloaded").
   */
  private record Candidate(String function, Site site, boolean afterQueue) {}

  private static final List<Candidate> SEGMENTING = List.of(
      new Candidate("validate_xmit_skb", Site.XMIT, true),
      new Candidate("ip_finish_output_gso", Site.IP_OUTPUT_MTU, false),
      new Candidate("__ip_finish_output", Site.IP_OUTPUT_MTU, false),
      new Candidate("ip6_finish_output_gso", Site.IP_OUTPUT_MTU, false),
      new Candidate("__ip6_finish_output", Site.IP_OUTPUT_MTU, false),
      new Candidate("tbf_segment", Site.QDISC, true),
      new Candidate("tbf_enqueue", Site.QDISC, true),
      new Candidate("cake_enqueue", Site.QDISC, true),
      new Candidate("netem_segment", Site.QDISC, true),
      new Candidate("netem_enqueue", Site.QDISC, true),
      new Candidate("taprio_enqueue_segmented", Site.QDISC, true),
      new Candidate("taprio_enqueue", Site.QDISC, true),
      new Candidate("dualpi2_qdisc_enqueue", Site.QDISC, true),
      new Candidate("validate_xmit_xfrm", Site.XFRM, true),
      new Candidate("xfrm_output_gso", Site.XFRM, false),
      new Candidate("xfrm_output", Site.XFRM, false),
      new Candidate("udp_rcv_segment", Site.UDP_RX, false),
      new Candidate("udp_queue_rcv_skb", Site.UDP_RX, false),
      new Candidate("udpv6_queue_rcv_skb", Site.UDP_RX, false),
      new Candidate("__nfqnl_enqueue_packet_gso", Site.OTHER, false),
      new Candidate("nfqnl_enqueue_packet", Site.OTHER, false),
      new Candidate("queue_gso_packets", Site.OTHER, false),
      new Candidate("tap_handle_frame", Site.OTHER, false));

  private static final List<String> TX_DROP = List.of("__dev_queue_xmit", "__dev_xmit_skb", "dev_qdisc_enqueue",
      "sch_direct_xmit", "validate_xmit_skb", "validate_xmit_skb_list", "__qdisc_run", "dev_requeue_skb");

  private final List<Range> sites;
  private final List<Range> txDrops;
  private final Map<Site, List<String>> found;

  private CallSites(List<Range> sites, List<Range> txDrops, Map<Site, List<String>> found) {
    this.sites = sites;
    this.txDrops = txDrops;
    this.found = found;
  }

  /** Looks every candidate up in {@code kallsyms} (clones such as {@code .isra.0} included). */
  public static CallSites resolve(Kallsyms kallsyms) {
    Objects.requireNonNull(kallsyms, "kallsyms");
    List<Range> sites = new ArrayList<>();
    Map<Site, List<String>> found = new LinkedHashMap<>();
    for (Site s : Site.values()) {
      found.put(s, new ArrayList<>());
    }
    for (Candidate c : SEGMENTING) {
      for (Kallsyms.Symbol sym : kallsyms.functionAndClones(c.function())) {
        if (sites.stream().noneMatch(r -> r.start() == sym.start())) {
          sites.add(new Range(sym.name(), sym.start(), sym.end(), c.site(), c.afterQueue()));
          found.get(c.site()).add(sym.name());
        }
      }
    }
    List<Range> drops = new ArrayList<>();
    for (String f : TX_DROP) {
      for (Kallsyms.Symbol sym : kallsyms.functionAndClones(f)) {
        if (drops.stream().noneMatch(r -> r.start() == sym.start())) {
          drops.add(new Range(sym.name(), sym.start(), sym.end(), Site.OTHER, true));
        }
      }
    }
    sites.sort(Comparator.comparingLong(Range::start));
    drops.sort(Comparator.comparingLong(Range::start));
    Map<Site, List<String>> frozen = new LinkedHashMap<>();
    found.forEach((k, v) -> frozen.put(k, List.copyOf(v)));
    return new CallSites(List.copyOf(sites), List.copyOf(drops), frozen);
  }

  /** The segmenting functions found, by site (empty list: the kernel has none of that site's functions). */
  public Map<Site, List<String>> found() {
    return found;
  }

  public List<Range> sites() {
    return sites;
  }

  public List<Range> txDrops() {
    return txDrops;
  }

  /** Whether validate_xmit_skb (or a clone) was found: tracepoint mode cannot work without it. */
  public boolean hasXmit() {
    return !found.get(Site.XMIT).isEmpty();
  }

  /**
   * {@code static __always_inline u32 site_of(u64 loc)}: the site of {@code loc} ({@link Site#code()})
   * with bit 4 set for after-queue sites, or SITES (not a segmenting function).
   */
  public String siteFunction() {
    StringBuilder c = new StringBuilder("/* generated by io.segscope.probes.program.CallSites */\n");
    c.append("#define SITE_AFTER_QUEUE 16\n#define SITE_MASK 15\n");
    c.append("static __always_inline u32 site_of(u64 loc)\n{\n");
    search(c, sites, 0, sites.size() - 1, 1, r -> (r.site().code() | (r.afterQueue() ? 16 : 0)) + "", Site.values().length + "");
    c.append("}\n");
    return c.toString();
  }

  /** {@code static __always_inline u32 tx_drop_site(u64 loc)}: 1 inside a transmit-path drop site, else 0. */
  public String txDropFunction() {
    StringBuilder c = new StringBuilder("/* generated by io.segscope.probes.program.CallSites */\n");
    c.append("static __always_inline u32 tx_drop_site(u64 loc)\n{\n");
    search(c, txDrops, 0, txDrops.size() - 1, 1, r -> "1", "0");
    c.append("}\n");
    return c.toString();
  }

  /** Emits a binary search over sorted disjoint ranges [lo, hi]. */
  private static void search(StringBuilder c, List<Range> ranges, int lo, int hi, int depth,
      java.util.function.Function<Range, String> hit, String miss) {
    String pad = "    ".repeat(depth);
    if (lo > hi) {
      c.append(pad).append("return ").append(miss).append(";\n");
      return;
    }
    if (lo == hi) {
      Range r = ranges.get(lo);
      c.append(pad).append("if (loc >= 0x").append(Long.toHexString(r.start())).append("ULL && loc < 0x")
          .append(Long.toHexString(r.end())).append("ULL) /* ").append(r.function()).append(" */\n");
      c.append(pad).append("    return ").append(hit.apply(r)).append(";\n");
      c.append(pad).append("return ").append(miss).append(";\n");
      return;
    }
    int mid = (lo + hi + 1) >>> 1;
    c.append(pad).append("if (loc >= 0x").append(Long.toHexString(ranges.get(mid).start())).append("ULL) {\n");
    search(c, ranges, mid, hi, depth + 1, hit, miss);
    c.append(pad).append("} else {\n");
    search(c, ranges, lo, mid - 1, depth + 1, hit, miss);
    c.append(pad).append("}\n");
  }
}

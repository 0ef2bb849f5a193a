package io.segscope.probes.program;

import io.segscope.probes.ksym.Kallsyms;
import io.segscope.vocabulary.Site;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * Where in the kernel software segmentation happens: every known call site of
 * {@code skb_gso_segment()} / {@code __skb_gso_segment()} that frees the original super-packet
 * right after (so {@code skb:consume_skb}'s {@code location}, or a kprobe's return address, lies in
 * the function that contains the call), resolved against {@code /proc/kallsyms} to the address range
 * of that function or, where the compiler inlined it, of the function it was inlined into (the
 * development kernel 6.18 has no {@code ip_finish_output_gso}, {@code tbf_segment} or
 * {@code udp_rcv_segment}: they live in {@code __ip_finish_output}, {@code tbf_enqueue},
 * {@code udp_queue_rcv_skb}). The programs get the ranges compiled in as a binary search
 * ({@link #siteFunction()}).
 *
 * <p>A call site whose function and enclosing functions are all absent (a feature not built, a module
 * not loaded when the agent started) is {@linkplain Resolution#resolved() unresolved}: segmentation
 * there is not seen in tracepoint mode and is reported as site {@code other} in kprobe mode. The
 * agent shows every resolution ({@code segscope doctor}, {@code segscope_probe_call_site_resolved}).
 *
 * <p>The same for the functions on the transmit path that drop skbs before the driver
 * ({@link #txDropFunction()}): a GSO super-packet freed there was queued but never handed to the driver.
 */
public final class CallSites {

  /** One function's address range and what a segmentation (or a drop) seen inside it means. */
  public record Range(String function, long start, long end, Site site, boolean afterQueue) {}

  /**
   * A kernel call site of skb_gso_segment.
   *
   * @param name the function that makes the call
   * @param site what a segmentation there means
   * @param afterQueue it happens after net:net_dev_queue on the same device (so it counts against that
   *     device's "offloaded")
   * @param enclosing the functions {@code name} may be inlined into, innermost first
   * @param dropsAfterSegmenting it frees the original with kfree_skb (not consume_skb) when every segment
   *     was dropped (tbf_segment): such a free is a segmentation, not a drop before the driver
   * @param inlinedIntoEach where {@code name} is absent, it is inlined into EACH of the enclosing functions
   *     that exist (its callers), not only into the first (validate_xmit_skb on Debian's 6.1: into
   *     validate_xmit_skb_list and __dev_queue_xmit)
   */
  public record CallSite(String name, Site site, boolean afterQueue, List<String> enclosing,
      boolean dropsAfterSegmenting, boolean inlinedIntoEach) {
    public CallSite {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(site, "site");
      enclosing = List.copyOf(enclosing);
    }

    /** Enclosing functions innermost first: the first one that exists holds the call site. */
    public CallSite(String name, Site site, boolean afterQueue, List<String> enclosing,
        boolean dropsAfterSegmenting) {
      this(name, site, afterQueue, enclosing, dropsAfterSegmenting, false);
    }

    /** {@code name}, then the functions it may be inlined into. */
    public List<String> chain() {
      List<String> c = new ArrayList<>();
      c.add(name);
      c.addAll(enclosing);
      return c;
    }
  }

  /**
   * What a call site resolved to on this kernel.
   *
   * @param callSite the call site
   * @param function the kallsyms name of the function whose range holds it ({@code validate_xmit_skb.isra.0},
   *     {@code __ip_finish_output}, ...), empty when unresolved
   * @param module the module that function is in, "" for the core kernel or when unresolved
   */
  public record Resolution(CallSite callSite, Optional<String> function, String module) {
    public boolean resolved() {
      return function.isPresent();
    }

    /** Resolved to a function other than the call site's own (or its clone): the call site is inlined there. */
    public boolean inlined() {
      return function.filter(f -> !f.equals(callSite.name()) && !f.startsWith(callSite.name() + ".")).isPresent();
    }

    /** One line: {@code qdisc tbf_segment: inlined into tbf_enqueue [sch_tbf]} or {@code ...: absent}. */
    public String describe() {
      String where =
          function.map(f -> (inlined() ? "inlined into " : "") + f + (module.isEmpty() ? "" : " [" + module + "]"))
              .orElse("absent (not in /proc/kallsyms: not built, or its module not loaded when the probes started)");
      return callSite.site().label() + " " + callSite.name() + ": " + where;
    }
  }

  private static CallSite at(String name, Site site, boolean afterQueue, String... enclosing) {
    return new CallSite(name, site, afterQueue, List.of(enclosing), false);
  }

  /**
   * Every call site looked up, in order (kernel source: net/core/dev.c, net/ipv4/ip_output.c,
   * net/ipv6/ip6_output.c, net/sched/sch_{tbf,cake,netem,taprio,dualpi2}.c, net/xfrm/, include/net/udp.h,
   * net/netfilter/nfnetlink_queue.c, net/openvswitch/datapath.c, drivers/net/tap.c,
   * drivers/net/wireguard/device.c). Where they are inlined on the kernels measured (6.1 and 6.18):
   * docs/probing.md.
   */
  public static final List<CallSite> CALL_SITES = List.of(
      new CallSite("validate_xmit_skb", Site.XMIT, true, List.of("validate_xmit_skb_list", "__dev_queue_xmit"),
          false, true),
      at("ip_finish_output_gso", Site.IP_OUTPUT_MTU, false, "__ip_finish_output", "ip_finish_output"),
      at("ip6_finish_output_gso_slowpath_drop", Site.IP_OUTPUT_MTU, false, "ip6_finish_output_gso",
          "__ip6_finish_output", "ip6_finish_output"),
      new CallSite("tbf_segment", Site.QDISC, true, List.of("tbf_enqueue"), true),
      at("cake_enqueue", Site.QDISC, true),
      at("netem_segment", Site.QDISC, true, "netem_enqueue"),
      at("taprio_enqueue_segmented", Site.QDISC, true, "taprio_enqueue"),
      at("dualpi2_qdisc_enqueue", Site.QDISC, true),
      at("validate_xmit_xfrm", Site.XFRM, true),
      at("xfrm_output_gso", Site.XFRM, false, "xfrm_output"),
      at("udp_rcv_segment", Site.UDP_RX, false, "udp_queue_rcv_skb"),
      at("udp_rcv_segment", Site.UDP_RX, false, "udpv6_queue_rcv_skb"),
      at("nfqnl_enqueue_packet", Site.OTHER, false),
      at("queue_gso_packets", Site.OTHER, false),
      at("tap_handle_frame", Site.OTHER, false),
      at("wg_xmit", Site.OTHER, true));

  private static final List<String> TX_DROP = List.of("__dev_queue_xmit", "__dev_xmit_skb", "dev_qdisc_enqueue",
      "sch_direct_xmit", "validate_xmit_skb", "validate_xmit_skb_list", "__qdisc_run", "dev_requeue_skb");

  private final List<Range> sites;
  private final List<Range> txDrops;
  private final List<Range> dropsAfterSegmenting;
  private final List<Resolution> resolutions;
  private final Optional<Range> coreText;
  private final List<Range> gsoSegment;

  private CallSites(List<Range> sites, List<Range> txDrops, List<Range> dropsAfterSegmenting,
      List<Resolution> resolutions, Optional<Range> coreText, List<Range> gsoSegment) {
    this.gsoSegment = gsoSegment;
    this.sites = sites;
    this.txDrops = txDrops;
    this.dropsAfterSegmenting = dropsAfterSegmenting;
    this.resolutions = resolutions;
    this.coreText = coreText;
  }

  /**
   * Resolves every call site in {@code kallsyms} (core kernel and loaded modules, compiler clones such as
   * {@code .isra.0} included): the first function of its {@link CallSite#chain()} that exists.
   */
  public static CallSites resolve(Kallsyms kallsyms) {
    Objects.requireNonNull(kallsyms, "kallsyms");
    List<Range> sites = new ArrayList<>();
    List<Range> after = new ArrayList<>();
    List<Resolution> resolutions = new ArrayList<>();
    for (CallSite c : CALL_SITES) {
      List<Kallsyms.Symbol> found = kallsyms.codeOf(c.name());
      if (found.isEmpty() && c.inlinedIntoEach()) {
        found = new ArrayList<>();
        for (String f : c.enclosing()) {
          found.addAll(kallsyms.codeOf(f));
        }
      }
      for (String f : c.chain()) {
        if (!found.isEmpty()) {
          break;
        }
        found = kallsyms.codeOf(f);
      }
      if (found.isEmpty()) {
        resolutions.add(new Resolution(c, Optional.empty(), ""));
        continue;
      }
      resolutions.add(new Resolution(c, Optional.of(found.get(0).name()), found.get(0).module()));
      for (Kallsyms.Symbol sym : found) {
        Range r = new Range(sym.name(), sym.start(), sym.end(), c.site(), c.afterQueue());
        if (sites.stream().noneMatch(x -> x.start() == sym.start())) {
          sites.add(r);
        }
        if (c.dropsAfterSegmenting() && after.stream().noneMatch(x -> x.start() == sym.start())) {
          after.add(r);
        }
      }
    }
    List<Range> drops = new ArrayList<>();
    for (String f : TX_DROP) {
      for (Kallsyms.Symbol sym : kallsyms.functionAndClones(f)) {
        if (drops.stream().noneMatch(r -> r.start() == sym.start())
            && after.stream().noneMatch(r -> r.start() == sym.start())) {
          drops.add(new Range(sym.name(), sym.start(), sym.end(), Site.OTHER, true));
        }
      }
    }
    sites.sort(Comparator.comparingLong(Range::start));
    drops.sort(Comparator.comparingLong(Range::start));
    after.sort(Comparator.comparingLong(Range::start));
    OptionalLong stext = kallsyms.address("_stext");
    OptionalLong etext = kallsyms.address("_etext");
    Optional<Range> core = stext.isPresent() && etext.isPresent()
        && Long.compareUnsigned(stext.getAsLong(), etext.getAsLong()) < 0
            ? Optional.of(new Range("_stext", stext.getAsLong(), etext.getAsLong(), Site.OTHER, false))
            : Optional.empty();
    List<Range> gso = kallsyms.codeOf("__skb_gso_segment").stream()
        .map(sym -> new Range(sym.name(), sym.start(), sym.end(), Site.OTHER, false)).toList();
    return new CallSites(List.copyOf(sites), List.copyOf(drops), List.copyOf(after), List.copyOf(resolutions), core,
        gso);
  }

  /**
   * The core kernel's text, {@code [_stext, _etext)} in kallsyms; empty when kallsyms lacks either. Code
   * outside it is a module's (or JIT code): what kprobe mode needs to know about a return address that is
   * in no call site's range (a module loaded after the start, docs/probing.md).
   */
  public Optional<Range> coreText() {
    return coreText;
  }

  /** Every call site of {@link #CALL_SITES} with what it resolved to here, in that order. */
  public List<Resolution> resolutions() {
    return resolutions;
  }

  public List<Range> sites() {
    return sites;
  }

  public List<Range> txDrops() {
    return txDrops;
  }

  /** The ranges of the call sites that free the original with kfree_skb after segmenting it. */
  public List<Range> dropsAfterSegmenting() {
    return dropsAfterSegmenting;
  }

  /** Whether validate_xmit_skb (or a clone) was found: tracepoint mode cannot work without it. */
  public boolean hasXmit() {
    return resolutions.stream().anyMatch(r -> r.callSite().site() == Site.XMIT && r.resolved());
  }

  /**
   * {@code static __always_inline u32 site_of(u64 loc)}: the site of {@code loc} ({@link Site#code()})
   * with bit 4 set for after-queue sites, or SITES (not a segmenting function); and
   * {@code static __always_inline int in_core_text(u64 loc)} ({@link #coreText()}; 1 for every address
   * where kallsyms gave no bounds); and {@code static __always_inline int in_gso_segment(u64 loc)}: inside
   * {@code __skb_gso_segment} itself.
   */
  public String siteFunction() {
    StringBuilder c = new StringBuilder("/* generated by io.segscope.probes.program.CallSites */\n");
    c.append("#define SITE_AFTER_QUEUE 16\n#define SITE_MASK 15\n");
    c.append("static __always_inline u32 site_of(u64 loc)\n{\n");
    search(c, sites, 0, sites.size() - 1, 1, r -> (r.site().code() | (r.afterQueue() ? 16 : 0)) + "",
        Site.values().length + "");
    c.append("}\n");
    // where kallsyms has no bounds every address counts as core text: kprobe mode keeps its queue rule
    c.append("/* the core kernel's text [_stext, _etext): a return address outside it is a module's code */\n");
    c.append("static __always_inline int in_core_text(u64 loc)\n{\n");
    c.append(coreText.map(r -> "    return loc >= 0x" + Long.toHexString(r.start()) + "ULL && loc < 0x"
        + Long.toHexString(r.end()) + "ULL;\n").orElse("    return 1;\n"));
    c.append("}\n");
    // kprobe mode skips __skb_gso_segment's own frame in the unwound stack
    c.append("/* __skb_gso_segment itself (and its clones) */\n");
    c.append("static __always_inline int in_gso_segment(u64 loc)\n{\n");
    for (Range r : gsoSegment) {
      c.append("    if (loc >= 0x").append(Long.toHexString(r.start())).append("ULL && loc < 0x")
          .append(Long.toHexString(r.end())).append("ULL)\n        return 1;\n");
    }
    c.append("    return 0;\n}\n");
    return c.toString();
  }

  /**
   * {@code static __always_inline u32 tx_drop_site(u64 loc)}: {@code TX_DROP} (1) inside a transmit-path
   * drop site, {@code TX_DROP_AFTER_SEGMENTING} (2) inside a call site that frees the original with
   * kfree_skb after segmenting it, else 0.
   */
  public String txDropFunction() {
    List<Range> all = new ArrayList<>(txDrops);
    all.addAll(dropsAfterSegmenting);
    all.sort(Comparator.comparingLong(Range::start));
    StringBuilder c = new StringBuilder("/* generated by io.segscope.probes.program.CallSites */\n");
    c.append("#define TX_DROP 1\n#define TX_DROP_AFTER_SEGMENTING 2\n");
    c.append("static __always_inline u32 tx_drop_site(u64 loc)\n{\n");
    search(c, all, 0, all.size() - 1, 1, r -> dropsAfterSegmenting.contains(r) ? "2" : "1", "0");
    c.append("}\n");
    return c.toString();
  }

  /** Emits a binary search over sorted disjoint ranges [lo, hi]. */
  private static void search(StringBuilder c, List<Range> ranges, int lo, int hi, int depth,
      Function<Range, String> hit, String miss) {
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

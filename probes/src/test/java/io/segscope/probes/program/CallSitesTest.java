package io.segscope.probes.program;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.probes.ksym.Kallsyms;
import io.segscope.vocabulary.Site;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class CallSitesTest {

  // recorded from the 6.18 development kernel: each segmenting function and the symbol after it
  static final List<String> KERNEL_6_18 = List.of(
      "ffffffff81e04490 T tap_handle_frame",
      "ffffffff81e04800 T __pfx_tap_del_queues",
      "ffffffff81eb3c40 t validate_xmit_skb.isra.0",
      "ffffffff81eb3fb0 T __pfx_validate_xmit_skb_list",
      "ffffffff81eb3fc0 T validate_xmit_skb_list",
      "ffffffff81eb4100 T __pfx_dev_hard_start_xmit",
      "ffffffff81f4a5d0 t tbf_enqueue",
      "ffffffff81f4a790 t __pfx_tbf_walk",
      "ffffffff8205ad70 t __ip_finish_output",
      "ffffffff8205aef0 t __pfx_ip_finish_output",
      "ffffffff820a5ce0 t udp_queue_rcv_skb",
      "ffffffff820a5f20 t __pfx_udp_unicast_rcv_skb",
      "ffffffff8211e610 T xfrm_output",
      "ffffffff8211e860 T __pfx_xfrm_sysctl_init",
      "ffffffff8213a970 t ip6_finish_output",
      "ffffffff8213ad90 T __pfx_ip6_output");

  private static Map<String, CallSites.Resolution> byName(CallSites c) {
    return c.resolutions().stream().collect(Collectors.toMap(
        r -> r.callSite().name() + "/" + r.callSite().enclosing(), r -> r, (a, b) -> a));
  }

  private static CallSites.Resolution of(CallSites c, String name) {
    return c.resolutions().stream().filter(r -> r.callSite().name().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void inlinedCallSitesResolveToTheFunctionTheyAreInlinedInto() throws Exception {
    CallSites c = CallSites.resolve(Kallsyms.parse(KERNEL_6_18, "recorded"));
    assertThat(of(c, "ip_finish_output_gso").describe())
        .isEqualTo("ip_output_mtu ip_finish_output_gso: inlined into __ip_finish_output");
    assertThat(of(c, "tbf_segment").function()).contains("tbf_enqueue");
    assertThat(of(c, "tbf_segment").inlined()).isTrue();
    assertThat(of(c, "udp_rcv_segment").function()).contains("udp_queue_rcv_skb");
    assertThat(of(c, "ip6_finish_output_gso_slowpath_drop").function()).contains("ip6_finish_output");
    assertThat(of(c, "xfrm_output_gso").function()).contains("xfrm_output");
    CallSites.Resolution xmit = of(c, "validate_xmit_skb");
    assertThat(xmit.function()).contains("validate_xmit_skb.isra.0");
    assertThat(xmit.inlined()).as("a compiler clone is the function itself").isFalse();
    assertThat(c.hasXmit()).isTrue();
    assertThat(byName(c)).hasSize(CallSites.CALL_SITES.size());
  }

  @Test
  void whereValidateXmitSkbIsInlinedEachOfItsCallersIsAnXmitSite() throws Exception {
    // a kernel built without a validate_xmit_skb symbol (inlined into both callers): a return address in
    // either caller, or a consume_skb there, is a segmentation after the queue
    List<String> inlined = List.of(
        "ffffffff81a00000 T __dev_queue_xmit",
        "ffffffff81a00800 T __pfx_netdev_core_pick_tx",
        "ffffffff81a01000 T validate_xmit_skb_list",
        "ffffffff81a01200 T __pfx_dev_hard_start_xmit",
        "ffffffff81a01210 T dev_hard_start_xmit");
    CallSites c = CallSites.resolve(Kallsyms.parse(inlined, "recorded"));
    assertThat(c.hasXmit()).isTrue();
    assertThat(c.sites()).extracting(CallSites.Range::function)
        .containsExactly("__dev_queue_xmit", "validate_xmit_skb_list");
    assertThat(c.sites()).allSatisfy(r -> {
      assertThat(r.site()).isEqualTo(io.segscope.vocabulary.Site.XMIT);
      assertThat(r.afterQueue()).isTrue();
    });
    assertThat(of(c, "validate_xmit_skb").inlined()).isTrue();
    // where validate_xmit_skb exists (6.18), its callers are not sites
    assertThat(CallSites.resolve(Kallsyms.parse(KERNEL_6_18, "recorded")).sites())
        .extracting(CallSites.Range::function).doesNotContain("validate_xmit_skb_list", "__dev_queue_xmit");
  }

  @Test
  void callSitesTheKernelLacksAreUnresolvedAndSaySo() throws Exception {
    CallSites c = CallSites.resolve(Kallsyms.parse(KERNEL_6_18, "recorded"));
    for (String absent : List.of("cake_enqueue", "netem_segment", "taprio_enqueue_segmented", "validate_xmit_xfrm",
        "queue_gso_packets", "wg_xmit", "dualpi2_qdisc_enqueue")) {
      CallSites.Resolution r = of(c, absent);
      assertThat(r.resolved()).as(absent).isFalse();
      assertThat(r.describe()).as(absent).contains(absent + ": absent");
    }
    assertThat(c.sites()).extracting(CallSites.Range::function).doesNotContain("validate_xmit_skb_list");
  }

  @Test
  void aCallSitesOwnFunctionWinsOverTheOneItMayBeInlinedInto() throws Exception {
    // a 6.1-like kernel: ip_finish_output_gso and tbf_segment are functions of their own, tbf a module
    Kallsyms k = Kallsyms.parse(List.of(
        "ffffffff81a00000 t validate_xmit_skb",
        "ffffffff81a00400 t __pfx_x",
        "ffffffff81b00000 t ip_finish_output_gso",
        "ffffffff81b00200 t __ip_finish_output",
        "ffffffff81b00400 t __pfx_y",
        "ffffffffc0100000 t tbf_segment\t[sch_tbf]",
        "ffffffffc0100300 t tbf_enqueue\t[sch_tbf]",
        "ffffffffc0100500 t tbf_walk\t[sch_tbf]"), "recorded");
    CallSites c = CallSites.resolve(k);
    assertThat(of(c, "ip_finish_output_gso").function()).contains("ip_finish_output_gso");
    assertThat(of(c, "ip_finish_output_gso").inlined()).isFalse();
    assertThat(of(c, "tbf_segment").describe()).isEqualTo("qdisc tbf_segment: tbf_segment [sch_tbf]");
    assertThat(c.sites()).extracting(CallSites.Range::function)
        .as("the enclosing functions are not segmentation sites when the call site is a function of its own")
        .doesNotContain("__ip_finish_output", "tbf_enqueue");
    assertThat(c.dropsAfterSegmenting()).extracting(CallSites.Range::function).containsExactly("tbf_segment");
  }

  @Test
  void theGeneratedSearchesMapEachRangeToItsSiteAndTbfsKfreeToASegmentation() throws Exception {
    CallSites c = CallSites.resolve(Kallsyms.parse(KERNEL_6_18, "recorded"));
    CallSites.Range tbf = c.sites().stream().filter(r -> r.function().equals("tbf_enqueue")).findFirst().orElseThrow();
    assertThat(tbf.site()).isEqualTo(Site.QDISC);
    assertThat(tbf.afterQueue()).isTrue();
    CallSites.Range ip = c.sites().stream().filter(r -> r.function().equals("__ip_finish_output")).findFirst()
        .orElseThrow();
    assertThat(ip.afterQueue()).as("IP output segments before net_dev_queue").isFalse();
    assertThat(c.siteFunction())
        .contains("loc >= 0xffffffff8205ad70ULL && loc < 0xffffffff8205aef0ULL) /* __ip_finish_output */");
    assertThat(returnAfter(c.siteFunction(), "__ip_finish_output")).isEqualTo(Site.IP_OUTPUT_MTU.code());
    assertThat(returnAfter(c.siteFunction(), "tbf_enqueue")).isEqualTo(Site.QDISC.code() | 16);
    assertThat(returnAfter(c.siteFunction(), "udp_queue_rcv_skb")).isEqualTo(Site.UDP_RX.code());
    assertThat(returnAfter(c.siteFunction(), "validate_xmit_skb.isra.0")).isEqualTo(Site.XMIT.code() | 16);
    assertThat(c.txDrops()).extracting(CallSites.Range::function)
        .contains("validate_xmit_skb.isra.0", "validate_xmit_skb_list").doesNotContain("tbf_enqueue");
    assertThat(c.txDropFunction()).contains("#define TX_DROP_AFTER_SEGMENTING 2");
    assertThat(returnAfter(c.txDropFunction(), "tbf_enqueue")).isEqualTo(2);
    assertThat(returnAfter(c.txDropFunction(), "validate_xmit_skb_list")).isEqualTo(1);
  }

  /** The value the generated search returns inside the range commented with function. */
  private static int returnAfter(String c, String function) {
    String after = c.split("/\\* " + java.util.regex.Pattern.quote(function) + " \\*/\n", 2)[1].strip();
    return Integer.parseInt(after.substring("return ".length(), after.indexOf(';')));
  }

  @Test
  void withoutValidateXmitSkbTracepointModeCannotWork() throws Exception {
    CallSites c = CallSites.resolve(Kallsyms.parse(List.of(
        "ffffffff8205ad70 t __ip_finish_output", "ffffffff8205aef0 t __pfx_ip_finish_output"), "recorded"));
    assertThat(c.hasXmit()).isFalse();
    assertThat(of(c, "validate_xmit_skb").resolved()).isFalse();
  }
}

package io.segscope.agent.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.probes.ksym.Kallsyms;
import io.segscope.probes.program.CallSites;
import java.util.List;
import org.junit.jupiter.api.Test;

class CallSitesCheckTest {

  // recorded from the 6.18 development kernel
  private static final List<String> KERNEL_6_18 = List.of(
      "ffffffff81eb3c40 t validate_xmit_skb.isra.0",
      "ffffffff81eb3fb0 T __pfx_validate_xmit_skb_list",
      "ffffffff81f4a5d0 t tbf_enqueue",
      "ffffffff81f4a790 t __pfx_tbf_walk",
      "ffffffff8205ad70 t __ip_finish_output",
      "ffffffff8205aef0 t __pfx_ip_finish_output");

  @Test
  void everyCallSiteIsOneLineSayingWhereItIsOrThatItIsAbsent() throws Exception {
    Check c = HostChecks.callSites(CallSites.resolve(Kallsyms.parse(KERNEL_6_18, "recorded")));
    assertThat(c.status()).isEqualTo(Check.Status.OK);
    List<String> lines = c.detail().lines().toList();
    assertThat(lines.get(0)).startsWith("3 of " + CallSites.CALL_SITES.size() + " segmentation call sites found");
    assertThat(lines).hasSize(1 + CallSites.CALL_SITES.size())
        .contains("xmit validate_xmit_skb: validate_xmit_skb.isra.0",
            "ip_output_mtu ip_finish_output_gso: inlined into __ip_finish_output",
            "qdisc tbf_segment: inlined into tbf_enqueue")
        .anyMatch(l -> l.startsWith("qdisc cake_enqueue: absent"));
  }

  @Test
  void withoutValidateXmitSkbTheCheckWarnsThatTracepointModeIsBlindOnTransmit() throws Exception {
    Check c = HostChecks.callSites(CallSites.resolve(Kallsyms.parse(KERNEL_6_18.subList(2, 6), "recorded")));
    assertThat(c.status()).isEqualTo(Check.Status.WARN);
    assertThat(c.detail())
        .startsWith("validate_xmit_skb not found: tracepoint mode cannot see segmentation on transmit;")
        .contains("xmit validate_xmit_skb: absent");
  }
}

package io.segscope.vocabulary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The label values are the metric contract: pinned here word for word. The codes are pinned to C by ContractTest. */
class TermTest {
  private static List<String> labels(Term[] terms) {
    return Arrays.stream(terms).map(Term::label).toList();
  }

  @Test
  void labelsAreTheMetricContract() {
    assertThat(labels(Cause.values())).containsExactly("feature_missing", "gso_max_size", "gso_max_segs", "checksum",
        "other", "mtu", "qdisc", "tunnel_feature_missing");
    assertThat(labels(Site.values())).containsExactly("xmit", "ip_output_mtu", "qdisc", "xfrm", "udp_rx", "other");
    assertThat(labels(GsoType.values())).containsExactly("tcp4", "tcp6", "udp_l4", "udp_tunnel", "gre", "ipip",
        "fraglist", "other");
    assertThat(labels(Diagnostic.values())).containsExactly("segmented_untimed", "stats_map_full", "detail_map_full",
        "gso_returned_null", "gso_returned_error", "caller_unwound");
  }

  @Test
  void codesAndMacros() {
    assertThat(Cause.GSO_MAX_SEGS.code()).isEqualTo(2);
    assertThat(Cause.GSO_MAX_SEGS.macro()).isEqualTo("CAUSE_GSO_MAX_SEGS");
    assertThat(Site.UDP_RX.macro()).isEqualTo("SITE_UDP_RX");
    assertThat(GsoType.UDP_L4.macro()).isEqualTo("GTYPE_UDP_L4");
    assertThat(Diagnostic.COUNTS_FULL.macro()).isEqualTo("DIAG_COUNTS_FULL");
    assertThat(Term.ofCode(Site.class, 5)).isEqualTo(Site.OTHER);
    assertThatThrownBy(() -> Term.ofCode(Site.class, 6)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Site code 6 is not defined");
  }
}
